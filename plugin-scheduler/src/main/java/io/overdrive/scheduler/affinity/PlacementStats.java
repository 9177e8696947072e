package io.overdrive.scheduler.affinity;

import com.google.common.collect.ImmutableSortedMap;
import io.airlift.stats.CounterStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static com.google.common.collect.Sets.difference;
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
    private final CounterStat placedByReportedLoads = new CounterStat();
    private final CounterStat placedByPlacedLoads = new CounterStat();
    private final CounterStat loadPolls = new CounterStat();
    private final CounterStat loadPollFailures = new CounterStat();
    // grows with the nodes ever seen, a few per cluster resize: not worth evicting
    private final Map<String, LongAdder> splitsPerNode = new ConcurrentHashMap<>();
    private final AtomicReference<PlacementSummary> lastQuery = new AtomicReference<>(new PlacementSummary(Map.of()));
    private final CounterStat membershipChanges = new CounterStat();
    private final AtomicReference<Remap> lastRemap = new AtomicReference<>(new Remap(0, 0, 0, 0, 0, 0));
    private volatile Supplier<Map<String, Double>> loads = Map::of;

    private record Remap(int joined, int left, int workersBefore, int workersAfter, double movedFraction, int sampledKeys) {}

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
     * Which loads a split (not pinned) was balanced by: the workers' own reports, or the decayed account of placements.
     */
    public void recordLoadSource(boolean byReports)
    {
        (byReports ? placedByReportedLoads : placedByPlacedLoads).update(1);
    }

    /**
     * One request of the load signal's poller to a worker, and whether it brought a usable answer.
     */
    public void recordLoadPoll(boolean answered)
    {
        // failures first: a reader of the polls, then the failures, sees at least as many failures as polls when all failed
        if (!answered) {
            loadPollFailures.update(1);
        }
        loadPolls.update(1);
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

    /**
     * The live workers changed: {@code movedFraction} of the {@code sampledKeys} most recently placed distinct keys
     * now have another first choice.
     */
    public void recordMembershipChange(List<Worker> before, List<Worker> after, double movedFraction, int sampledKeys)
    {
        Set<String> beforeIds = before.stream().map(Worker::nodeId).collect(toImmutableSet());
        Set<String> afterIds = after.stream().map(Worker::nodeId).collect(toImmutableSet());
        membershipChanges.update(1);
        lastRemap.set(new Remap(difference(afterIds, beforeIds).size(), difference(beforeIds, afterIds).size(), before.size(), after.size(), movedFraction, sampledKeys));
    }

    /**
     * Where the current per-worker loads of the catalog's placement are read from (its shared, decaying account).
     */
    public void setLoadView(Supplier<Map<String, Double>> loads)
    {
        this.loads = requireNonNull(loads, "loads is null");
    }

    @Managed
    @Nested
    public CounterStat getPlacedByReportedLoads()
    {
        return placedByReportedLoads;
    }

    @Managed
    @Nested
    public CounterStat getPlacedByPlacedLoads()
    {
        return placedByPlacedLoads;
    }

    @Managed
    @Nested
    public CounterStat getLoadPolls()
    {
        return loadPolls;
    }

    @Managed
    @Nested
    public CounterStat getLoadPollFailures()
    {
        return loadPollFailures;
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

    @Managed
    @Nested
    public CounterStat getMembershipChanges()
    {
        return membershipChanges;
    }

    @Managed(description = "At the last change of the live workers: fraction of the recently placed distinct keys whose first-choice worker changed (ideal: joined/workers after + left/workers before)")
    public double getLastRemapFraction()
    {
        return lastRemap.get().movedFraction();
    }

    @Managed(description = "At the last change of the live workers: the ideal remap fraction of consistent hashing, joined/workers after + left/workers before")
    public double getLastRemapIdealFraction()
    {
        Remap remap = lastRemap.get();
        return (remap.workersAfter() == 0 ? 0 : (double) remap.joined() / remap.workersAfter())
                + (remap.workersBefore() == 0 ? 0 : (double) remap.left() / remap.workersBefore());
    }

    @Managed(description = "At the last change of the live workers: how many recently placed distinct keys the remap fraction was measured on")
    public long getLastRemapSampledKeys()
    {
        return lastRemap.get().sampledKeys();
    }

    @Managed(description = "At the last change of the live workers: workers that joined")
    public long getLastRemapJoined()
    {
        return lastRemap.get().joined();
    }

    @Managed(description = "At the last change of the live workers: workers that left")
    public long getLastRemapLeft()
    {
        return lastRemap.get().left();
    }

    public Map<String, Double> loadsSnapshot()
    {
        return loads.get();
    }

    @Managed(description = "Each live worker's recently placed split weight (all queries of the catalog, decayed by node-selection.load-half-life), as nodeId=load sorted by node id")
    public String getWorkerLoads()
    {
        return ImmutableSortedMap.copyOf(loadsSnapshot()).entrySet().stream()
                .map(entry -> "%s=%.1f".formatted(entry.getKey(), entry.getValue()))
                .collect(joining(", "));
    }

    @Managed(description = "Max over average of the live workers' recently placed split weight now (1 = even; soft affinity keeps it near 1 + node-selection.load-balance-epsilon under load)")
    public double getLoadImbalance()
    {
        Map<String, Double> now = loadsSnapshot();
        double total = now.values().stream().mapToDouble(Double::doubleValue).sum();
        return total == 0 ? 1 : now.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow() / (total / now.size());
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
