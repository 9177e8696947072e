package io.overdrive.cache.page;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the cache needs to know about a read that the file system layer does not see: the table it belongs to (for
 * quotas) and whether this worker may cache it (only preferred workers cache under soft affinity). The connector sets
 * it while Hive opens a split's files; the cache captures it for each file it opens.
 */
public record CacheReadContext(Optional<String> schema, Optional<String> table, boolean cacheable)
{
    /**
     * A read outside a table scan (a file opened after the page source was created, such as a delete delta read
     * lazily): cached like any other read, but with no schema or table, so not cached at all when quotas are set.
     */
    public static final CacheReadContext UNKNOWN = new CacheReadContext(Optional.empty(), Optional.empty(), true);

    private static final ThreadLocal<CacheReadContext> CURRENT = ThreadLocal.withInitial(() -> UNKNOWN);

    public CacheReadContext
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
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
