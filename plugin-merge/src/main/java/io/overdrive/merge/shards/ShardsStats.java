package io.overdrive.merge.shards;

import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A shards catalog's remote work, exported as {@code io.overdrive.merge.shards:type=ShardsStats,name=<catalog>}.
 * Per-shard figures are in {@link ShardStats}; the merges in the catalog's {@code MergeStats}.
 */
public final class ShardsStats
{
    private final AtomicLong remoteQueries = new AtomicLong();
    private final AtomicLong rowsReceived = new AtomicLong();
    private final AtomicLong hedgedQueries = new AtomicLong();
    private final AtomicLong hedgeWins = new AtomicLong();
    private final AtomicLong failovers = new AtomicLong();
    private final AtomicLong shardFailures = new AtomicLong();
    private final AtomicLong partialResults = new AtomicLong();
    private final AtomicLong mergedSplits = new AtomicLong();
    private final AtomicLong cancelledQueries = new AtomicLong();
    private final TimeStat firstAnswer = new TimeStat(MILLISECONDS);

    void remoteQueryStarted()
    {
        remoteQueries.incrementAndGet();
    }

    void rowsReceived(long rows)
    {
        rowsReceived.addAndGet(rows);
    }

    void hedged()
    {
        hedgedQueries.incrementAndGet();
    }

    void hedgeWon()
    {
        hedgeWins.incrementAndGet();
    }

    void failedOver()
    {
        failovers.incrementAndGet();
    }

    void shardFailed()
    {
        shardFailures.incrementAndGet();
    }

    void partialResult()
    {
        partialResults.incrementAndGet();
    }

    void mergedSplit()
    {
        mergedSplits.incrementAndGet();
    }

    void remoteQueryCancelled()
    {
        cancelledQueries.incrementAndGet();
    }

    void answered(long nanos)
    {
        firstAnswer.addNanos(nanos);
    }

    @Managed(description = "Queries sent to shards (every replica's query counts, hedges included)")
    public long getRemoteQueries()
    {
        return remoteQueries.get();
    }

    @Managed(description = "Rows received from all shards")
    public long getRowsReceived()
    {
        return rowsReceived.get();
    }

    @Managed(description = "Shard queries also sent to another replica because the first had not answered within shards.hedge-delay")
    public long getHedgedQueries()
    {
        return hedgedQueries.get();
    }

    @Managed(description = "Hedged shard queries the later replica answered first")
    public long getHedgeWins()
    {
        return hedgeWins.get();
    }

    @Managed(description = "Shard queries sent to the next replica because a replica failed before answering")
    public long getFailovers()
    {
        return failovers.get();
    }

    @Managed(description = "Shards that did not answer a query (every replica failed)")
    public long getShardFailures()
    {
        return shardFailures.get();
    }

    @Managed(description = "Queries answered without some shards (shards.failure-policy=PARTIAL)")
    public long getPartialResults()
    {
        return partialResults.get();
    }

    @Managed(description = "Splits that merged every shard's sorted result (TopN, aggregations)")
    public long getMergedSplits()
    {
        return mergedSplits.get();
    }

    @Managed(description = "Shard queries cancelled before they finished (query cancelled or failed, limit reached, hedge lost)")
    public long getCancelledQueries()
    {
        return cancelledQueries.get();
    }

    @Managed
    @Nested
    public TimeStat getFirstAnswer()
    {
        return firstAnswer;
    }
}
