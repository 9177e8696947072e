package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static com.google.common.util.concurrent.Uninterruptibles.awaitUninterruptibly;
import static io.overdrive.cache.page.PageFrame.CHUNK_SIZE;
import static io.overdrive.cache.page.TestingPages.CATALOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads write whole pages, fill pages in part (through {@code .fill} files), read, and flush files, over the
 * same files the restore is walking, with far more pages on disk than fit: the restore finds its files evicted,
 * flushed, rewritten and filled under it. Half the operations go to the file the restore is at, and the restore pauses
 * a random moment after each listing and before each read, so that the races happen often within a short run. Afterwards the model's invariants hold: every page file on disk is registered
 * (or gone), the pages fit the directory, every hit had the bytes that were put, no directory was taken out of use (one
 * I/O error would do it here) and the restore neither failed nor stopped early.
 */
class TestPageRestoreStress
{
    // two chunks: pages written in part are filled in through .fill files
    private static final int PAGE_SIZE = 2 * CHUNK_SIZE;
    private static final int FILES = 150;
    private static final int PAGES_PER_FILE = 4;
    // room for about half of the earlier run's pages
    private static final long CAPACITY = 300L * PageFrame.frameLength(PAGE_SIZE);
    private static final int THREADS = 8;
    private static final long MIN_RUN_NANOS = MILLISECONDS.toNanos(300);
    private static final long MAX_RUN_NANOS = SECONDS.toNanos(3);

    @TempDir
    Path directory;

    @Test
    void writesFillsReadsAndFlushesWhileTheRestoreRuns()
            throws Exception
    {
        seed();
        PageCacheStats stats = new PageCacheStats();
        CountDownLatch restoreMayStart = new CountDownLatch(1);
        AtomicLong hits = new AtomicLong();
        AtomicReference<String> restoring = new AtomicReference<>("file-0");
        PageRestore.Hooks hooks = new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                if (folder.getFileName().toString().startsWith("file-")) {
                    restoring.set(folder.getFileName().toString());
                }
                pause();
            }

            @Override
            public void beforeRead(Path pageFile)
            {
                pause();
            }
        };
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        try (LocalPageCache cache = new LocalPageCache(CATALOG, config(), stats, () -> awaitUninterruptibly(restoreMayStart), hooks)) {
            CountDownLatch started = new CountDownLatch(THREADS);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                long seed = thread;
                futures.add(executor.submit(() -> {
                    Random random = new Random(seed);
                    started.countDown();
                    long start = System.nanoTime();
                    // until the restore is over and a while after, within a bound
                    while (System.nanoTime() - start < MAX_RUN_NANOS && (stats.getRestoresRunning() > 0 || System.nanoTime() - start < MIN_RUN_NANOS)) {
                        String fileId = random.nextBoolean() ? restoring.get() : "file-" + random.nextInt(FILES * 2);
                        operate(cache, random, fileId, hits);
                    }
                    return null;
                }));
            }
            started.await();
            restoreMayStart.countDown();
            for (Future<?> future : futures) {
                future.get(1, MINUTES);
            }
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();

            assertThat(stats.getRestoresFailed()).isZero();
            assertThat(stats.getRestoreProgress()).isEqualTo(1.0);
            assertThat(stats.getDirectoriesDisabled()).isZero();
            assertThat(stats.getDirectoriesOutOfUse()).isZero();
            assertThat(stats.getGetErrors()).isZero();
            assertThat(stats.getPutErrors()).isZero();
            TestingPages.assertEveryPageFileRegistered(cache, directory);
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(cache.directories().getFirst().capacityBytes());
            // every page of every file: whatever is served has its bytes
            for (int file = 0; file < FILES * 2; file++) {
                for (int index = 0; index < PAGES_PER_FILE; index++) {
                    read(cache, new PageId("file-" + file, index), 0, PAGE_SIZE, hits);
                }
            }
            // it did race: the restore found pages, and pages were served, filled in and evicted meanwhile
            assertThat(stats.getPagesRestored()).isPositive();
            assertThat(hits.get()).isPositive();
            assertThat(stats.getPartialPageWrites()).isPositive();
            assertThat(stats.getBytesEvicted()).isPositive();
        }
        finally {
            restoreMayStart.countDown();
            executor.shutdownNow();
        }
    }

    // one random operation on a page of the file
    private static void operate(LocalPageCache cache, Random random, String fileId, AtomicLong hits)
    {
        PageId pageId = new PageId(fileId, random.nextInt(PAGES_PER_FILE));
        byte[] content = TestingPages.content(pageId, PAGE_SIZE);
        int choice = random.nextInt(100);
        if (choice < 35) {
            read(cache, pageId, 0, PAGE_SIZE, hits);
        }
        else if (choice < 50) {
            int chunk = random.nextInt(2);
            read(cache, pageId, chunk * CHUNK_SIZE, CHUNK_SIZE, hits);
        }
        else if (choice < 70) {
            // what a reader that needed one chunk fetched: a partial page, or a fill of one
            int chunk = random.nextInt(2);
            cache.writePart(TestingPages.path(fileId), pageId, PAGE_SIZE, chunk * CHUNK_SIZE, ByteBuffer.wrap(content, chunk * CHUNK_SIZE, CHUNK_SIZE), TestingPages.context(fileId));
        }
        else if (choice < 95) {
            cache.write(TestingPages.path(fileId), pageId, ByteBuffer.wrap(content), TestingPages.context(fileId));
        }
        else {
            // a flush of the file (its pages restored or not yet)
            cache.expire(TestingPages.path(fileId));
        }
    }

    // up to half a millisecond: the cache's threads act meanwhile
    private static void pause()
    {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(500_000));
    }

    private static void read(LocalPageCache cache, PageId pageId, int offset, int length, AtomicLong hits)
    {
        byte[] target = new byte[length];
        int read = cache.read(pageId, offset, length, target, 0);
        if (read > 0) {
            assertThat(read).as("page %s", pageId).isEqualTo(length);
            assertThat(target).as("page %s from %s", pageId, offset).isEqualTo(Arrays.copyOfRange(TestingPages.content(pageId, PAGE_SIZE), offset, offset + length));
            hits.incrementAndGet();
        }
    }

    // an earlier run's pages, far more than fit now, with .fill files it left behind, written an hour ago
    private void seed()
            throws Exception
    {
        try (LocalPageCache cache = new LocalPageCache(CATALOG, TestingPages.config(10L * FILES * PAGES_PER_FILE * PAGE_SIZE, directory).setPageSize(DataSize.ofBytes(PAGE_SIZE)), new PageCacheStats())) {
            for (int file = 0; file < FILES; file++) {
                String fileId = "file-" + file;
                for (int index = 0; index < PAGES_PER_FILE; index++) {
                    PageId pageId = new PageId(fileId, index);
                    cache.write(TestingPages.path(fileId), pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), TestingPages.context(fileId));
                }
            }
        }
        List<Path> pageFiles = TestingPages.pageFiles(directory);
        assertThat(pageFiles).hasSize(FILES * PAGES_PER_FILE);
        for (int index = 0; index < pageFiles.size(); index += 7) {
            Path pageFile = pageFiles.get(index);
            Files.copy(pageFile, pageFile.resolveSibling(pageFile.getFileName() + ".fill"));
        }
        TestingPages.writtenAnHourAgo(directory);
    }

    private PageCacheConfig config()
    {
        return TestingPages.config(CAPACITY, directory)
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setDirectoryFailureThreshold(1);
    }
}
