package io.overdrive.scheduler.affinity;

import io.overdrive.scheduler.config.NodeSelectionConfig;
import io.overdrive.scheduler.config.NodeSelectionStrategy;
import io.overdrive.scheduler.stats.CacheAdmissionStats;

import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static io.overdrive.scheduler.config.NodeSelectionStrategy.NO_PREFERENCE;
import static java.util.Objects.requireNonNull;

/**
 * A worker's entry point: whether this worker caches the pages of a file it reads. Under an affinity strategy only
 * the key's preferred workers cache it, so the cluster holds each file about {@code preferred-hosts-count} times and a
 * split that fell back to a non-preferred worker reads through without evicting anything.
 * <p>
 * The worker cannot see the addresses the coordinator gave the split; it recomputes the preference order from its
 * own view of the membership, which agrees with the coordinator's whenever both have the same live workers.
 */
public final class AffinityCacheAdmission
{
    private final NodeSelectionStrategy strategy;
    private final int preferredHostsCount;
    private final String currentNodeId;
    private final Supplier<Membership> membership;
    private final CacheAdmissionStats stats;

    public AffinityCacheAdmission(NodeSelectionConfig config, String currentNodeId, Supplier<Membership> membership, CacheAdmissionStats stats)
    {
        requireNonNull(config, "config is null");
        this.strategy = config.getNodeSelectionStrategy();
        this.preferredHostsCount = config.getPreferredHostsCount();
        this.currentNodeId = requireNonNull(currentNodeId, "currentNodeId is null");
        checkArgument(!currentNodeId.isEmpty(), "currentNodeId is empty");
        this.membership = requireNonNull(membership, "membership is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    /**
     * Whether to cache what this worker reads for the affinity key (derive it with
     * {@link io.overdrive.scheduler.config.AffinityGranularity#affinityKey}, as the coordinator did).
     * Always true under {@code NO_PREFERENCE}, which caches as the stock cache does.
     */
    public boolean shouldCache(String affinityKey)
    {
        requireNonNull(affinityKey, "affinityKey is null");
        if (strategy == NO_PREFERENCE) {
            return true;
        }
        if (membership.get().isPreferred(affinityKey, currentNodeId, preferredHostsCount)) {
            stats.recordAdmitted();
            return true;
        }
        stats.recordNotPreferred();
        return false;
    }
}
