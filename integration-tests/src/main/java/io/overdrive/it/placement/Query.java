package io.overdrive.it.placement;

/**
 * A simulated query: it reads all splits of one file and finishes with its last split.
 */
final class Query
{
    final long id;
    final int file;
    final long arrivalNanos;
    final boolean measured;
    final SplitTask[] splits;
    int remainingSplits;
    // the policy's per-query state: Overdrive's SplitPlacer (one per table scan), dropped when the query finishes
    Object placer;

    Query(long id, int file, long arrivalNanos, boolean measured, int splitCount)
    {
        this.id = id;
        this.file = file;
        this.arrivalNanos = arrivalNanos;
        this.measured = measured;
        this.splits = new SplitTask[splitCount];
        this.remainingSplits = splitCount;
    }

    /** This query's unfinished splits assigned to {@code worker}: what Trino counts as the stage's splits queued there. */
    int splitsOn(SimWorker worker)
    {
        int count = 0;
        for (SplitTask split : splits) {
            if (split != null && split.worker == worker && !split.done) {
                count++;
            }
        }
        return count;
    }
}
