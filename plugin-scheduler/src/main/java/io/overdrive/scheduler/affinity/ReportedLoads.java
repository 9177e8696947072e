package io.overdrive.scheduler.affinity;

/**
 * The workers' own reports of their queued and running splits (Overdrive's load signal), asked for at placement time.
 * Called while the placer holds its lock: it must be fast and must not call back into the placer.
 */
@FunctionalInterface
public interface ReportedLoads
{
    /**
     * No worker reports: the placer balances by its decayed account of recent placements alone.
     */
    ReportedLoads NONE = nodeId -> null;

    /**
     * The worker's latest report while it is fresh enough to place by, or null (no report, or too old).
     */
    LoadReport report(String nodeId);
}
