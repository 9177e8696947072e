package io.overdrive.cache.page;

import alluxio.client.file.cache.CacheManager;
import alluxio.client.file.cache.PageId;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Predicate;

/**
 * A worker's page cache for one catalog, as the file system layer and {@code flush_cache} use it: pages of remote
 * files by {@link PageId}, offered after remote reads and served instead of them. Every failure inside is a cache
 * miss, never an error: the caller then reads remote storage.
 */
public interface PageCache
        extends AutoCloseable
{
    /**
     * The cache {@code cache.*} asks for: pages on local disks ({@link LocalPageCache}), or with {@code cache.dry-run}
     * only the page ids it would hold ({@link DryRunPageCache}).
     *
     * @throws IllegalStateException when another cache already uses one of the catalog's directories
     */
    static PageCache create(String catalog, PageCacheConfig config, PageCacheStats stats)
    {
        return config.isDryRun() ? new DryRunPageCache(config, stats) : new LocalPageCache(catalog, config, stats);
    }

    int pageSize();

    /** This cache as the Alluxio cache manager Trino's page-aligned readers drive, for the file at {@code path}. */
    default CacheManager adapterFor(String path, CacheReadContext context)
    {
        return new PageCacheManagerAdapter(this, path, context);
    }

    /**
     * Copies up to {@code length} bytes of the page from {@code pageOffset} into {@code target}, returning how many, or
     * 0 when the cache cannot serve the page (absent, unreadable, corrupt, directory out of use).
     */
    int read(PageId pageId, int pageOffset, int length, byte[] target, int targetOffset);

    /**
     * Whether the page is cached, without reading it (a cheap check; a read may still miss). A page this cache holds
     * only part of, as far as it knows, is not.
     */
    boolean contains(PageId pageId);

    /**
     * Whether the page's bytes from {@code from} to {@code to} are cached, without reading them (a cheap check, as
     * {@link #contains(PageId)}, and for a page this cache holds part of, of the chunks it knows it holds).
     */
    default boolean contains(PageId pageId, int from, int to)
    {
        return contains(pageId);
    }

    /**
     * A read of {@code bytes} bytes of remote storage that took {@code nanos}: what a cache directory's reads are
     * compared with ({@code cache.slow-disk-step-aside-enabled}).
     */
    default void recordStorageRead(long bytes, long nanos) {}

    /**
     * Counts one access to the page for admission. Callers count a page once per opened file, however many reads of
     * it that opening makes: a reader asks for a page once per column chunk, and one scan must not look like a hot set.
     */
    void recordAccess(PageId pageId);

    /**
     * Offers a whole page of the file at {@code path} to the cache; it may decline (admission, rate limit, quota,
     * failures) and says nothing either way.
     */
    void write(String path, PageId pageId, ByteBuffer page, CacheReadContext context);

    /**
     * Offers part of a page of the file at {@code path}: {@code bytes} holds the page's bytes from {@code pageOffset},
     * for a page of {@code pageLength} bytes. The cache keeps the {@link PageFrame#CHUNK_SIZE} chunks the part covers
     * whole (a part reaching the page's end covers its last chunk), adding them to what it holds of the page, so that a
     * later read of those bytes hits; it may decline and says nothing either way. By default only a whole page is kept.
     */
    default void writePart(String path, PageId pageId, int pageLength, int pageOffset, ByteBuffer bytes, CacheReadContext context)
    {
        if (pageOffset == 0 && bytes.remaining() == pageLength) {
            write(path, pageId, bytes, context);
        }
    }

    /** Removes every cached page of the file (for example when the file changed or was deleted). */
    void deleteFile(String fileId);

    /** Removes every cached version of the file at {@code path} that this worker cached since it started. */
    void expire(String path);

    /** Removes the cached files whose path matches, among those this worker cached since it started. */
    void invalidatePaths(Predicate<String> paths);

    /** Removes every page, including pages recovered at startup. */
    void invalidateAll();

    /** What this cache holds of each table it holds pages of; none for a cache that stores no bytes. */
    default List<CachedTableUsage> cachedTables()
    {
        return List.of();
    }

    /** Each of this cache's directories; none for a cache that stores no bytes. */
    default List<CacheDirectoryStatus> directoryStatus()
    {
        return List.of();
    }

    @Override
    void close();
}
