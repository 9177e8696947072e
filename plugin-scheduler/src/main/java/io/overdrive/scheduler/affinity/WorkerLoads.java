package io.overdrive.scheduler.affinity;

/**
 * The engine's current load of each worker, asked for at placement time. Called while the placer holds its lock:
 * it must be fast and must not call back into the placer.
 */
@FunctionalInterface
public interface WorkerLoads
{
    /**
     * For a connector that cannot see the engine's loads: every worker counts as idle, and only the placer's own
     * bound on each worker's share of the table scan balances the load.
     */
    WorkerLoads UNKNOWN = worker -> WorkerLoad.IDLE;

    WorkerLoad load(Worker worker);
}
