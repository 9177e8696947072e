package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;

import java.util.Optional;
import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The coordinator's entry point: one per catalog, creating a {@link SplitPlacer} for each split source, that is for
 * each table scan of a query (a query with two scans of the catalog's tables gets two placers). All its placers share
 * one decaying account of the load placed on each worker ({@link PlacedLoad}).
 */
public final class SplitPlacerFactory
{
    private final NodeSelectionStrategy strategy;
    private final int preferredHostsCount;
    private final double loadBalanceEpsilon;
    private final double loadFloor;
    private final BusyLimits busyLimits;
    private final PlacementStats stats;
    private final PlacedLoad load;

    /**
     * @param standardSplitWeight the weight of one standard split in the unit of {@link SplitPlacer#place}'s weights
     * ({@code SplitWeight.standard().getRawValue()} for the connector): {@code node-selection.load-floor} counts these
     */
    public SplitPlacerFactory(NodeSelectionConfig config, Supplier<Membership> membership, BusyLimits busyLimits, PlacementStats stats, long standardSplitWeight)
    {
        this(config, membership, busyLimits, stats, standardSplitWeight, Ticker.systemTicker());
    }

    /**
     * @param ticker the clock the shared load decays by (a simulation passes its own)
     */
    public SplitPlacerFactory(NodeSelectionConfig config, Supplier<Membership> membership, BusyLimits busyLimits, PlacementStats stats, long standardSplitWeight, Ticker ticker)
    {
        this(config, membership, busyLimits, stats, standardSplitWeight, ticker, ReportedLoads.NONE);
    }

    /**
     * @param reportedLoads the workers' own reports of their queued and running splits (on {@code ticker}'s clock):
     * while every live worker has one, the placer balances by them instead of its decayed account of placements
     */
    public SplitPlacerFactory(NodeSelectionConfig config, Supplier<Membership> membership, BusyLimits busyLimits, PlacementStats stats, long standardSplitWeight, Ticker ticker, ReportedLoads reportedLoads)
    {
        requireNonNull(config, "config is null");
        checkArgument(standardSplitWeight > 0, "standardSplitWeight must be positive: %s", standardSplitWeight);
        this.loadFloor = config.getLoadFloor() * standardSplitWeight;
        this.strategy = config.getNodeSelectionStrategy();
        this.preferredHostsCount = config.getPreferredHostsCount();
        this.loadBalanceEpsilon = config.getLoadBalanceEpsilon();
        this.busyLimits = requireNonNull(busyLimits, "busyLimits is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.load = new PlacedLoad(membership, config.getLoadHalfLife(), ticker, stats, reportedLoads, standardSplitWeight);
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
            case SOFT_AFFINITY -> Optional.of(new SplitPlacer(load, false, preferredHostsCount, loadBalanceEpsilon, loadFloor, engineLoads, busyLimits, stats));
            case HARD_AFFINITY -> Optional.of(new SplitPlacer(load, true, preferredHostsCount, loadBalanceEpsilon, loadFloor, engineLoads, busyLimits, stats));
        };
    }
}
