package io.overdrive.scheduler.affinity;

import io.overdrive.scheduler.config.NodeSelectionConfig;
import io.overdrive.scheduler.config.NodeSelectionStrategy;
import io.overdrive.scheduler.stats.PlacementStats;

import java.util.Optional;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The coordinator's entry point: one per catalog, creating a {@link SplitPlacer} for each split source, that is for
 * each table scan of a query (a query with two scans of the catalog's tables gets two placers).
 */
public final class SplitPlacerFactory
{
    private final NodeSelectionStrategy strategy;
    private final int preferredHostsCount;
    private final double loadBalanceEpsilon;
    private final Supplier<Membership> membership;
    private final BusyLimits busyLimits;
    private final PlacementStats stats;

    public SplitPlacerFactory(NodeSelectionConfig config, Supplier<Membership> membership, BusyLimits busyLimits, PlacementStats stats)
    {
        requireNonNull(config, "config is null");
        this.strategy = config.getNodeSelectionStrategy();
        this.preferredHostsCount = config.getPreferredHostsCount();
        this.loadBalanceEpsilon = config.getLoadBalanceEpsilon();
        this.membership = requireNonNull(membership, "membership is null");
        this.busyLimits = requireNonNull(busyLimits, "busyLimits is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    /**
     * A placer for the splits of one split source (one table scan), or empty under {@code NO_PREFERENCE}, where the
     * connector must leave its splits exactly as the stock Hive connector makes them.
     *
     * @param engineLoads the engine's load of each worker, or {@link WorkerLoads#UNKNOWN}
     */
    public Optional<SplitPlacer> createPlacer(WorkerLoads engineLoads)
    {
        requireNonNull(engineLoads, "engineLoads is null");
        return switch (strategy) {
            case NO_PREFERENCE -> Optional.empty();
            case SOFT_AFFINITY -> Optional.of(new SplitPlacer(membership, false, preferredHostsCount, loadBalanceEpsilon, engineLoads, busyLimits, stats));
            case HARD_AFFINITY -> Optional.of(new SplitPlacer(membership, true, preferredHostsCount, loadBalanceEpsilon, engineLoads, busyLimits, stats));
        };
    }
}
