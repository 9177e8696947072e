package io.overdrive.cache.page;

import alluxio.conf.AlluxioProperties;
import alluxio.conf.InstancedConfiguration;
import alluxio.conf.PropertyKey;
import io.airlift.units.Duration;

import java.nio.file.Path;

import static java.util.concurrent.TimeUnit.SECONDS;

/** Translates Overdrive's {@code cache.*} properties into the configuration of one directory's Alluxio cache manager. */
final class AlluxioCacheOptions
{
    // a TTL sweep walks the directory on disk: often enough to free space soon, rarely enough to cost little
    private static final long MAX_TTL_SWEEP_SECONDS = 600;

    private AlluxioCacheOptions() {}

    static InstancedConfiguration forDirectory(PageCacheConfig config, Path path, long capacity)
    {
        AlluxioProperties properties = new AlluxioProperties();
        properties.set(PropertyKey.USER_CLIENT_CACHE_ENABLED, true);
        properties.set(PropertyKey.USER_CLIENT_CACHE_DIRS, path.toString());
        properties.set(PropertyKey.USER_CLIENT_CACHE_SIZE, Long.toString(capacity));
        properties.set(PropertyKey.USER_CLIENT_CACHE_PAGE_SIZE, Long.toString(config.getPageSize().toBytes()));
        properties.set(PropertyKey.USER_CLIENT_CACHE_EVICTOR_CLASS, switch (config.getEvictionPolicy()) {
            case LRU -> "alluxio.client.file.cache.evictor.LRUCacheEvictor";
            case LFU -> "alluxio.client.file.cache.evictor.LFUCacheEvictor";
        });
        // the cache manager writes on the thread that hands it a page: with cache.async-write-enabled that is one of
        // BackgroundWrites' threads, whose queue is bounded and counted
        properties.set(PropertyKey.USER_CLIENT_CACHE_ASYNC_WRITE_ENABLED, false);
        // bytes per schema and table are tracked by Alluxio; the quotas themselves are enforced over all directories
        // by CacheQuotas, so the pages carry their scope but no quota
        properties.set(PropertyKey.USER_CLIENT_CACHE_QUOTA_ENABLED, config.getSchemaQuota().isPresent() || config.getTableQuota().isPresent());
        // Alluxio's own restore finds nothing (FaultReportingPageStoreDir): PageRestore restores, in the background
        properties.set(PropertyKey.USER_CLIENT_CACHE_ASYNC_RESTORE_ENABLED, false);
        config.getTtl().ifPresent(ttl -> {
            properties.set(PropertyKey.USER_CLIENT_CACHE_TTL_ENABLED, true);
            properties.set(PropertyKey.USER_CLIENT_CACHE_TTL_THRESHOLD_SECONDS, ttlSeconds(ttl));
            properties.set(PropertyKey.USER_CLIENT_CACHE_TTL_CHECK_INTERVAL_SECONDS, ttlSweepSeconds(ttl));
        });
        return new InstancedConfiguration(properties);
    }

    static long ttlSeconds(Duration ttl)
    {
        return Math.max(1, (long) ttl.getValue(SECONDS));
    }

    /** How often expired pages are deleted: a tenth of the TTL, between 1 second and 10 minutes. */
    static long ttlSweepSeconds(Duration ttl)
    {
        return Math.clamp(ttlSeconds(ttl) / 10, 1, MAX_TTL_SWEEP_SECONDS);
    }
}
