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
     * Each split goes to the first worker of its affinity key's rendezvous order that is below the catalog's load bound
     * (or below the load floor) and not busy.
     */
    SOFT_AFFINITY,
    /**
     * Each split is pinned to the first live preferred worker of its affinity key, whatever its load.
     */
    HARD_AFFINITY,
}
