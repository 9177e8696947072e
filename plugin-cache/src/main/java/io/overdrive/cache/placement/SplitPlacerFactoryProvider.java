package io.overdrive.cache.placement;

import com.google.inject.Inject;
import com.google.inject.Provider;
import io.overdrive.scheduler.affinity.BusyLimits;
import io.overdrive.scheduler.affinity.MembershipTracker;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.Worker;
import io.overdrive.scheduler.config.NodeSelectionConfig;
import io.overdrive.scheduler.stats.PlacementStats;
import io.trino.spi.NodeManager;

import static java.util.Objects.requireNonNull;

/** The coordinator's placer factory over the live workers, refreshed every {@code node-selection.membership-refresh-interval}. */
public class SplitPlacerFactoryProvider
        implements Provider<SplitPlacerFactory>
{
    private final NodeSelectionConfig config;
    private final NodeManager nodeManager;
    private final PlacementStats stats;

    @Inject
    public SplitPlacerFactoryProvider(NodeSelectionConfig config, NodeManager nodeManager, PlacementStats stats)
    {
        this.config = requireNonNull(config, "config is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Override
    public SplitPlacerFactory get()
    {
        MembershipTracker membership = new MembershipTracker(
                () -> nodeManager.getWorkerNodes().stream()
                        .filter(node -> !node.isCoordinator())
                        .map(node -> new Worker(node.getNodeIdentifier(), node.getHostAndPort().toString()))
                        .toList(),
                config.getMembershipRefreshInterval());
        // the engine's own busy notion (node-scheduler.max-splits-per-node / max-pending-splits-per-task defaults)
        return new SplitPlacerFactory(config, membership, BusyLimits.TRINO_DEFAULTS, stats);
    }
}
