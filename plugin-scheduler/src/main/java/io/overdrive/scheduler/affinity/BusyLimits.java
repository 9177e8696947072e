package io.overdrive.scheduler.affinity;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * When the engine considers a worker busy, mirroring the coordinator's {@code node-scheduler.*} limits.
 * <p>
 * Trino 483's {@code UniformNodeSelector} still gives a worker a split while either its splits are below
 * {@code max-splits-per-node} or its task's queue is below {@code min-pending-splits-per-task}; only a worker over
 * both makes the split wait. A placer that skips exactly those workers never picks one the engine would wait for.
 * <p>
 * Only a caller that passes the engine's loads ({@link WorkerLoads}) gets anything from these limits: with
 * {@link WorkerLoads#UNKNOWN} every worker is idle and never busy. The connector SPI hides the engine's loads, so
 * {@code overdrive_hive} passes {@code UNKNOWN}, and changing the server's {@code node-scheduler.*} limits does not
 * change its placement.
 */
public record BusyLimits(long maxSplitsPerNode, long maxPendingSplitsPerTask)
{
    /**
     * Trino 483's defaults: {@code node-scheduler.max-splits-per-node=256}, {@code node-scheduler.min-pending-splits-per-task=16}
     * (constants, not read from any server's configuration).
     */
    public static final BusyLimits TRINO_DEFAULTS = new BusyLimits(256, 16);

    public BusyLimits
    {
        checkArgument(maxSplitsPerNode >= 1, "maxSplitsPerNode must be at least 1: %s", maxSplitsPerNode);
        checkArgument(maxPendingSplitsPerTask >= 1, "maxPendingSplitsPerTask must be at least 1: %s", maxPendingSplitsPerTask);
    }

    public boolean isBusy(WorkerLoad load)
    {
        requireNonNull(load, "load is null");
        return load.splitsOnNode() >= maxSplitsPerNode && load.queuedSplitsForTask() >= maxPendingSplitsPerTask;
    }
}
