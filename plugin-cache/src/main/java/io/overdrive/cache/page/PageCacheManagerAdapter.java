package io.overdrive.cache.page;

import alluxio.client.file.CacheContext;
import alluxio.client.file.cache.CacheManager;
import alluxio.client.file.cache.CacheUsage;
import alluxio.client.file.cache.PageId;
import alluxio.file.ReadTargetBuffer;
import alluxio.network.protocol.databuffer.DataFileChannel;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Presents {@link PageCache}, for one file, as the Alluxio {@link CacheManager} that Trino's own page-aligned readers
 * ({@code AlluxioInput}, {@code AlluxioInputStream}) drive, so Overdrive reuses Trino's read path and only replaces
 * what happens to a page. Only the calls those readers make are supported.
 */
final class PageCacheManagerAdapter
        implements CacheManager
{
    private final PageCache cache;
    private final String path;
    private final CacheReadContext context;
    // pages of this opened file already counted for admission
    private final Set<Long> accessedPages = ConcurrentHashMap.newKeySet();

    PageCacheManagerAdapter(PageCache cache, String path, CacheReadContext context)
    {
        this.cache = requireNonNull(cache, "cache is null");
        this.path = requireNonNull(path, "path is null");
        this.context = requireNonNull(context, "context is null");
    }

    @Override
    public boolean put(PageId pageId, ByteBuffer page, CacheContext cacheContext)
    {
        cache.write(path, pageId, page, context);
        // the readers ignore the answer; declining to cache is not an error
        return true;
    }

    @Override
    public int get(PageId pageId, int pageOffset, int bytesToRead, byte[] buffer, int offsetInBuffer, CacheContext cacheContext)
    {
        countAccess(pageId);
        int read = cache.read(pageId, pageOffset, bytesToRead, buffer, offsetInBuffer);
        if (read > 0) {
            context.readStats().recordFromCache(read);
        }
        return read;
    }

    @Override
    public int get(PageId pageId, int pageOffset, int bytesToRead, ReadTargetBuffer target, CacheContext cacheContext)
    {
        countAccess(pageId);
        byte[] bytes = new byte[bytesToRead];
        int read = cache.read(pageId, pageOffset, bytesToRead, bytes, 0);
        if (read > 0) {
            target.writeBytes(bytes, 0, read);
            context.readStats().recordFromCache(read);
        }
        return read;
    }

    @Override
    public int getAndLoad(PageId pageId, int pageOffset, int bytesToRead, ReadTargetBuffer target, CacheContext cacheContext, Supplier<byte[]> externalDataSupplier)
    {
        int read = get(pageId, pageOffset, bytesToRead, target, cacheContext);
        if (read > 0) {
            return read;
        }
        byte[] page = externalDataSupplier.get();
        cache.write(path, pageId, ByteBuffer.wrap(page), context);
        int bytes = Math.min(bytesToRead, page.length - pageOffset);
        target.writeBytes(page, pageOffset, bytes);
        return bytes;
    }

    private void countAccess(PageId pageId)
    {
        if (accessedPages.add(pageId.getPageIndex())) {
            cache.recordAccess(pageId);
        }
    }

    @Override
    public void deleteFile(String fileId)
    {
        cache.deleteFile(fileId);
    }

    @Override
    public void deleteTempFile(String fileId)
    {
        // Overdrive never writes temporary pages
    }

    @Override
    public boolean delete(PageId pageId)
    {
        throw new UnsupportedOperationException("Overdrive's page cache deletes whole files, not single pages");
    }

    @Override
    public State state()
    {
        return State.READ_WRITE;
    }

    @Override
    public boolean append(PageId pageId, int appendAt, byte[] page, CacheContext cacheContext)
    {
        throw new UnsupportedOperationException("Overdrive caches immutable data files; pages are never appended to");
    }

    @Override
    public Optional<CacheUsage> getUsage()
    {
        return Optional.empty();
    }

    @Override
    public void commitFile(String fileId)
    {
        throw new UnsupportedOperationException("Overdrive never writes temporary pages, so there is nothing to commit");
    }

    @Override
    public Optional<DataFileChannel> getDataFileChannel(PageId pageId, int pageOffset, int bytesToRead, CacheContext cacheContext)
    {
        return Optional.empty();
    }

    @Override
    public void close()
    {
        // the shared PageCache is closed by its owner
    }
}
