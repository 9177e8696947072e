package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code cache.ttl}: a page older than the TTL is never served, and its space is freed within a tenth of the TTL (at
 * least one second) by the background sweep, not an hour later as with Alluxio's default check interval.
 */
class TestPageCacheTtl
{
    @TempDir
    Path directory;

    @Test
    void expiredPagesAreNeverServedAndTheirSpaceIsFreedSoon()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, directory).setTtl(new Duration(3, SECONDS)), stats)) {
            PageId pageId = new PageId("file", 0);
            cache.write("/file", pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), CacheReadContext.UNKNOWN);
            long written = System.nanoTime();
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).isEqualTo(PAGE_SIZE);
            assertThat(stats.getBytesCached()).isPositive();

            // served until the TTL; never after
            while (System.nanoTime() - written < SECONDS.toNanos(2)) {
                Thread.sleep(100);
            }
            while (true) {
                // the page was written before `written` and its age is checked after `before`: a hit proves its age was
                // below the TTL at some instant after `before`, whatever the scheduler does around the read
                long before = System.nanoTime();
                if (before - written >= SECONDS.toNanos(6) || cache.read(pageId, 0, PAGE_SIZE, target, 0) == 0) {
                    break;
                }
                assertThat(before - written).as("a hit must come before the TTL").isLessThan(SECONDS.toNanos(3) + SECONDS.toNanos(1) / 2);
                Thread.sleep(50);
            }
            assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).isZero();

            // a page written and never read again is swept within the sweep interval (1s here)
            PageId unread = new PageId("unread", 0);
            cache.write("/unread", unread, ByteBuffer.wrap(TestingPages.content(unread, PAGE_SIZE)), CacheReadContext.UNKNOWN);
            long unreadWritten = System.nanoTime();
            assertThat(stats.getBytesCached()).isPositive();
            while (stats.getBytesCached() > 0) {
                // the sweep frees it about TTL + sweep interval after the write; the bound only catches a sweep that never
                // comes, with room for a machine too loaded to run the sweeper on time
                assertThat(System.nanoTime() - unreadWritten).as("swept, not only refused on read").isLessThan(SECONDS.toNanos(3 + 1 + 60));
                Thread.sleep(100);
            }
            assertThat(AlluxioCacheOptions.ttlSweepSeconds(new Duration(7, java.util.concurrent.TimeUnit.DAYS))).isEqualTo(600);
            assertThat(AlluxioCacheOptions.ttlSweepSeconds(new Duration(1, java.util.concurrent.TimeUnit.HOURS))).isEqualTo(360);
        }
    }
}
