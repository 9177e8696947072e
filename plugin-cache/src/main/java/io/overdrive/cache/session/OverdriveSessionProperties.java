package io.overdrive.cache.session;

import io.overdrive.cache.session.ReadOptions.Populate;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;

import java.util.List;

import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static io.trino.spi.session.PropertyMetadata.booleanProperty;
import static io.trino.spi.session.PropertyMetadata.enumProperty;

/**
 * Overdrive's session properties, set per query with {@code SET SESSION <catalog>.<name> = ...}: each switches a feature
 * off (or changes how the cache is filled) for the queries of that session only. None can switch on what the catalog's
 * properties leave off. They are added to the Hive connector's own session properties.
 */
public final class OverdriveSessionProperties
{
    public static final String CACHE_ENABLED = "cache_enabled";
    public static final String CACHE_POPULATE = "cache_populate";
    public static final String HEDGED_READS_ENABLED = "hedged_reads_enabled";
    public static final String SHARED_SCANS_ENABLED = "shared_scans_enabled";
    public static final String SOFT_AFFINITY_ENABLED = "soft_affinity_enabled";

    private static final List<PropertyMetadata<?>> PROPERTIES = List.of(
            booleanProperty(
                    CACHE_ENABLED,
                    "Read through Overdrive's page cache (cache.enabled); false: read storage only, neither reading nor filling the cache",
                    true,
                    false),
            enumProperty(
                    CACHE_POPULATE,
                    "Whether reads fill Overdrive's page cache: AUTO (the catalog's admission rule), ALWAYS (every page this worker may cache, without the admission rule), NEVER (read cached pages, write none)",
                    Populate.class,
                    Populate.AUTO,
                    false),
            booleanProperty(
                    HEDGED_READS_ENABLED,
                    "Hedge slow reads of storage (hedged-read.*); false: no read of this query is hedged, by Overdrive or by HDFS's own hedging",
                    true,
                    false),
            booleanProperty(
                    SHARED_SCANS_ENABLED,
                    "Share fetches of uncached pages with concurrent readers and read ahead (cache.shared-scans.*); false: each reader fetches its own misses",
                    true,
                    false),
            booleanProperty(
                    SOFT_AFFINITY_ENABLED,
                    "Place each split on the worker that caches its file (node-selection-strategy=SOFT_AFFINITY); false: no preference, every worker caches what it reads",
                    true,
                    false));

    private OverdriveSessionProperties() {}

    public static List<PropertyMetadata<?>> properties()
    {
        return PROPERTIES;
    }

    /**
     * What the session asks of the read path; the defaults for a session that does not carry the catalog's session
     * properties: the engine's sessions for the catalog's system tables (Iceberg's {@code $files}, read through the
     * connector's page source provider) carry none.
     */
    public static ReadOptions readOptions(ConnectorSession session)
    {
        try {
            return new ReadOptions(
                    session.getProperty(CACHE_ENABLED, Boolean.class),
                    session.getProperty(CACHE_POPULATE, Populate.class),
                    session.getProperty(HEDGED_READS_ENABLED, Boolean.class),
                    session.getProperty(SHARED_SCANS_ENABLED, Boolean.class));
        }
        catch (TrinoException e) {
            if (isUnknownProperty(e)) {
                return ReadOptions.DEFAULT;
            }
            throw e;
        }
    }

    /** Whether the session places splits by soft affinity; the default (true) for a session that carries none of the catalog's properties. */
    public static boolean isSoftAffinityEnabled(ConnectorSession session)
    {
        try {
            return session.getProperty(SOFT_AFFINITY_ENABLED, Boolean.class);
        }
        catch (TrinoException e) {
            if (isUnknownProperty(e)) {
                return true;
            }
            throw e;
        }
    }

    private static boolean isUnknownProperty(TrinoException e)
    {
        return e.getErrorCode().equals(INVALID_SESSION_PROPERTY.toErrorCode());
    }
}
