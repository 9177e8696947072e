package io.overdrive.cache.page;

import static java.util.Objects.requireNonNull;

/**
 * One cache directory of a node, as {@code system.cache_directories} shows it.
 *
 * @param path the catalog's subdirectory of a {@code cache.base-directory}
 * @param inUse false while the directory is out of use after I/O failures (its pages are kept, and served again once a
 * probe finds it working)
 * @param restoring whether the pages found at startup are still being registered
 * @param usedBytes bytes of the pages it holds
 * @param capacityBytes bytes of pages it holds before it evicts: its share of {@code cache.max-size}, less the allowance
 * the cache manager keeps for the overhead of its files
 * @param recoveredBytes bytes of the pages found at startup and registered so far
 */
public record CacheDirectoryStatus(String path, boolean inUse, boolean restoring, long usedBytes, long capacityBytes, long recoveredBytes)
{
    public CacheDirectoryStatus
    {
        requireNonNull(path, "path is null");
    }
}
