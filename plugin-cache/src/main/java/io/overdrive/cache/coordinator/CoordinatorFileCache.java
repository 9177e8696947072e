package io.overdrive.cache.coordinator;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.cache.Cache;
import com.google.common.cache.Weigher;
import com.google.common.util.concurrent.ExecutionError;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.airlift.units.Duration;
import io.overdrive.cache.CacheKeys;
import io.overdrive.cache.page.PageCacheConfig;
import io.trino.cache.EvictableCacheBuilder;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.cache.TrinoFileSystemCache;

import java.io.IOException;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import static com.google.common.base.Throwables.throwIfInstanceOf;
import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.sizeOf;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The coordinator's memory tier: whole small files, read through Trino's {@link TrinoFileSystemCache} seam, kept in
 * the heap under the file's store (scheme, bucket or host) and Trino's cache key ({@code path#modification time#length},
 * from the {@code CacheKeyProvider}; {@link CacheKeys}), so a file that changes gets a new key and its old content is
 * never served for it. A file on an object store modified less than {@code cache.min-file-age} ago is read from storage
 * and not kept: its key cannot yet tell a rewrite within the same second apart. What a coordinator that runs no splits
 * reads is table metadata: with the file metastore, a table's {@code .trinoSchema} and {@code .trinoPermissions} files
 * for every query it plans; Trino's {@code fs.cache} keeps the same files on the coordinator's disk.
 * <p>
 * A file is read whole on its first open and served from memory from then on. It is kept only if exactly as many bytes
 * as its key's length were read (a file replaced between its status and its read is served from storage instead);
 * files over {@code cache.coordinator.max-file-size} are always read from storage. The total is bounded by
 * {@code cache.coordinator.max-size} (least recently used files go first). Writes, renames and deletes through the
 * catalog drop the path's entries at once ({@link #expire}): to free their memory, and for a file rewritten within
 * its modification time's resolution with the same length, whose key does not change.
 * <p>
 * Concurrent opens of a file load it once, and a load that an {@link #expire} overtakes is not kept: the entries are
 * Trino's {@link EvictableCacheBuilder} cache, whose invalidation also covers loads in flight, so the bytes a load
 * read before a write can never be served after it.
 */
public class CoordinatorFileCache
        implements TrinoFileSystemCache
{
    private final Cache<String, Content> files;
    private final long maxFileSize;
    private final CoordinatorCacheStats stats;
    private final Duration minFileAge;
    private final InstantSource clock;

    @Inject
    public CoordinatorFileCache(CoordinatorCacheConfig config, PageCacheConfig pageCacheConfig, CoordinatorCacheStats stats)
    {
        this(config, pageCacheConfig.getMinFileAge(), InstantSource.system(), stats);
    }

    /**
     * @param minFileAge files of stores whose modification times count whole seconds are read from storage, not kept,
     * until their key's modification time is this old ({@link CacheKeys#isTooRecent})
     */
    public CoordinatorFileCache(CoordinatorCacheConfig config, Duration minFileAge, InstantSource clock, CoordinatorCacheStats stats)
    {
        this.stats = requireNonNull(stats, "stats is null");
        this.minFileAge = requireNonNull(minFileAge, "minFileAge is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.maxFileSize = config.getMaxFileSize().toBytes();
        this.files = EvictableCacheBuilder.newBuilder()
                .maximumWeight(config.getMaxSize().toBytes())
                .weigher((Weigher<String, Content>) (_, content) -> content.weight())
                // one segment: the bound is the configured size itself, not a quarter of it per segment (a file as
                // large as a quarter would be evicted at once), and the coordinator's reads are few and serialized
                .concurrencyLevel(1)
                // for the evictions metric
                .recordStats()
                .build();
        stats.setUsage(files::size, this::bytesCached, () -> files.stats().evictionCount());
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
        // a key begins with the file's store and path: a file's own entries, and for a directory those of every file below it
        List<String> paths = locations.stream().map(location -> CacheKeys.storeKey(location, location.path())).toList();
        List<String> expired = files.asMap().keySet().stream()
                .filter(key -> paths.stream().anyMatch(key::startsWith))
                .toList();
        // also for a key whose load is in flight: what that load read is then not kept
        files.invalidateAll(expired);
        stats.recordExpirations(expired.size());
    }

    @VisibleForTesting
    boolean isCached(Location location, String key)
    {
        return files.getIfPresent(CacheKeys.storeKey(location, key)) != null;
    }

    // the file's content from memory, or read whole from storage and kept; empty: read it from storage, not kept
    private Optional<byte[]> content(TrinoInputFile delegate, String trinoKey)
            throws IOException
    {
        if (CacheKeys.isTooRecent(delegate.location(), trinoKey, minFileAge, clock.instant())) {
            stats.recordRecentlyModified();
            return Optional.empty();
        }
        String key = CacheKeys.storeKey(delegate.location(), trinoKey);
        Content cached = files.getIfPresent(key);
        if (cached != null) {
            stats.recordHit();
            return Optional.of(cached.bytes());
        }
        long length = delegate.length();
        if (length > maxFileSize) {
            stats.recordFileTooLarge();
            return Optional.empty();
        }
        boolean[] loaded = new boolean[1];
        Content content;
        try {
            // one load per key at a time: concurrent opens of the file wait for it
            content = files.get(key, () -> {
                loaded[0] = true;
                return new Content(key, load(delegate, toIntExact(length)).orElseThrow(ChangedWhileLoading::new));
            });
        }
        catch (ExecutionException | UncheckedExecutionException | ExecutionError e) {
            if (e.getCause() instanceof ChangedWhileLoading) {
                stats.recordChangedWhileLoading();
                return Optional.empty();
            }
            throwIfInstanceOf(e.getCause(), IOException.class);
            throwIfUnchecked(e.getCause());
            throw new IOException("Reading " + delegate.location() + " failed", e.getCause());
        }
        if (loaded[0]) {
            stats.recordMiss(length);
        }
        else {
            // another open loaded it meanwhile
            stats.recordHit();
        }
        return Optional.of(content.bytes());
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
        return files.asMap().values().stream()
                .mapToLong(Content::weight)
                .sum();
    }

    /** A file's content in memory, with its key, which it is weighed with. */
    private record Content(String key, byte[] bytes)
    {
        int weight()
        {
            return toIntExact(estimatedSizeOf(key) + sizeOf(bytes));
        }
    }

    /** A load whose length was not its key's: the reader reads storage instead, and nothing is kept. */
    private static final class ChangedWhileLoading
            extends Exception
    {
        ChangedWhileLoading()
        {
            super("file changed while loading", null, false, false);
        }
    }
}
