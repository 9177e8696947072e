package io.overdrive.scheduler.affinity;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The engine's load of one worker, as its node scheduler counts it.
 *
 * @param splitsOnNode splits assigned to the worker by all queries (compared with {@code node-scheduler.max-splits-per-node})
 * @param queuedSplitsForTask splits queued on the worker's task of the stage being scheduled (compared with
 * {@code node-scheduler.min-pending-splits-per-task}, formerly {@code max-pending-splits-per-task})
 */
public record WorkerLoad(long splitsOnNode, long queuedSplitsForTask)
{
    public static final WorkerLoad IDLE = new WorkerLoad(0, 0);

    public WorkerLoad
    {
        checkArgument(splitsOnNode >= 0, "splitsOnNode is negative: %s", splitsOnNode);
        checkArgument(queuedSplitsForTask >= 0, "queuedSplitsForTask is negative: %s", queuedSplitsForTask);
    }
}
