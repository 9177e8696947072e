package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code cache.dry-run}: nothing is stored or served, and the reads a cache of the configured size would have served are
 * counted, as an LRU of that size would hold them.
 */
class TestDryRunPageCache
{
    @TempDir
    Path directory;

    @Test
    void countsWhatAnLruOfTheConfiguredSizeWouldServe()
    {
        PageCacheStats stats = new PageCacheStats();
        // room for 10 pages
        try (PageCache cache = PageCache.create(TestingPages.CATALOG, TestingPages.config(10 * PAGE_SIZE, directory).setDryRun(true), stats)) {
            assertThat(cache).isInstanceOf(DryRunPageCache.class);
            byte[] target = new byte[PAGE_SIZE];
            for (int page = 0; page < 15; page++) {
                PageId pageId = new PageId("file", page);
                assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).isZero();
                cache.write("/file", pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), CacheReadContext.UNKNOWN);
            }
            assertThat(stats.getDryRunWouldBeHits()).isZero();
            // pages 0-4 were pushed out by 10-14; 5-14 would be hits, and nothing is ever served
            for (int page = 0; page < 15; page++) {
                assertThat(cache.read(new PageId("file", page), 0, PAGE_SIZE, target, 0)).isZero();
            }
            assertThat(stats.getDryRunWouldBeHits()).isEqualTo(10);
            assertThat(stats.getHits()).isZero();
            assertThat(stats.getBytesCached()).isZero();

            cache.deleteFile("file");
            assertThat(cache.read(new PageId("file", 14), 0, PAGE_SIZE, target, 0)).isZero();
            assertThat(stats.getDryRunWouldBeHits()).as("a deleted file is no longer a would-be hit").isEqualTo(10);

            // pages of readers that are not preferred workers would not have been cached either
            PageId other = new PageId("other", 0);
            cache.write("/other", other, ByteBuffer.wrap(TestingPages.content(other, PAGE_SIZE)), CacheReadContext.forTable("s", "t", false));
            assertThat(cache.read(other, 0, PAGE_SIZE, target, 0)).isZero();
            assertThat(stats.getDryRunWouldBeHits()).isEqualTo(10);
            assertThat(stats.getNotCachedNotPreferred()).isEqualTo(1);
        }
        assertThat(directory.resolve(TestingPages.CATALOG)).as("a dry run writes nothing to disk").doesNotExist();
    }
}
