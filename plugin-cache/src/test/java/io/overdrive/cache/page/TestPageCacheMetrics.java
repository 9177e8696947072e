package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static com.google.common.io.MoreFiles.deleteRecursively;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counters that must mean what their descriptions say: pages, not calls; bytes that reached the disk; eviction that
 * does not include what merely sits in a directory out of use.
 */
class TestPageCacheMetrics
{
    private static final int FRAME = PageFrame.frameLength(PAGE_SIZE);

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void deletionsCountPagesAndWritesCountWhatReachedTheDisk()
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first), stats)) {
            for (int page = 0; page < 5; page++) {
                write(cache, new PageId("file", page), CacheReadContext.UNKNOWN);
            }
            // the same page offered again (a footer read alone, then within a larger read) is not written twice
            write(cache, new PageId("file", 0), CacheReadContext.UNKNOWN);
            assertThat(stats.getPagesWritten()).isEqualTo(5);
            assertThat(stats.getBytesWritten()).isEqualTo(5L * FRAME);

            cache.deleteFile("file");
            assertThat(stats.getPagesDeleted()).as("one call, five pages").isEqualTo(5);
            assertThat(stats.getBytesCached()).isZero();
            assertThat(stats.getBytesEvicted()).isZero();

            for (int page = 0; page < 3; page++) {
                write(cache, new PageId("again", page), CacheReadContext.UNKNOWN);
            }
            cache.invalidateAll();
            assertThat(stats.getPagesDeleted()).isEqualTo(8);
            assertThat(stats.getBytesEvicted()).isZero();
        }
    }

    @Test
    void pagesInADirectoryOutOfUseAreNotEvicted()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first, second).setDirectoryFailureThreshold(1), stats)) {
            for (int file = 0; file < 10; file++) {
                write(cache, new PageId("file-" + file, 0), CacheReadContext.UNKNOWN);
            }
            long cachedBefore = stats.getBytesCached();
            PageStoreDirectory broken = cache.directories().getFirst();
            long inBroken = broken.usedBytes();
            assertThat(inBroken).isPositive();
            // a write to the first directory fails: it is taken out of use with its pages still on disk
            Path local = broken.path().resolve("LOCAL");
            deleteRecursively(local);
            Files.writeString(local, "in the way");
            for (int file = 10; file < 40 && stats.getDirectoriesOutOfUse() == 0; file++) {
                write(cache, new PageId("file-" + file, 0), CacheReadContext.UNKNOWN);
            }
            assertThat(stats.getDirectoriesOutOfUse()).isEqualTo(1);
            assertThat(stats.getBytesCached()).as("only directories in use serve").isLessThan(cachedBefore + 30L * FRAME - inBroken + 1);
            assertThat(stats.getBytesEvicted()).as("nothing left by eviction").isZero();
        }
    }

    @Test
    void readsOfNoKnownTableAreNotCachedWhenQuotasAreSet()
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first).setTableQuota(DataSize.of(1, DataSize.Unit.MEGABYTE)), stats)) {
            write(cache, new PageId("delete-delta", 0), CacheReadContext.UNKNOWN);
            assertThat(stats.getNotCachedNoTable()).isEqualTo(1);
            assertThat(stats.getPagesWritten()).isZero();
            write(cache, new PageId("data", 0), CacheReadContext.forTable("sales", "orders", true));
            assertThat(stats.getPagesWritten()).isEqualTo(1);
        }
        // without quotas they are cached like any read
        PageCacheStats noQuota = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, second), noQuota)) {
            write(cache, new PageId("delete-delta", 0), CacheReadContext.UNKNOWN);
            assertThat(noQuota.getNotCachedNoTable()).isZero();
            assertThat(noQuota.getPagesWritten()).isEqualTo(1);
        }
    }

    private static void write(PageCache cache, PageId pageId, CacheReadContext context)
    {
        cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), context);
    }
}
