package io.overdrive.cache.page;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.collect.ImmutableSet;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * Which cache file ids hold versions of which path, for {@code expire(path)} and flushes by path prefix. Bounded by
 * path count (least recently cached paths are forgotten first): a forgotten entry only means its pages are left to
 * eviction, never that stale bytes are served, because a changed file gets a new file id.
 */
final class FileIndex
{
    private final Cache<String, Set<String>> fileIdsByPath;
    private final Map<String, String> pathByFileId = new ConcurrentHashMap<>();

    FileIndex(long maxPaths)
    {
        this.fileIdsByPath = CacheBuilder.newBuilder()
                .maximumSize(maxPaths)
                .<String, Set<String>>removalListener(removal -> {
                    if (removal.wasEvicted()) {
                        removal.getValue().forEach(pathByFileId::remove);
                    }
                })
                .build();
    }

    void add(String path, String fileId)
    {
        requireNonNull(path, "path is null");
        if (pathByFileId.putIfAbsent(fileId, path) == null) {
            fileIdsByPath.asMap().computeIfAbsent(path, _ -> ConcurrentHashMap.newKeySet()).add(fileId);
        }
    }

    void remove(String fileId)
    {
        String path = pathByFileId.remove(fileId);
        if (path != null) {
            fileIdsByPath.asMap().computeIfPresent(path, (_, fileIds) -> {
                fileIds.remove(fileId);
                return fileIds.isEmpty() ? null : fileIds;
            });
        }
    }

    Set<String> fileIds(String path)
    {
        Set<String> fileIds = fileIdsByPath.getIfPresent(path);
        return fileIds == null ? ImmutableSet.of() : ImmutableSet.copyOf(fileIds);
    }

    Set<String> fileIds(Predicate<String> paths)
    {
        ImmutableSet.Builder<String> fileIds = ImmutableSet.builder();
        fileIdsByPath.asMap().forEach((path, ids) -> {
            if (paths.test(path)) {
                fileIds.addAll(ids);
            }
        });
        return fileIds.build();
    }

    void clear()
    {
        fileIdsByPath.invalidateAll();
        pathByFileId.clear();
    }
}
