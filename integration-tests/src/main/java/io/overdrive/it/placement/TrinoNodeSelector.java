package io.overdrive.it.placement;

/**
 * Reference model of Trino 483's {@code UniformNodeSelector.computeAssignments} for one split over its candidate
 * nodes, with Trino's defaults. A candidate is free while it has fewer than {@code node-scheduler.max-splits-per-node}
 * (256) splits assigned; among the free ones the split goes to the one with the fewest splits of this stage queued
 * ({@link SplitsBalancing#STAGE}) or in total ({@link SplitsBalancing#NODE}), ties to the last candidate. When no
 * candidate is free, it goes to the one with the fewest splits of this stage queued among those with fewer than
 * {@code node-scheduler.min-pending-splits-per-task} (16); when there is none either, the split waits.
 */
final class TrinoNodeSelector
{
    static final int MAX_SPLITS_PER_NODE = 256;
    static final int MIN_PENDING_SPLITS_PER_TASK = 16;
    static final int MIN_CANDIDATES = 10;

    private TrinoNodeSelector() {}

    /** The chosen candidate, or null when the split waits. */
    static SimWorker choose(SimWorker[] candidates, int count, Query query, SplitsBalancing balancing)
    {
        SimWorker chosen = null;
        long least = Long.MAX_VALUE;
        for (int index = 0; index < count; index++) {
            SimWorker candidate = candidates[index];
            if (candidate.assigned() >= MAX_SPLITS_PER_NODE) {
                continue;
            }
            long load = balancing == SplitsBalancing.STAGE ? query.splitsOn(candidate) : candidate.assigned();
            if (load <= least) {
                chosen = candidate;
                least = load;
            }
        }
        if (chosen != null) {
            return chosen;
        }
        for (int index = 0; index < count; index++) {
            SimWorker candidate = candidates[index];
            long queued = query.splitsOn(candidate);
            if (queued <= least && queued < MIN_PENDING_SPLITS_PER_TASK) {
                chosen = candidate;
                least = queued;
            }
        }
        return chosen;
    }
}
