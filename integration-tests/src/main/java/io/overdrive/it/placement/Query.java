package io.overdrive.it.placement;

import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;

/**
 * A simulated query: it reads all splits of its files and finishes with its last split.
 */
final class Query
{
    final long id;
    final long arrivalNanos;
    final boolean measured;
    final SplitTask[] splits;
    int remainingSplits;
    // the policy's per-query state: Overdrive's SplitPlacer (one per table scan), dropped when the query finishes
    Object placer;
    // this query's unfinished splits assigned to each worker (by worker number)
    private final Int2IntOpenHashMap onWorker = new Int2IntOpenHashMap();

    Query(long id, long arrivalNanos, boolean measured, int splitCount)
    {
        this.id = id;
        this.arrivalNanos = arrivalNanos;
        this.measured = measured;
        this.splits = new SplitTask[splitCount];
        this.remainingSplits = splitCount;
    }

    /** This query's unfinished splits assigned to {@code worker}: what Trino counts as the stage's splits queued there. */
    int splitsOn(SimWorker worker)
    {
        return onWorker.get(worker.number);
    }

    /** One of this query's splits was assigned to {@code worker}. */
    void assigned(SimWorker worker)
    {
        onWorker.addTo(worker.number, 1);
    }

    /** One of this query's splits left {@code worker}: it finished, or the worker left. */
    void released(SimWorker worker)
    {
        if (onWorker.addTo(worker.number, -1) == 1) {
            onWorker.remove(worker.number);
        }
    }
}
