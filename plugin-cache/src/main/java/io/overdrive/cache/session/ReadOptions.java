package io.overdrive.cache.session;

import static java.util.Objects.requireNonNull;

/**
 * What one query asks of Overdrive's read path through its session properties ({@link OverdriveSessionProperties}):
 * each can only narrow what the catalog's properties switch on, never turn on a feature the catalog has off.
 *
 * @param cache read through the page cache; false: storage only, the cache neither read nor filled
 * @param populate whether the query's reads fill the cache
 * @param hedging hedge this query's reads of storage
 * @param sharedScans share this query's fetches with concurrent readers (and read ahead)
 */
public record ReadOptions(boolean cache, Populate populate, boolean hedging, boolean sharedScans)
{
    /** The catalog's own behaviour: no session property set. */
    public static final ReadOptions DEFAULT = new ReadOptions(true, Populate.AUTO, true, true);

    public ReadOptions
    {
        requireNonNull(populate, "populate is null");
    }

    /** Whether a query's reads fill the page cache, as StarRocks' {@code populate_datacache_mode} names the choices. */
    public enum Populate
    {
        /** As the catalog's admission rule decides ({@code cache.admission.*}). */
        AUTO,
        /** Every page the node may cache is written at once, without the admission rule (quotas and rate limits still apply). */
        ALWAYS,
        /** Cached pages are read; nothing is written. */
        NEVER,
    }
}
