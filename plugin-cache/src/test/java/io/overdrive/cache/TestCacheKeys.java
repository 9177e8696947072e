package io.overdrive.cache;

import io.airlift.units.Duration;
import io.trino.filesystem.Location;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static io.overdrive.cache.CacheKeys.hasCoarseModificationTimes;
import static io.overdrive.cache.CacheKeys.isTooRecent;
import static io.overdrive.cache.CacheKeys.modificationTime;
import static io.overdrive.cache.CacheKeys.storeKey;
import static io.overdrive.cache.CacheKeys.storeOf;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

class TestCacheKeys
{
    private static final Duration FIVE_SECONDS = new Duration(5, SECONDS);
    private static final Instant MODIFIED = Instant.parse("2026-12-06T10:00:00Z");

    @Test
    void theStoreIsSchemeUserInfoHostAndPort()
    {
        assertThat(storeOf(Location.of("s3://bucket/warehouse/x"))).isEqualTo("s3://bucket");
        assertThat(storeOf(Location.of("abfs://container@account.dfs.core.windows.net/x"))).isEqualTo("abfs://container@account.dfs.core.windows.net");
        assertThat(storeOf(Location.of("hdfs://namenode:8020/user/hive/x"))).isEqualTo("hdfs://namenode:8020");
        assertThat(storeOf(Location.of("/user/hive/x"))).isEqualTo("://");
    }

    @Test
    void theSamePathInTwoStoresHasTwoKeys()
    {
        String key = "warehouse/t/000000_0#" + MODIFIED + "#100";
        assertThat(storeKey(Location.of("s3://a/warehouse/t/000000_0"), key))
                .isNotEqualTo(storeKey(Location.of("s3://b/warehouse/t/000000_0"), key))
                .isNotEqualTo(storeKey(Location.of("s3a://a/warehouse/t/000000_0"), key))
                .isEqualTo("s3://a/" + key);
        assertThat(storeKey(Location.of("abfs://c1@account.dfs.core.windows.net/t/f"), "t/f"))
                .isNotEqualTo(storeKey(Location.of("abfs://c2@account.dfs.core.windows.net/t/f"), "t/f"));
        assertThat(storeKey(Location.of("hdfs://nn1:8020/t/f"), "t/f"))
                .isNotEqualTo(storeKey(Location.of("hdfs://nn1:9000/t/f"), "t/f"));
    }

    @Test
    void theModificationTimeIsReadFromTrinosDefaultKey()
    {
        assertThat(modificationTime("warehouse/t/f.orc#" + MODIFIED + "#100")).contains(MODIFIED);
        Instant millis = Instant.parse("2026-12-06T10:00:00.123Z");
        assertThat(modificationTime("a#b/f#" + millis + "#0")).as("a path with #").contains(millis);
        // Iceberg's key is the path alone
        assertThat(modificationTime("warehouse/t/data/00000-0-uuid.parquet")).isEmpty();
        assertThat(modificationTime("warehouse/t/da#ta/file#x")).isEmpty();
        assertThat(modificationTime("f#" + MODIFIED + "#")).isEmpty();
        assertThat(modificationTime("f#" + MODIFIED + "#12a")).isEmpty();
        assertThat(modificationTime("#" + MODIFIED + "#12")).contains(MODIFIED);
        assertThat(modificationTime("#")).isEmpty();
    }

    @Test
    void onlyStoresWithWholeSecondTimesHoldRecentFilesBack()
    {
        assertThat(hasCoarseModificationTimes(Location.of("s3://bucket/f"))).isTrue();
        assertThat(hasCoarseModificationTimes(Location.of("S3A://bucket/f"))).isTrue();
        assertThat(hasCoarseModificationTimes(Location.of("gs://bucket/f"))).isTrue();
        assertThat(hasCoarseModificationTimes(Location.of("abfss://c@a.dfs.core.windows.net/f"))).isTrue();
        assertThat(hasCoarseModificationTimes(Location.of("hdfs://nn/f"))).isFalse();
        assertThat(hasCoarseModificationTimes(Location.of("viewfs://cluster/f"))).isFalse();
        assertThat(hasCoarseModificationTimes(Location.of("local:///f"))).isFalse();
        assertThat(hasCoarseModificationTimes(Location.of("file:///f"))).isFalse();
        assertThat(hasCoarseModificationTimes(Location.of("memory:///f"))).isFalse();
        assertThat(hasCoarseModificationTimes(Location.of("/user/hive/f"))).isFalse();
    }

    @Test
    void aFileIsTooRecentUntilItsKeysTimeIsMinFileAgeOld()
    {
        Location object = Location.of("s3://bucket/t/f");
        String key = "t/f#" + MODIFIED + "#100";
        assertThat(isTooRecent(object, key, FIVE_SECONDS, MODIFIED)).isTrue();
        assertThat(isTooRecent(object, key, FIVE_SECONDS, MODIFIED.plusMillis(4999))).isTrue();
        assertThat(isTooRecent(object, key, FIVE_SECONDS, MODIFIED.plusSeconds(5))).isFalse();
        assertThat(isTooRecent(object, key, FIVE_SECONDS, MODIFIED.minusSeconds(30))).as("a clock behind the store's").isTrue();
        assertThat(isTooRecent(object, key, new Duration(0, SECONDS), MODIFIED)).as("the check switched off").isFalse();
        assertThat(isTooRecent(Location.of("hdfs://nn/t/f"), key, FIVE_SECONDS, MODIFIED)).isFalse();
        assertThat(isTooRecent(object, "t/f", FIVE_SECONDS, MODIFIED)).as("Iceberg's key").isFalse();
    }
}
