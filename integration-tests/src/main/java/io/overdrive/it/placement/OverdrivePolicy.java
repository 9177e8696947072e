package io.overdrive.it.placement;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.BusyLimits;
import io.overdrive.scheduler.affinity.Membership;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.Placement;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.overdrive.scheduler.affinity.ReportedLoads;
import io.overdrive.scheduler.affinity.SplitPlacer;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.Worker;
import io.overdrive.scheduler.affinity.WorkerLoads;

import java.util.HashMap;
import java.util.Map;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Overdrive's {@code SOFT_AFFINITY}: the real plugin-scheduler placer, built as {@code overdrive_hive} builds it (one
 * {@link SplitPlacerFactory} per catalog, one {@link SplitPlacer} per table scan, here per query, with
 * {@link WorkerLoads#UNKNOWN}), on the simulation's clock. Only a split placed on one of its preferred workers may be
 * cached there; a fallback reads through. The workers' caches admit as Overdrive's page cache does, unless built
 * without admission. Built with reported loads, the placer also gets the workers' own counts of their queued and
 * running splits, as the coordinator polls them ({@link PolledLoads}).
 */
final class OverdrivePolicy
        extends Policy
{
    private final Lake lake;
    private final AffinityGranularity granularity;
    private final PlacementStats stats = new PlacementStats();
    private final SplitPlacerFactory factory;
    private volatile Membership membership = Membership.empty();
    private final Map<String, SimWorker> byNodeId = new HashMap<>();
    private final boolean admission;
    // null: the placer has no load signal and balances by its decayed account of recent placements alone
    private final PolledLoads polledLoads;

    /**
     * @param admission whether the workers' caches admit as Overdrive's page cache does (its default); false: plain
     * LRU, as the references' caches, to show what placement alone does
     * @param reportedLoads whether the placer gets the workers' reports of their loads, polled by the coordinator
     * every 500 ms ({@link PolledLoads}); false: none, as without the load signal
     */
    OverdrivePolicy(String name, SimulationConfig config, Lake lake, Ticker ticker, boolean admission, boolean reportedLoads)
    {
        super(name);
        this.admission = admission;
        this.polledLoads = reportedLoads ? new PolledLoads(ticker) : null;
        this.lake = lake;
        this.granularity = config.granularity();
        NodeSelectionConfig nodeSelection = new NodeSelectionConfig()
                .setNodeSelectionStrategy("SOFT_AFFINITY")
                .setPreferredHostsCount(config.preferredHostsCount())
                .setLoadBalanceEpsilon(config.loadBalanceEpsilon())
                .setLoadHalfLife(new Duration(config.loadHalfLifeSeconds() * 1000, MILLISECONDS))
                .setAffinityGranularity(granularity);
        factory = new SplitPlacerFactory(nodeSelection, () -> membership, BusyLimits.TRINO_DEFAULTS, stats, 1, ticker, polledLoads == null ? ReportedLoads.NONE : polledLoads);
    }

    @Override
    long loadPollIntervalNanos()
    {
        return polledLoads == null ? 0 : PolledLoads.POLL_INTERVAL_NANOS;
    }

    @Override
    void pollLoads()
    {
        if (polledLoads != null) {
            polledLoads.poll(live);
        }
    }

    @Override
    boolean cachesWithAdmission()
    {
        return admission;
    }

    @Override
    protected void membershipChanged()
    {
        byNodeId.clear();
        for (SimWorker worker : live) {
            byNodeId.put(worker.nodeId, worker);
        }
        membership = Membership.of(live.stream()
                .map(worker -> new Worker(worker.nodeId, worker.nodeId + ".lake:8080"))
                .toList());
    }

    @Override
    SimWorker place(SplitTask split)
    {
        SplitPlacer placer = (SplitPlacer) split.query.placer;
        if (placer == null) {
            placer = factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
            split.query.placer = placer;
        }
        Placement placement = placer.place(key(split.file, split.index), 1)
                .orElseThrow(() -> new IllegalStateException("no live worker"));
        Choice choice = switch (placement.kind()) {
            case PREFERRED -> Choice.PREFERRED;
            case ALTERNATIVE -> Choice.ALTERNATIVE;
            case FALLBACK -> Choice.FALLBACK;
        };
        return split.placeOn(byNodeId.get(placement.worker().nodeId()), choice, placement.kind().isPreferredWorker());
    }

    @Override
    String firstChoice(int file, int split)
    {
        return membership.preferenceOrder(key(file, split), 1).getFirst().nodeId();
    }

    PlacementStats stats()
    {
        return stats;
    }

    private String key(int file, int split)
    {
        return granularity.affinityKey(lake.path(file), split * Lake.SPLIT_BYTES);
    }
}
