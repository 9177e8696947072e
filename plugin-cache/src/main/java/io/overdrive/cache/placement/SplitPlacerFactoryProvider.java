package io.overdrive.cache.placement;

import com.google.inject.Inject;
import com.google.inject.Provider;
import com.google.common.base.Ticker;
import io.overdrive.cache.peer.WorkerLoadPoller;
import io.overdrive.scheduler.affinity.BusyLimits;
import io.overdrive.scheduler.affinity.MembershipTracker;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.overdrive.scheduler.affinity.ReportedLoads;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.Worker;
import io.trino.spi.NodeManager;
import io.trino.spi.SplitWeight;

import static java.util.Objects.requireNonNull;

/**
 * The coordinator's placer factory over the live nodes that run splits, refreshed every
 * {@code node-selection.membership-refresh-interval}.
 */
public class SplitPlacerFactoryProvider
        implements Provider<SplitPlacerFactory>
{
    private final NodeSelectionConfig config;
    private final NodeManager nodeManager;
    private final PlacementStats stats;
    private final WorkerLoadPoller loads;

    @Inject
    public SplitPlacerFactoryProvider(NodeSelectionConfig config, NodeManager nodeManager, PlacementStats stats, WorkerLoadPoller loads)
    {
        this.loads = requireNonNull(loads, "loads is null");
        this.config = requireNonNull(config, "config is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Override
    public SplitPlacerFactory get()
    {
        // the nodes the engine schedules splits on: the coordinator is among them exactly when
        // node-scheduler.include-coordinator=true, and then it runs, and caches, its share like a worker
        MembershipTracker membership = new MembershipTracker(
                () -> nodeManager.getWorkerNodes().stream()
                        .map(node -> new Worker(node.getNodeIdentifier(), node.getHostAndPort().toString()))
                        .toList(),
                config.getMembershipRefreshInterval());
        // no effect: the connector SPI hides the engine's loads, so every placer gets WorkerLoads.UNKNOWN and no worker
        // is ever busy; Trino's node-scheduler.* limits act only in the engine, which makes a split wait for its worker
        // the connector places splits by Trino's SplitWeight raw values, whose standard split node-selection.load-floor counts;
        // where peer reads are on, the workers report their loads over the peer service and the placer balances by them
        return new SplitPlacerFactory(config, membership, BusyLimits.TRINO_DEFAULTS, stats, SplitWeight.standard().getRawValue(),
                Ticker.systemTicker(), loads.isEnabled() ? loads : ReportedLoads.NONE);
    }
}
