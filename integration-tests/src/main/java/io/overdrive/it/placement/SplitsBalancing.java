package io.overdrive.it.placement;

/**
 * Trino's {@code node-scheduler.splits-balancing-policy}: which of a split's free candidate nodes its
 * {@code UniformNodeSelector} picks.
 */
enum SplitsBalancing
{
    /**
     * Trino's default: the node with the fewest splits of this stage (this query's table scan) queued on it. Blind to
     * other queries' load: for a query of a few splits every candidate ties at zero, and the last one is taken.
     */
    STAGE,
    /** The node with the fewest splits assigned in total (running and queued, of every query). */
    NODE
}
