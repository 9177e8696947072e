package io.overdrive.cache.flush;

import io.trino.spi.function.table.ConnectorTableFunctionHandle;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What {@code flush_cache} removes on every worker: everything ({@code all}), or the cached files under the given
 * storage locations (a schema's or a table's directory, and those of partitions stored elsewhere), resolved once on the
 * coordinator. The locations are kept as prefixes to search: {@code s3://}, {@code s3a://} and {@code s3n://} made one,
 * each ending with {@code /}, sorted, none under another.
 */
public record FlushCacheHandle(boolean all, List<String> locations)
        implements ConnectorTableFunctionHandle
{
    public FlushCacheHandle
    {
        locations = List.copyOf(StorageLocations.prefixes(requireNonNull(locations, "locations is null")));
    }

    /** Whether a cached file at {@code path} is one to flush. */
    public boolean matches(String path)
    {
        return all || StorageLocations.matches(locations, path);
    }
}
