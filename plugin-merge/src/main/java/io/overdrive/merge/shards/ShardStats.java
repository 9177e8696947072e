package io.overdrive.merge.shards;

import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * One shard's remote queries, exported as {@code io.overdrive.merge.shards:type=ShardStats,name=<catalog>.shard-<n>}.
 */
public final class ShardStats
{
    private final AtomicLong queries = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final TimeStat latency = new TimeStat(MILLISECONDS);

    void queryStarted()
    {
        queries.incrementAndGet();
    }

    void rows(long count)
    {
        rows.addAndGet(count);
    }

    void failed()
    {
        failures.incrementAndGet();
    }

    void finished(long nanos)
    {
        latency.addNanos(nanos);
    }

    @Managed(description = "Queries sent to this shard's replicas")
    public long getQueries()
    {
        return queries.get();
    }

    @Managed(description = "Rows received from this shard")
    public long getRows()
    {
        return rows.get();
    }

    @Managed(description = "Queries this shard's replica failed")
    public long getFailures()
    {
        return failures.get();
    }

    @Managed
    @Nested
    public TimeStat getLatency()
    {
        return latency;
    }
}
