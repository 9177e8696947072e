package io.overdrive.scheduler.affinity;

/**
 * How the connector chooses the workers its splits run on ({@code node-selection-strategy}).
 */
public enum NodeSelectionStrategy
{
    /**
     * The connector leaves splits as the stock Hive connector makes them; the engine places them.
     */
    NO_PREFERENCE,
    /**
     * Each split goes to a preferred worker of its affinity key while that worker is within its fair share of the
     * table scan and not busy, else to an alternative, else to the least loaded worker.
     */
    SOFT_AFFINITY,
    /**
     * Each split is pinned to the first live preferred worker of its affinity key, whatever its load.
     */
    HARD_AFFINITY,
}
