package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Alluxio keeps a file's pages in a folder of their own and removes it with the file's last page
 * ({@code LocalPageStore.delete}), holding only that page's lock. Pages of the same file written meanwhile race with
 * that removal: a put finds the folder it just created gone, a removal finds the folder no longer empty. Neither is a
 * failing disk, so neither may count as an I/O error nor take the directory out of use (here after a single one).
 */
class TestPageCacheFolderRace
{
    private static final int THREADS = 8;
    private static final long RUN_NANOS = MILLISECONDS.toNanos(1500);

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void pagesWrittenWhileTheirFileIsDeleted()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(1000 * PAGE_SIZE, first).setDirectoryFailureThreshold(1), stats)) {
            run(thread -> {
                PageId pageId = hotPage();
                if (thread % 2 == 0) {
                    write(cache, pageId);
                }
                else {
                    cache.deleteFile(pageId.getFileId());
                }
            });
            assertNoFailure(stats);
        }
    }

    @Test
    void pagesWrittenWhileTheirFileIsEvicted()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        // room for two pages (Alluxio keeps 5% for file system overhead): every write evicts, often the last page of the file being written
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(3L * PageFrame.frameLength(PAGE_SIZE), second).setDirectoryFailureThreshold(1), stats)) {
            run(_ -> write(cache, hotPage()));
            assertThat(stats.getBytesEvicted()).isPositive();
            assertNoFailure(stats);
        }
    }

    private static void assertNoFailure(PageCacheStats stats)
    {
        assertThat(stats.getPagesWritten()).isPositive();
        assertThat(stats.getPutErrors()).isZero();
        assertThat(stats.getDirectoriesDisabled()).isZero();
        assertThat(stats.getDirectoriesOutOfUse()).isZero();
    }

    private static PageId hotPage()
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return new PageId("hot-" + random.nextInt(2), random.nextInt(2));
    }

    private static void write(PageCache cache, PageId pageId)
    {
        cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), CacheReadContext.UNKNOWN);
    }

    private static void run(ThreadOperation operation)
            throws Exception
    {
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        long deadline = System.nanoTime() + RUN_NANOS;
        List<Future<?>> futures = new ArrayList<>();
        for (int thread = 0; thread < THREADS; thread++) {
            int threadNumber = thread;
            futures.add(executor.submit(() -> {
                start.await();
                while (System.nanoTime() - deadline < 0) {
                    operation.run(threadNumber);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : futures) {
            future.get(1, MINUTES);
        }
        executor.shutdown();
        assertThat(executor.awaitTermination(1, MINUTES)).isTrue();
    }

    private interface ThreadOperation
    {
        void run(int thread);
    }
}
