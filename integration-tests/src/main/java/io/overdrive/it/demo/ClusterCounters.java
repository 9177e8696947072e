package io.overdrive.it.demo;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.TrinoProcessCluster;

/**
 * What storage served and what Overdrive's features did, as an operator's monitoring sees it: the DataNodes' own count
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
        long coalescedReads,
        long remoteBytesSaved,
        long preferred,
        long alternative,
        long fallback)
{
    static ClusterCounters read(HdfsCluster hdfs, TrinoProcessCluster trino, String catalog)
    {
        String cache = "io.overdrive.cache.stats:type=PageCacheStats,name=%s,*".formatted(catalog);
        String hedge = "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog);
        String scan = "io.overdrive.cache.scan:type=SharedScanStats,name=%s,*".formatted(catalog);
        String placement = "io.overdrive.scheduler.stats:type=PlacementStats,name=%s,*".formatted(catalog);
        return new ClusterCounters(
                hdfs.bytesRead(),
                hdfs.readRequests(),
                sum(trino, cache, "BytesFromCache"),
                sum(trino, cache, "BytesFromRemote"),
                sum(trino, hedge, "HedgedReadOps"),
                sum(trino, hedge, "HedgedReadOpsWin"),
                sum(trino, scan, "CoalescedReads"),
                sum(trino, scan, "RemoteBytesSaved"),
                sum(trino, placement, "Preferred.TotalCount"),
                sum(trino, placement, "Alternative.TotalCount"),
                sum(trino, placement, "Fallback.TotalCount"));
    }

    static final ClusterCounters ZERO = new ClusterCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    // a catalog without the feature has no such MBean: it sums to 0
    private static long sum(TrinoProcessCluster trino, String pattern, String attribute)
    {
        long total = 0;
        for (TrinoProcessCluster.TrinoNode node : trino.nodes()) {
            total += JmxAttributes.sum(node.jmxPort(), pattern, attribute);
        }
        return total;
    }

    ClusterCounters minus(ClusterCounters earlier)
    {
        return new ClusterCounters(
                remoteBytes - earlier.remoteBytes,
                remoteRequests - earlier.remoteRequests,
                cacheBytesHit - earlier.cacheBytesHit,
                cacheBytesMissed - earlier.cacheBytesMissed,
                hedges - earlier.hedges,
                hedgeWins - earlier.hedgeWins,
                coalescedReads - earlier.coalescedReads,
                remoteBytesSaved - earlier.remoteBytesSaved,
                preferred - earlier.preferred,
                alternative - earlier.alternative,
                fallback - earlier.fallback);
    }

    ClusterCounters plus(ClusterCounters other)
    {
        return new ClusterCounters(
                remoteBytes + other.remoteBytes,
                remoteRequests + other.remoteRequests,
                cacheBytesHit + other.cacheBytesHit,
                cacheBytesMissed + other.cacheBytesMissed,
                hedges + other.hedges,
                hedgeWins + other.hedgeWins,
                coalescedReads + other.coalescedReads,
                remoteBytesSaved + other.remoteBytesSaved,
                preferred + other.preferred,
                alternative + other.alternative,
                fallback + other.fallback);
    }

    /** Share of the page cache's reads served from the cache (bytes), or -1 without a page cache. */
    double cacheHitRatio()
    {
        long total = cacheBytesHit + cacheBytesMissed;
        return total == 0 ? -1 : (double) cacheBytesHit / total;
    }
}
