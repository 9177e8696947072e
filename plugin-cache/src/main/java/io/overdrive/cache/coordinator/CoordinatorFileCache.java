package io.overdrive.cache.coordinator;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.RemovalCause;
import com.google.common.cache.Weigher;
import com.google.inject.Inject;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.cache.TrinoFileSystemCache;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.sizeOf;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The coordinator's memory tier: whole small files, read through Trino's {@link TrinoFileSystemCache} seam, kept in
 * the heap under Trino's cache key ({@code path#modification time#length}, from the {@code CacheKeyProvider}), so a
 * file that changes gets a new key and its old content is never served for it. What a coordinator that runs no splits
 * reads is table metadata: with the file metastore, a table's {@code .trinoSchema} and {@code .trinoPermissions} files
 * for every query it plans; Trino's {@code fs.cache} keeps the same files on the coordinator's disk.
 * <p>
 * A file is read whole on its first open and served from memory from then on. It is kept only if exactly as many bytes
 * as its key's length were read (a file replaced between its status and its read is served from storage instead);
 * files over {@code cache.coordinator.max-file-size} are always read from storage. The total is bounded by
 * {@code cache.coordinator.max-size} (least recently used files go first). Writes, renames and deletes through the
 * catalog drop the path's entries at once ({@link #expire}), to free their memory: the key alone already keeps them
 * from being served.
 */
public class CoordinatorFileCache
        implements TrinoFileSystemCache
{
    private final Cache<String, byte[]> files;
    private final long maxFileSize;
    private final CoordinatorCacheStats stats;

    @Inject
    public CoordinatorFileCache(CoordinatorCacheConfig config, CoordinatorCacheStats stats)
    {
        this.stats = requireNonNull(stats, "stats is null");
        this.maxFileSize = config.getMaxFileSize().toBytes();
        this.files = CacheBuilder.newBuilder()
                .maximumWeight(config.getMaxSize().toBytes())
                .weigher((Weigher<String, byte[]>) (key, content) -> weight(key, content))
                // one segment: the bound is the configured size itself, not a quarter of it per segment (a file as
                // large as a quarter would be evicted at once), and the coordinator's reads are few and serialized
                .concurrencyLevel(1)
                .removalListener(notification -> {
                    if (notification.getCause() == RemovalCause.SIZE) {
                        stats.recordEviction();
                    }
                })
                .build();
        stats.setUsage(files::size, this::bytesCached);
    }

    @Override
    public TrinoInput cacheInput(TrinoInputFile delegate, String key)
            throws IOException
    {
        Optional<byte[]> content = content(delegate, key);
        if (content.isEmpty()) {
            return delegate.newInput();
        }
        return new MemoryFileInput(delegate.location(), content.get(), stats);
    }

    @Override
    public TrinoInputStream cacheStream(TrinoInputFile delegate, String key)
            throws IOException
    {
        Optional<byte[]> content = content(delegate, key);
        if (content.isEmpty()) {
            return delegate.newStream();
        }
        return new MemoryFileInputStream(delegate.location(), content.get(), stats);
    }

    @Override
    public long cacheLength(TrinoInputFile delegate, String key)
            throws IOException
    {
        // the key was made from the file's status, which the delegate keeps: no further call to storage
        return delegate.length();
    }

    @Override
    public void expire(Location location)
    {
        expire(List.of(location));
    }

    @Override
    public void expire(Collection<Location> locations)
    {
        // a key begins with the file's path: a file's own entries, and for a directory those of every file below it
        List<String> paths = locations.stream().map(Location::path).toList();
        List<String> expired = files.asMap().keySet().stream()
                .filter(key -> paths.stream().anyMatch(key::startsWith))
                .toList();
        files.invalidateAll(expired);
        stats.recordExpirations(expired.size());
    }

    @VisibleForTesting
    boolean isCached(String key)
    {
        return files.getIfPresent(key) != null;
    }

    // the file's content from memory, or read whole from storage and kept; empty: read it from storage, not kept
    private Optional<byte[]> content(TrinoInputFile delegate, String key)
            throws IOException
    {
        byte[] content = files.getIfPresent(key);
        if (content != null) {
            stats.recordHit();
            return Optional.of(content);
        }
        long length = delegate.length();
        if (length > maxFileSize) {
            stats.recordFileTooLarge();
            return Optional.empty();
        }
        Optional<byte[]> loaded = load(delegate, toIntExact(length));
        if (loaded.isEmpty()) {
            stats.recordChangedWhileLoading();
            return Optional.empty();
        }
        stats.recordMiss(length);
        files.put(key, loaded.get());
        return loaded;
    }

    // exactly length bytes, or empty when the file on storage is shorter or longer than its key says
    private static Optional<byte[]> load(TrinoInputFile delegate, int length)
            throws IOException
    {
        byte[] content = new byte[length];
        try (TrinoInputStream input = delegate.newStream()) {
            if (input.readNBytes(content, 0, length) != length || input.read() != -1) {
                return Optional.empty();
            }
        }
        return Optional.of(content);
    }

    private long bytesCached()
    {
        return files.asMap().entrySet().stream()
                .mapToLong(entry -> weight(entry.getKey(), entry.getValue()))
                .sum();
    }

    private static int weight(String key, byte[] content)
    {
        return toIntExact(estimatedSizeOf(key) + sizeOf(content));
    }
}
