package io.overdrive.cache.page;

import com.google.common.collect.ImmutableSet;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * Which cache file ids hold versions of which path, for {@code expire(path)} and flushes by path prefix. Bounded by
 * path count: the least recently cached paths are forgotten first. A forgotten path only means its pages are left to
 * eviction, never that stale bytes are served, because a changed file gets a new file id.
 * <p>
 * Both directions are kept under one lock, so that forgetting a path also forgets its file ids.
 */
final class FileIndex
{
    // a hash map entry with its table slot, and the String object of the key, roughly; the characters are counted apart
    private static final long ENTRY_OVERHEAD = 48L + instanceSize(String.class);

    private final int maxPaths;
    // path -> its file ids, least recently cached path first; guarded by this
    private final LinkedHashMap<String, Set<String>> fileIdsByPath = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, String> pathByFileId = new HashMap<>();
    private long retainedBytes;

    static final int DEFAULT_MAX_PATHS = 1_000_000;

    FileIndex(int maxPaths)
    {
        checkArgument(maxPaths > 0, "maxPaths must be positive");
        this.maxPaths = maxPaths;
    }

    synchronized void add(String path, String fileId)
    {
        requireNonNull(path, "path is null");
        requireNonNull(fileId, "fileId is null");
        if (pathByFileId.putIfAbsent(fileId, path) != null) {
            fileIdsByPath.get(pathByFileId.get(fileId));
            return;
        }
        Set<String> fileIds = fileIdsByPath.get(path);
        if (fileIds == null) {
            fileIds = new HashSet<>(2);
            fileIdsByPath.put(path, fileIds);
            retainedBytes += ENTRY_OVERHEAD + estimatedSizeOf(path);
        }
        fileIds.add(fileId);
        retainedBytes += 2 * ENTRY_OVERHEAD + estimatedSizeOf(fileId);
        if (fileIdsByPath.size() > maxPaths) {
            forget(fileIdsByPath.keySet().iterator().next());
        }
    }

    synchronized void remove(String fileId)
    {
        String path = pathByFileId.remove(fileId);
        if (path == null) {
            return;
        }
        retainedBytes -= 2 * ENTRY_OVERHEAD + estimatedSizeOf(fileId);
        Set<String> fileIds = fileIdsByPath.get(path);
        if (fileIds != null) {
            fileIds.remove(fileId);
            if (fileIds.isEmpty()) {
                fileIdsByPath.remove(path);
                retainedBytes -= ENTRY_OVERHEAD + estimatedSizeOf(path);
            }
        }
    }

    private void forget(String path)
    {
        Set<String> fileIds = fileIdsByPath.remove(path);
        retainedBytes -= ENTRY_OVERHEAD + estimatedSizeOf(path);
        for (String fileId : fileIds) {
            pathByFileId.remove(fileId);
            retainedBytes -= 2 * ENTRY_OVERHEAD + estimatedSizeOf(fileId);
        }
    }

    synchronized Set<String> fileIds(String path)
    {
        Set<String> fileIds = fileIdsByPath.get(path);
        return fileIds == null ? ImmutableSet.of() : ImmutableSet.copyOf(fileIds);
    }

    synchronized Set<String> fileIds(Predicate<String> paths)
    {
        ImmutableSet.Builder<String> fileIds = ImmutableSet.builder();
        fileIdsByPath.forEach((path, ids) -> {
            if (paths.test(path)) {
                fileIds.addAll(ids);
            }
        });
        return fileIds.build();
    }

    synchronized void clear()
    {
        fileIdsByPath.clear();
        pathByFileId.clear();
        retainedBytes = 0;
    }

    synchronized int paths()
    {
        return fileIdsByPath.size();
    }

    synchronized int fileIds()
    {
        return pathByFileId.size();
    }

    /** An estimate of the heap this index holds. */
    synchronized long retainedBytes()
    {
        return retainedBytes;
    }
}
