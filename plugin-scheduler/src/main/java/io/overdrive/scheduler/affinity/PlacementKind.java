package io.overdrive.scheduler.affinity;

/**
 * Which of its choices a split was placed on.
 */
public enum PlacementKind
{
    /**
     * The first worker of the key's preference order.
     */
    PREFERRED,
    /**
     * The second to {@code node-selection.preferred-hosts-count}-th worker of the key's preference order: the first ones
     * were at the load bound or busy. It caches the key's pages.
     */
    ALTERNATIVE,
    /**
     * A worker further down the key's preference order, because every preferred worker was at its load bound or busy.
     * It does not cache.
     */
    FALLBACK;

    /**
     * Whether the chosen worker is one of the key's preferred workers, i.e. one that caches the key's pages.
     */
    public boolean isPreferredWorker()
    {
        return this != FALLBACK;
    }
}
