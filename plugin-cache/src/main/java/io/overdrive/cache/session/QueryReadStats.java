package io.overdrive.cache.session;

import com.google.common.collect.ImmutableMap;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one page source's reads did in Overdrive (a split of a table scan): bytes served by the page cache, by
 * another reader's fetch (shared scans) and by storage, and the hedges of its reads. The connector reports them as the
 * page source's metrics, which Trino adds up per operator and shows in {@code EXPLAIN ANALYZE VERBOSE}, the query's
 * statistics and the web UI. Only the files a split opens while its page source is created are counted: with Parquet
 * and ORC, every file of the split.
 */
public final class QueryReadStats
{
    /** Reads of no page source (a file opened outside a table scan): counted nowhere. */
    public static final QueryReadStats UNTRACKED = new QueryReadStats();

    public static final String BYTES_FROM_CACHE = "overdrive_bytes_from_cache";
    public static final String BYTES_FROM_SHARED_FETCHES = "overdrive_bytes_from_shared_fetches";
    public static final String BYTES_FROM_STORAGE = "overdrive_bytes_from_storage";
    public static final String BYTES_FROM_PEERS = "overdrive_bytes_from_peers";
    public static final String COALESCED_READS = "overdrive_coalesced_reads";
    public static final String HEDGED_READS = "overdrive_hedged_reads";
    public static final String HEDGED_READ_WINS = "overdrive_hedged_read_wins";

    private final LongAdder bytesFromCache = new LongAdder();
    private final LongAdder bytesFromSharedFetches = new LongAdder();
    private final LongAdder bytesFromStorage = new LongAdder();
    private final LongAdder bytesFromPeers = new LongAdder();
    private final LongAdder coalescedReads = new LongAdder();
    private final LongAdder hedges = new LongAdder();
    private final LongAdder hedgeWins = new LongAdder();

    public void recordFromCache(long bytes)
    {
        bytesFromCache.add(bytes);
    }

    /** Bytes a reader took from another reader's fetch of the same page (one coalesced read). */
    public void recordFromSharedFetch(long bytes)
    {
        bytesFromSharedFetches.add(bytes);
        coalescedReads.increment();
    }

    public void recordFromStorage(long bytes)
    {
        bytesFromStorage.add(bytes);
    }

    /** Bytes a reader took from another worker's cache instead of storage (cache.peer.*). */
    public void recordFromPeer(long bytes)
    {
        bytesFromPeers.add(bytes);
    }

    public long bytesFromPeers()
    {
        return bytesFromPeers.sum();
    }

    public void recordHedge()
    {
        hedges.increment();
    }

    public void recordHedgeWin()
    {
        hedgeWins.increment();
    }

    public long bytesFromCache()
    {
        return bytesFromCache.sum();
    }

    public long bytesFromSharedFetches()
    {
        return bytesFromSharedFetches.sum();
    }

    public long bytesFromStorage()
    {
        return bytesFromStorage.sum();
    }

    public long hedges()
    {
        return hedges.sum();
    }

    /** As Trino's connector metrics: counts, which Trino sums over the page sources of an operator. */
    public Metrics toMetrics()
    {
        return new Metrics(ImmutableMap.<String, Metric<?>>builder()
                .put(BYTES_FROM_CACHE, new LongCount(bytesFromCache.sum()))
                .put(BYTES_FROM_SHARED_FETCHES, new LongCount(bytesFromSharedFetches.sum()))
                .put(BYTES_FROM_STORAGE, new LongCount(bytesFromStorage.sum()))
                .put(BYTES_FROM_PEERS, new LongCount(bytesFromPeers.sum()))
                .put(COALESCED_READS, new LongCount(coalescedReads.sum()))
                .put(HEDGED_READS, new LongCount(hedges.sum()))
                .put(HEDGED_READ_WINS, new LongCount(hedgeWins.sum()))
                .buildOrThrow());
    }
}
