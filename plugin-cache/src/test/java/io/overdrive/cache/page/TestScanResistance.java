package io.overdrive.cache.page;

import alluxio.client.file.cache.CacheManager;
import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code cache.admission}, a full cache keeps its hot pages when a one-off scan passes through, even though the
 * scan reads each of its pages many times (once per column chunk) while it has the file open.
 */
class TestScanResistance
{
    @TempDir
    Path directory;

    @Test
    void oneOffScanDoesNotEvictTheHotSet()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(50 * PAGE_SIZE, directory).setAdmissionEnabled(true), stats)) {
            // the hot set fills the cache, read by many queries (each query opens the file anew)
            for (int query = 0; query < 3; query++) {
                readFile(cache, "hot", 60);
            }
            int hotCachedBefore = cachedPages(cache, "hot", 60);
            assertThat(hotCachedBefore).isGreaterThan(30);

            // five one-off scans, each page read 8 times while the file is open
            for (int scan = 0; scan < 5; scan++) {
                CacheManager file = cache.adapterFor("/scan-" + scan, CacheReadContext.UNKNOWN);
                for (int page = 0; page < 60; page++) {
                    for (int chunk = 0; chunk < 8; chunk++) {
                        readThrough(file, new PageId("scan-" + scan, page));
                    }
                }
            }
            assertThat(stats.getAdmissionRejections()).isPositive();
            assertThat(cachedPages(cache, "hot", 60)).as("hot pages still cached").isGreaterThanOrEqualTo(hotCachedBefore - 2);
        }
    }

    // one query: the file opened once, every page read (through the cache, remote on a miss)
    private static void readFile(PageCache cache, String fileId, int pages)
    {
        CacheManager file = cache.adapterFor("/" + fileId, CacheReadContext.UNKNOWN);
        for (int page = 0; page < pages; page++) {
            readThrough(file, new PageId(fileId, page));
        }
    }

    private static void readThrough(CacheManager file, PageId pageId)
    {
        byte[] target = new byte[PAGE_SIZE];
        if (file.get(pageId, 0, 100, target, 0) <= 0) {
            // what Trino's reader does on a miss: read remote storage, offer the page
            file.put(pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)));
        }
    }

    private static int cachedPages(PageCache cache, String fileId, int pages)
    {
        int cached = 0;
        for (int page = 0; page < pages; page++) {
            if (cache.read(new PageId(fileId, page), 0, 1, new byte[1], 0) > 0) {
                cached++;
            }
        }
        return cached;
    }
}
