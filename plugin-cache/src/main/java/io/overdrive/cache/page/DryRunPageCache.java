package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * {@code cache.dry-run=true}: stores nothing, serves nothing, and counts in {@code DryRunWouldBeHits} the reads that a
 * cache of {@code cache.max-size} would have served. It keeps the page ids such a cache would hold (an LRU by page
 * bytes, behind the same admission and rate limit), so it costs memory for ids only.
 */
final class DryRunPageCache
        implements PageCache
{
    private final int pageSize;
    private final long capacity;
    private final WriteGate writeGate;
    private final PageCacheStats stats;
    // page -> bytes, in access order: the first entry is the one an LRU cache would evict; guarded by this
    private final LinkedHashMap<PageId, Integer> pages = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    DryRunPageCache(PageCacheConfig config, PageCacheStats stats)
    {
        this.pageSize = Math.toIntExact(config.getPageSize().toBytes());
        this.capacity = config.maxSizePerDirectory().stream().mapToLong(size -> size.toBytes()).sum();
        this.writeGate = new WriteGate(config, stats);
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Override
    public int pageSize()
    {
        return pageSize;
    }

    @Override
    public int read(PageId pageId, int pageOffset, int length, byte[] target, int targetOffset)
    {
        boolean present;
        synchronized (this) {
            present = pages.get(pageId) != null;
        }
        if (present) {
            stats.recordDryRunWouldBeHit();
        }
        stats.recordMiss();
        return 0;
    }

    @Override
    public boolean contains(PageId pageId)
    {
        // a dry run serves nothing
        return false;
    }

    @Override
    public void recordAccess(PageId pageId)
    {
        writeGate.recordAccess(pageId);
    }

    @Override
    public void write(String path, PageId pageId, ByteBuffer page, CacheReadContext context)
    {
        if (!writeGate.isCacheable(context)) {
            return;
        }
        int length = page.remaining();
        boolean wouldEvict;
        synchronized (this) {
            wouldEvict = bytes + length > capacity;
        }
        if (!writeGate.admits(pageId, length, wouldEvict, context)) {
            return;
        }
        synchronized (this) {
            Integer previous = pages.put(pageId, length);
            bytes += length - (previous == null ? 0 : previous);
            Iterator<Map.Entry<PageId, Integer>> eldest = pages.entrySet().iterator();
            while (bytes > capacity && eldest.hasNext()) {
                bytes -= eldest.next().getValue();
                eldest.remove();
            }
        }
    }

    @Override
    public synchronized void deleteFile(String fileId)
    {
        pages.entrySet().removeIf(entry -> {
            if (entry.getKey().getFileId().equals(fileId)) {
                bytes -= entry.getValue();
                return true;
            }
            return false;
        });
    }

    @Override
    public void expire(String path)
    {
        // page ids carry a hash of the file's cache key, not its path: an expired file's ids age out as an LRU would
    }

    @Override
    public void invalidatePaths(Predicate<String> paths)
    {
        // as for expire: no path is known
    }

    @Override
    public synchronized void invalidateAll()
    {
        pages.clear();
        bytes = 0;
    }

    @Override
    public void close() {}
}
