package io.overdrive.it.placement;

/**
 * One split of a file read by a query, through its placement, queueing and execution. A split whose worker leaves is placed again
 * (a new generation); the finish event of the aborted execution then no longer matches and is dropped.
 */
final class SplitTask
{
    final Query query;
    final int file;
    final int index;
    final long chunk;
    final long sequence;

    long submitNanos;
    long startNanos;
    SimWorker worker;
    Choice choice;
    boolean cacheable;
    boolean hit;
    int generation;
    boolean done;
    // Trino's reference model: waiting on the coordinator for one of these hosts
    SimWorker[] waitingFor;

    SplitTask(Query query, int file, int index, long chunk, long sequence)
    {
        this.query = query;
        this.file = file;
        this.index = index;
        this.chunk = chunk;
        this.sequence = sequence;
    }

    /** Called by a policy: the split goes to {@code target}, which caches its data on a miss only if {@code cacheable}. */
    SimWorker placeOn(SimWorker target, Choice placementChoice, boolean mayCache)
    {
        this.choice = placementChoice;
        this.cacheable = mayCache;
        return target;
    }
}
