package io.overdrive.it.demo;

import io.overdrive.it.harness.TrinoProcessCluster;

import java.util.function.LongBinaryOperator;

/**
 * What storage served and what Overdrive's features did, as an operator's monitoring sees it: the storage's own count
 * of bytes sent and requests served, and the Overdrive MBeans of one catalog summed over the Trino nodes (JMX remote).
 * Take the difference of two snapshots over a phase.
 */
record ClusterCounters(
        long remoteBytes,
        long remoteRequests,
        long cacheBytesHit,
        long cacheBytesMissed,
        long hedges,
        long hedgeWins,
        long preferred,
        long alternative,
        long fallback)
{
    static final ClusterCounters ZERO = new ClusterCounters(0, 0, 0, 0, 0, 0, 0, 0, 0);

    // a catalog without the feature has no such MBean: it sums to 0. The cache bytes are Overdrive's page cache's or,
    // for a catalog with Trino's fs.cache, Alluxio's cache's as Trino counts them (AlluxioCacheStats: the sizes of the
    // reads served from the cache and from storage)
    static ClusterCounters read(DemoStorage storage, TrinoProcessCluster trino, String catalog)
    {
        String cache = "io.overdrive.cache.page:type=PageCacheStats,name=%s,*".formatted(catalog);
        String trinoCache = "io.trino.filesystem.alluxio:type=AlluxioCacheStats,name=%s,*".formatted(catalog);
        String hedge = "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog);
        String placement = "io.overdrive.scheduler.affinity:type=PlacementStats,name=%s,*".formatted(catalog);
        return new ClusterCounters(
                storage.bytesRead(),
                storage.readRequests(),
                trino.sumOverNodes(cache, "BytesFromCache") + trino.sumOverNodes(trinoCache, "CacheReads.AllTime.Total"),
                trino.sumOverNodes(cache, "BytesFromRemote") + trino.sumOverNodes(trinoCache, "ExternalReads.AllTime.Total"),
                trino.sumOverNodes(hedge, "HedgedReadOps"),
                trino.sumOverNodes(hedge, "HedgedReadOpsWin"),
                trino.sumOverNodes(placement, "Preferred.TotalCount"),
                trino.sumOverNodes(placement, "Alternative.TotalCount"),
                trino.sumOverNodes(placement, "Fallback.TotalCount"));
    }

    ClusterCounters minus(ClusterCounters earlier)
    {
        return combine(earlier, (a, b) -> a - b);
    }

    ClusterCounters plus(ClusterCounters other)
    {
        return combine(other, Long::sum);
    }

    private ClusterCounters combine(ClusterCounters other, LongBinaryOperator operator)
    {
        return new ClusterCounters(
                operator.applyAsLong(remoteBytes, other.remoteBytes),
                operator.applyAsLong(remoteRequests, other.remoteRequests),
                operator.applyAsLong(cacheBytesHit, other.cacheBytesHit),
                operator.applyAsLong(cacheBytesMissed, other.cacheBytesMissed),
                operator.applyAsLong(hedges, other.hedges),
                operator.applyAsLong(hedgeWins, other.hedgeWins),
                operator.applyAsLong(preferred, other.preferred),
                operator.applyAsLong(alternative, other.alternative),
                operator.applyAsLong(fallback, other.fallback));
    }

    /** Share of the page cache's reads served from the cache (bytes), or -1 without a page cache. */
    double cacheHitRatio()
    {
        long total = cacheBytesHit + cacheBytesMissed;
        return total == 0 ? -1 : (double) cacheBytesHit / total;
    }
}
