package io.overdrive.cache.page;

import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What a node's page cache holds of one table, all its directories together: a row of {@code system.cached_tables}.
 *
 * @param schema absent for pages read for no table (files opened outside a table scan)
 * @param table absent for pages read for a schema's file of no table, and for pages of no table
 * @param files data files with at least one page cached
 * @param bytes bytes on disk, checksums included, as the cache's size and quotas count them
 * @param hits reads served from the table's pages since they were cached (since the node started, for restored ones)
 * @param lastAccessMillis when a page of the table was last written or served, in milliseconds since the epoch
 */
public record CachedTableUsage(Optional<String> schema, Optional<String> table, long files, long pages, long bytes, long hits, long hitBytes, long lastAccessMillis)
{
    public CachedTableUsage
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
        checkArgument(schema.isPresent() || table.isEmpty(), "a table without a schema");
    }
}
