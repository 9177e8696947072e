package io.overdrive.it.placement;

/**
 * The figures of one simulated run of one policy. Times in milliseconds; ratios as fractions. Latencies, the hit
 * ratio and the placement shares count the queries that arrived in the measured window (after the warm-up, until
 * arrivals stop) and their splits; the loads count the executions that started in that window on the workers live
 * through all of it (not the one that joined, nor the one that left).
 *
 * @param remapJoin fraction of the sampled keys whose first choice changed when the worker joined (NaN without
 * preferences)
 * @param idealRemap consistent hashing's ideal: one worker of {@code workers + 1} joined, then left
 * @param placerRemapJoin Overdrive only: the placer's own figure ({@code PlacementStats.getLastRemapFraction}, over the
 * 4096 most recently placed keys), else NaN
 * @param backlogAtEnd splits not finished when arrivals stopped (a policy that cannot keep up leaves many)
 * @param drainSeconds how long after arrivals stopped the last split finished
 * @param admissionRejections reads that Overdrive's cache admission turned away over the whole run (0 for a cache without admission)
 * @param placedByReportedLoads Overdrive only: placements over the whole run whose bound compared the workers' reported
 * loads ({@code PlacementStats.getPlacedByReportedLoads}), else 0
 * @param placedByPlacedLoads Overdrive only: placements over the whole run whose bound compared the placer's decayed
 * account of its placements ({@code PlacementStats.getPlacedByPlacedLoads}), else 0
 * @param maxAssigned the most splits any worker held at once, running and queued, over the measured window (as each
 * split was assigned; a split waiting on Trino's coordinator is not on a worker yet)
 * @param keptUpDrainSeconds the longest drain of a run that kept up ({@link #keptUpDrainSeconds(double)})
 */
record SimulationResult(
        String policy,
        int workers,
        long queries,
        long splits,
        double hitRatio,
        double splitWaitP50,
        double splitWaitP95,
        double splitWaitP99,
        double queryP50,
        double queryP95,
        double queryP99,
        double queryMean,
        double maxAvgSplits,
        double maxAvgBusy,
        double utilisation,
        double maxWorkerUtilisation,
        double copiesPerCachedFile,
        long cachedFiles,
        double remapJoin,
        double remapLeave,
        double idealRemap,
        double placerRemapJoin,
        double placerRemapLeave,
        double preferredShare,
        double alternativeShare,
        double fallbackShare,
        long backlogAtEnd,
        double drainSeconds,
        long splitsCreated,
        long splitsCompleted,
        long abortedExecutions,
        long cacheHits,
        long cacheMisses,
        long admissionRejections,
        long placedByReportedLoads,
        long placedByPlacedLoads,
        int maxAssigned,
        long checksum,
        double keptUpDrainSeconds)
{
    /** A run whose queues drain within this long after arrivals stop kept up with the offered load... */
    static final double KEPT_UP_DRAIN_SECONDS = 5;
    /** ... or within this fraction of its arrival period, when that is shorter. */
    static final double KEPT_UP_DRAIN_FRACTION = 0.05;

    /**
     * How long a run of {@code arrivalSeconds} may take to drain and still count as having kept up: short enough that a
     * run 5% over capacity leaves a queue that takes longer.
     */
    static double keptUpDrainSeconds(double arrivalSeconds)
    {
        return Math.min(KEPT_UP_DRAIN_SECONDS, KEPT_UP_DRAIN_FRACTION * arrivalSeconds);
    }

    boolean hasPreferences()
    {
        return !Double.isNaN(remapJoin);
    }

    /**
     * Whether the policy kept up with the arrivals: a stable run leaves only the last moments' splits when arrivals stop
     * and drains them in about a second; an unstable one leaves a queue that grew all run, and its percentiles are
     * those of the queue, not of the placement.
     */
    boolean keptUp()
    {
        return drainSeconds <= keptUpDrainSeconds;
    }
}
