package io.overdrive.cache.page;

import io.overdrive.cache.session.QueryReadStats;
import io.overdrive.cache.session.ReadOptions;
import io.trino.spi.HostAddress;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the cache needs to know about a read that the file system layer does not see: the table it belongs to (for
 * quotas), whether this worker may cache it (only preferred workers cache under soft affinity) and what the query's
 * session asks ({@link ReadOptions}), and where the split's reads are counted ({@link QueryReadStats}). The connector sets
 * it while Hive opens a split's files; the cache captures it for each file it opens.
 */
public record CacheReadContext(Optional<String> schema, Optional<String> table, boolean cacheable, ReadOptions options, QueryReadStats readStats, List<HostAddress> peers)
{
    /**
     * A read outside a table scan (a file the coordinator opens, or one a reader opens outside the page source's calls):
     * cached like any other read, but with no schema or table, so not cached at all when quotas are set.
     */
    public static final CacheReadContext UNKNOWN = new CacheReadContext(Optional.empty(), Optional.empty(), true);

    private static final ThreadLocal<CacheReadContext> CURRENT = ThreadLocal.withInitial(() -> UNKNOWN);

    public CacheReadContext
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
        requireNonNull(options, "options is null");
        requireNonNull(readStats, "readStats is null");
        peers = List.copyOf(requireNonNull(peers, "peers is null"));
    }

    /** A read whose worker asks no peer for what it misses. */
    public CacheReadContext(Optional<String> schema, Optional<String> table, boolean cacheable, ReadOptions options, QueryReadStats readStats)
    {
        this(schema, table, cacheable, options, readStats, List.of());
    }

    /** A read with the catalog's own behaviour (no session property set). */
    public CacheReadContext(Optional<String> schema, Optional<String> table, boolean cacheable)
    {
        this(schema, table, cacheable, ReadOptions.DEFAULT, QueryReadStats.UNTRACKED);
    }

    public CacheReadContext withOptions(ReadOptions options)
    {
        return new CacheReadContext(schema, table, cacheable, options, readStats, peers);
    }

    /** Whether this read may write pages: a worker that caches the file, for a query that fills the cache. */
    public boolean writes()
    {
        return cacheable && options.populate() != ReadOptions.Populate.NEVER;
    }

    public static CacheReadContext forTable(String schema, String table, boolean cacheable)
    {
        return new CacheReadContext(Optional.of(schema), Optional.of(table), cacheable);
    }

    public static CacheReadContext current()
    {
        return CURRENT.get();
    }

    /** Makes {@code context} current on this thread until the returned scope is closed. */
    public static Scope enter(CacheReadContext context)
    {
        CacheReadContext previous = CURRENT.get();
        CURRENT.set(requireNonNull(context, "context is null"));
        return () -> CURRENT.set(previous);
    }

    public interface Scope
            extends AutoCloseable
    {
        @Override
        void close();
    }
}
