package io.overdrive.cache.flush;

import com.google.common.collect.ImmutableList;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What {@code flush_cache} removes on every worker: everything ({@code all}), or the cached files under the given
 * storage locations (a schema's or a table's directory), resolved once on the coordinator.
 */
public record FlushCacheHandle(boolean all, List<String> locations)
        implements ConnectorTableFunctionHandle
{
    public FlushCacheHandle
    {
        locations = ImmutableList.copyOf(requireNonNull(locations, "locations is null"));
    }

    /** Whether a cached file at {@code path} is one to flush. */
    public boolean matches(String path)
    {
        if (all) {
            return true;
        }
        for (String location : locations) {
            String prefix = location.endsWith("/") ? location : location + "/";
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
