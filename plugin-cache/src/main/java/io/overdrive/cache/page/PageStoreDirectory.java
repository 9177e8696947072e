package io.overdrive.cache.page;

import alluxio.client.file.CacheContext;
import alluxio.client.file.cache.CacheManager;
import alluxio.client.file.cache.CacheManagerOptions;
import alluxio.client.file.cache.LocalCacheManager;
import alluxio.client.file.cache.PageMetaStore;
import alluxio.client.quota.CacheScope;
import alluxio.client.file.cache.CacheUsage;
import alluxio.client.file.cache.PageId;
import alluxio.file.ByteArrayTargetBuffer;
import alluxio.conf.AlluxioConfiguration;
import io.airlift.log.Logger;
import io.overdrive.cache.stats.PageCacheStats;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * One cache directory (ideally one disk): its own Alluxio {@link CacheManager} holding pages under
 * {@code <directory>/LOCAL/<page size>/<bucket>/<file id>/<page index>}. Consecutive read or write errors past a
 * threshold take the directory out of use, so a failing disk costs cache hits, never queries.
 */
final class PageStoreDirectory
        implements AutoCloseable
{
    private static final Logger log = Logger.get(PageStoreDirectory.class);

    private final Path path;
    private final long capacityBytes;
    private final CacheManager manager;
    private final int failureThreshold;
    private final PageCacheStats stats;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicBoolean disabled = new AtomicBoolean();
    private final long recoveredBytes;

    PageStoreDirectory(Path path, long capacityBytes, CacheManager manager, int failureThreshold, PageCacheStats stats)
    {
        this.path = requireNonNull(path, "path is null");
        this.capacityBytes = capacityBytes;
        this.manager = requireNonNull(manager, "manager is null");
        this.failureThreshold = failureThreshold;
        this.stats = requireNonNull(stats, "stats is null");
        this.recoveredBytes = usedBytes();
    }

    static PageStoreDirectory open(Path path, long capacityBytes, AlluxioConfiguration configuration, int failureThreshold, PageCacheStats stats)
            throws Exception
    {
        // LocalCacheManager itself, not Factory.create's NoExceptionCacheManager wrapper: that one lacks invalidate(),
        // and failures are turned into misses here anyway
        CacheManagerOptions options = CacheManagerOptions.create(configuration);
        return new PageStoreDirectory(path, capacityBytes, LocalCacheManager.create(options, PageMetaStore.create(options)), failureThreshold, stats);
    }

    Path path()
    {
        return path;
    }

    long capacityBytes()
    {
        return capacityBytes;
    }

    boolean isEnabled()
    {
        return !disabled.get();
    }

    /** Bytes of pages found on disk when the directory was opened (Alluxio restores them synchronously). */
    long recoveredBytes()
    {
        return recoveredBytes;
    }

    /** Bytes Alluxio can still store in this directory without evicting. */
    long availableBytes()
    {
        return manager.getUsage().map(CacheUsage::available).orElse(0L);
    }

    long usedBytes()
    {
        return manager.getUsage().map(CacheUsage::used).orElse(0L);
    }

    /** The whole stored frame of the page into {@code buffer}: its length, 0 when absent, -1 on a read error. */
    int readFrame(PageId pageId, byte[] buffer)
    {
        try {
            // the ReadTargetBuffer variant reads the whole stored page, whatever its length
            int read = manager.get(pageId, 0, new ByteArrayTargetBuffer(buffer, 0), CacheContext.defaults());
            if (read < 0) {
                recordFailure("read");
                return -1;
            }
            consecutiveFailures.set(0);
            return read;
        }
        catch (RuntimeException e) {
            // Alluxio reports most failures by return value; anything thrown is a failure all the same
            recordFailure("read: " + e);
            return -1;
        }
    }

    boolean writeFrame(PageId pageId, byte[] frame, CacheContext cacheContext)
    {
        try {
            if (manager.put(pageId, ByteBuffer.wrap(frame), cacheContext)) {
                consecutiveFailures.set(0);
                return true;
            }
            recordFailure("write");
            return false;
        }
        catch (RuntimeException e) {
            recordFailure("write: " + e);
            return false;
        }
    }

    boolean deletePage(PageId pageId)
    {
        try {
            return manager.delete(pageId);
        }
        catch (RuntimeException e) {
            recordFailure("delete: " + e);
            return false;
        }
    }

    /** Whether adding {@code bytes} in the context's scope goes past the schema's or the table's quota. */
    boolean atQuota(CacheContext cacheContext, long bytes)
    {
        CacheScope scope = cacheContext.getCacheScope();
        while (scope != null && scope != CacheScope.GLOBAL) {
            long quota = cacheContext.getCacheQuota().getQuota(scope);
            CacheScope current = scope;
            long used = manager.getUsage().flatMap(usage -> usage.partitionedBy(CacheUsage.PartitionDescriptor.scope(current))).map(CacheUsage::used).orElse(0L);
            if (quota >= 0 && quota < Long.MAX_VALUE && used + bytes > quota) {
                return true;
            }
            scope = scope.parent();
        }
        return false;
    }

    /** Deletes the file's pages (Alluxio finds them in its in-memory metadata); returns the bytes freed. */
    long deleteFile(String fileId)
    {
        try {
            long before = usedBytes();
            manager.deleteFile(fileId);
            return Math.max(0, before - usedBytes());
        }
        catch (RuntimeException e) {
            recordFailure("delete: " + e);
            return 0;
        }
    }

    /** Deletes every page, also those restored from disk. Alluxio walks the directory for this: for rare use. */
    void deleteAll()
    {
        try {
            manager.invalidate(_ -> true);
        }
        catch (RuntimeException e) {
            // pages deleted concurrently make the walk trip over vanished files; what is left is retried once
            log.warn(e, "Retrying to empty cache directory %s", path);
            try {
                manager.invalidate(_ -> true);
            }
            catch (RuntimeException retryFailure) {
                recordFailure("delete all: " + retryFailure);
            }
        }
    }

    /** Takes the directory out of use now, for a directory that cannot be used from the start. */
    void disable(String reason)
    {
        if (disabled.compareAndSet(false, true)) {
            stats.recordDirectoryDisabled();
            log.error("Overdrive cache directory %s is taken out of use: %s. Reads that would have used it go to remote storage.", path, reason);
        }
    }

    private void recordFailure(String operation)
    {
        if (consecutiveFailures.incrementAndGet() >= failureThreshold) {
            disable("%s consecutive cache errors, the last one on %s".formatted(failureThreshold, operation));
        }
    }

    @Override
    public void close()
            throws Exception
    {
        manager.close();
    }
}
