package io.overdrive.scheduler.affinity;

import io.overdrive.scheduler.config.NodeSelectionConfig;
import io.overdrive.scheduler.stats.CacheAdmissionStats;
import org.junit.jupiter.api.Test;

import static io.overdrive.scheduler.affinity.Workers.fileKey;
import static io.overdrive.scheduler.affinity.Workers.workers;
import static io.overdrive.scheduler.config.NodeSelectionStrategy.HARD_AFFINITY;
import static io.overdrive.scheduler.config.NodeSelectionStrategy.NO_PREFERENCE;
import static io.overdrive.scheduler.config.NodeSelectionStrategy.SOFT_AFFINITY;
import static org.assertj.core.api.Assertions.assertThat;

public class TestAffinityCacheAdmission
{
    private static final int KEYS = 10_000;

    @Test
    public void testOnlyPreferredWorkersCache()
    {
        Membership membership = Membership.of(workers(6));
        CacheAdmissionStats stats = new CacheAdmissionStats();
        AffinityCacheAdmission admission = new AffinityCacheAdmission(
                new NodeSelectionConfig().setNodeSelectionStrategy(SOFT_AFFINITY).setPreferredHostsCount(2),
                "worker-4",
                () -> membership,
                stats);
        int cached = 0;
        for (int key = 0; key < KEYS; key++) {
            boolean preferred = membership.preferenceOrder(fileKey(key), 2).contains(Workers.worker(4));
            assertThat(admission.shouldCache(fileKey(key))).isEqualTo(preferred);
            cached += preferred ? 1 : 0;
        }
        // a worker is one of two preferred workers of about 2/6 of the keys
        assertThat((double) cached / KEYS).isBetween(0.30, 0.37);
        assertThat(stats.getAdmitted().getTotalCount()).isEqualTo(cached);
        assertThat(stats.getNotCachedNotPreferred().getTotalCount()).isEqualTo(KEYS - cached);
    }

    @Test
    public void testHardAffinityUsesThePreferredHostsCountToo()
    {
        Membership membership = Membership.of(workers(6));
        AffinityCacheAdmission admission = new AffinityCacheAdmission(
                new NodeSelectionConfig().setNodeSelectionStrategy(HARD_AFFINITY).setPreferredHostsCount(1),
                "worker-1",
                () -> membership,
                new CacheAdmissionStats());
        for (int key = 0; key < KEYS; key++) {
            assertThat(admission.shouldCache(fileKey(key)))
                    .isEqualTo(membership.preferenceOrder(fileKey(key), 1).getFirst().nodeId().equals("worker-1"));
        }
    }

    @Test
    public void testWorkerMissingFromItsMembershipDoesNotCache()
    {
        CacheAdmissionStats stats = new CacheAdmissionStats();
        AffinityCacheAdmission admission = new AffinityCacheAdmission(
                new NodeSelectionConfig().setNodeSelectionStrategy(SOFT_AFFINITY),
                "worker-new",
                () -> Membership.of(workers(3)),
                stats);
        assertThat(admission.shouldCache(fileKey(1))).isFalse();
        assertThat(stats.getNotCachedNotPreferred().getTotalCount()).isEqualTo(1);
    }

    @Test
    public void testNoPreferenceCachesEverywhere()
    {
        CacheAdmissionStats stats = new CacheAdmissionStats();
        AffinityCacheAdmission admission = new AffinityCacheAdmission(
                new NodeSelectionConfig().setNodeSelectionStrategy(NO_PREFERENCE),
                "worker-new",
                Membership::empty,
                stats);
        assertThat(admission.shouldCache(fileKey(1))).isTrue();
        assertThat(stats.getNotCachedNotPreferred().getTotalCount()).isZero();
    }
}
