package io.overdrive.scheduler.stats;

import com.google.common.collect.ImmutableSortedMap;
import io.airlift.stats.CounterStat;
import io.overdrive.scheduler.affinity.Placement;
import io.overdrive.scheduler.affinity.PlacementSummary;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.joining;

/**
 * Coordinator-side counters of soft-affinity placement, one instance per catalog, exported through JMX.
 */
public final class PlacementStats
{
    private final CounterStat preferred = new CounterStat();
    private final CounterStat alternative = new CounterStat();
    private final CounterStat fallback = new CounterStat();
    private final CounterStat unplaced = new CounterStat();
    // grows with the nodes ever seen, a few per cluster resize: not worth evicting
    private final Map<String, LongAdder> splitsPerNode = new ConcurrentHashMap<>();
    private final AtomicReference<PlacementSummary> lastQuery = new AtomicReference<>(new PlacementSummary(Map.of()));

    public void record(Placement placement)
    {
        requireNonNull(placement, "placement is null");
        switch (placement.kind()) {
            case PREFERRED -> preferred.update(1);
            case ALTERNATIVE -> alternative.update(1);
            case FALLBACK -> fallback.update(1);
        }
        splitsPerNode.computeIfAbsent(placement.worker().nodeId(), _ -> new LongAdder()).increment();
    }

    /**
     * A split left to the engine because no live worker was known.
     */
    public void recordUnplaced()
    {
        unplaced.update(1);
    }

    /**
     * Remembers how a finished table scan (one split source, one {@code SplitPlacer}) spread its splits; one that
     * placed none leaves the previous one. A query with several scans of the catalog records each of them.
     */
    public void recordQuery(PlacementSummary summary)
    {
        requireNonNull(summary, "summary is null");
        if (summary.totalSplits() > 0) {
            lastQuery.set(summary);
        }
    }

    @Managed
    @Nested
    public CounterStat getPreferred()
    {
        return preferred;
    }

    @Managed
    @Nested
    public CounterStat getAlternative()
    {
        return alternative;
    }

    @Managed
    @Nested
    public CounterStat getFallback()
    {
        return fallback;
    }

    @Managed
    @Nested
    public CounterStat getUnplaced()
    {
        return unplaced;
    }

    @Managed(description = "Splits placed on each node since startup, as nodeId=count sorted by node id")
    public String getSplitsPerNode()
    {
        return splitsPerNodeSnapshot().entrySet().stream()
                .map(entry -> entry.getKey() + "=" + entry.getValue())
                .collect(joining(", "));
    }

    public Map<String, Long> splitsPerNodeSnapshot()
    {
        ImmutableSortedMap.Builder<String, Long> snapshot = ImmutableSortedMap.naturalOrder();
        splitsPerNode.forEach((nodeId, splits) -> snapshot.put(nodeId, splits.sum()));
        return snapshot.buildOrThrow();
    }

    @Managed(description = "Most splits one worker got in the last finished table scan (split source) that placed splits, not the last query")
    public long getLastQueryMaxSplitsPerNode()
    {
        return lastQuery.get().maxSplits();
    }

    @Managed(description = "Average splits per live worker in the last finished table scan (split source) that placed splits, not the last query")
    public double getLastQueryAverageSplitsPerNode()
    {
        return lastQuery.get().averageSplits();
    }

    @Managed(description = "Max over average splits per worker in the last finished table scan (split source) that placed splits, not the last query (1 = perfectly even)")
    public double getLastQueryImbalance()
    {
        return lastQuery.get().imbalance();
    }
}
