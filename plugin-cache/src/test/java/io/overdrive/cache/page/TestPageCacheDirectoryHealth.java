package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import static com.google.common.io.MoreFiles.deleteRecursively;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only real I/O failures take a directory out of use, and a directory out of use comes back once it works.
 */
class TestPageCacheDirectoryHealth
{
    private static final int THREADS = 16;

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void refusedPutsAreNotDiskFailures()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        // asynchronous writes refuse a page already queued; a small cache makes eviction races likely too
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(40 * PAGE_SIZE, first)
                .setAsyncWriteEnabled(true)
                .setDirectoryFailureThreshold(3), stats)) {
            ExecutorService executor = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                futures.add(executor.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    byte[] target = new byte[PAGE_SIZE];
                    for (int operation = 0; operation < 2_000; operation++) {
                        // every thread reads the same few hot pages and caches them on a miss
                        PageId pageId = new PageId("file-" + random.nextInt(3), random.nextInt(30));
                        int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                        if (read > 0) {
                            assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, TestingPages.length(pageId)));
                        }
                        else {
                            cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), CacheReadContext.UNKNOWN);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
            executor.shutdownNow();
            // let the background writes drain before the directory goes away
            long written;
            do {
                written = stats.getPagesWritten();
                Thread.sleep(300);
            }
            while (stats.getPagesWritten() != written);

            assertThat(stats.getPutsRefused()).as("the cache manager declined pages").isGreaterThan(3);
            assertThat(stats.getPutErrors()).isZero();
            assertThat(stats.getDirectoriesDisabled()).as("refusals never take a healthy directory out of use").isZero();
            assertThat(stats.getDirectoriesOutOfUse()).isZero();
            assertThat(stats.getHits()).isPositive();
        }
    }

    @Test
    void directoryOutOfUseIsProbedAndComesBack()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(200 * PAGE_SIZE, first, second)
                .setDirectoryFailureThreshold(2)
                .setDirectoryRetryInterval(new Duration(1, SECONDS)), stats)) {
            List<PageId> pages = new ArrayList<>();
            for (int file = 0; file < 20; file++) {
                for (int page = 0; page < 2; page++) {
                    pages.add(new PageId("file-" + file, page));
                }
            }
            // the first directory's disk goes bad: nothing can be written there any more
            Path local = TestingPages.catalogDirectory(first).resolve("LOCAL");
            deleteRecursively(local);
            Files.writeString(local, "in the way");
            pages.forEach(pageId -> write(cache, pageId));
            assertThat(stats.getDirectoriesDisabled()).isEqualTo(1);
            assertThat(stats.getDirectoriesOutOfUse()).isEqualTo(1);

            // while it is still bad, probes fail and it stays out; every read is right or a miss
            await(() -> stats.getDirectoryProbeFailures() > 0);
            assertThat(stats.getDirectoriesOutOfUse()).isEqualTo(1);
            pages.forEach(pageId -> write(cache, pageId));
            assertReadsBackAll(cache, pages);

            // the disk is replaced: the next probe puts the directory back in use, and it caches again
            Files.delete(local);
            await(() -> stats.getDirectoriesRestored() == 1);
            assertThat(stats.getDirectoriesOutOfUse()).isZero();
            long writtenBefore = stats.getPagesWritten();
            pages.forEach(pageId -> write(cache, pageId));
            assertThat(stats.getPagesWritten()).as("files that hash to the restored directory are cached there again").isGreaterThan(writtenBefore);
            assertThat(Files.isDirectory(local)).isTrue();
            assertReadsBackAll(cache, pages);
            assertThat(stats.getDirectoriesDisabled()).isEqualTo(1);
        }
    }

    @Test
    void catalogsSharingABaseDirectoryKeepTheirOwnPages()
            throws Exception
    {
        PageCacheStats lakeStats = new PageCacheStats();
        PageCacheStats otherStats = new PageCacheStats();
        PageId pageId = new PageId("same-file-id", 0);
        byte[] otherContent = new byte[PAGE_SIZE];
        Arrays.fill(otherContent, (byte) 7);
        try (LocalPageCache lake = new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, first), lakeStats);
                LocalPageCache other = new LocalPageCache("other", TestingPages.config(100 * PAGE_SIZE, first), otherStats)) {
            write(lake, pageId);
            other.write("/same-file-id", pageId, ByteBuffer.wrap(otherContent), CacheReadContext.UNKNOWN);
            byte[] target = new byte[PAGE_SIZE];
            assertThat(lake.read(pageId, 0, PAGE_SIZE, target, 0)).isEqualTo(PAGE_SIZE);
            assertThat(target).isEqualTo(TestingPages.content(pageId, PAGE_SIZE));
            assertThat(other.read(pageId, 0, PAGE_SIZE, target, 0)).isEqualTo(PAGE_SIZE);
            assertThat(target).isEqualTo(otherContent);

            // one catalog's flush leaves the other's pages alone
            other.invalidateAll();
            assertThat(lake.read(pageId, 0, PAGE_SIZE, target, 0)).isEqualTo(PAGE_SIZE);
            assertThat(lakeStats.getBytesCached()).isPositive();
        }
        // after a restart each restores its own pages only
        PageCacheStats restarted = new PageCacheStats();
        try (LocalPageCache lake = new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, first), restarted)) {
            assertThat(lake.awaitRestore(new Duration(60, SECONDS))).isTrue();
            assertThat(restarted.getBytesRecovered()).isEqualTo(PageFrame.frameLength(PAGE_SIZE));
        }
        assertThat(Files.isDirectory(first.resolve("lake"))).isTrue();
        assertThat(Files.isDirectory(first.resolve("other"))).isTrue();
    }

    @Test
    void secondCacheOnTheSameCatalogDirectoryFailsAtStartup()
            throws Exception
    {
        try (LocalPageCache _ = new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, first), new PageCacheStats())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, second, first), new PageCacheStats()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Overdrive cache directory %s is already in use by catalog 'lake'", first.resolve("lake"))
                    .hasMessageContaining("give each Trino process its own cache.base-directory");
        }
        // released on close: the next cache of the catalog starts
        new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, second, first), new PageCacheStats()).close();
    }

    @Test
    void directoryOfAnotherLiveProcessIsRefusedAndAStaleClaimTakenOver()
            throws Exception
    {
        Path owner = first.resolve("lake").resolve(DirectoryOwner.FILE_NAME);
        Files.createDirectories(owner.getParent());
        Process other = new ProcessBuilder("sleep", "60").start();
        try {
            ProcessHandle handle = other.toHandle();
            Files.writeString(owner, handle.pid() + " " + handle.info().startInstant().orElseThrow().toEpochMilli());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, first), new PageCacheStats()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is already in use by catalog 'lake' of the Trino process with pid " + handle.pid());
        }
        finally {
            other.destroyForcibly().waitFor();
        }
        // the same claim once that process is gone: taken over
        try (LocalPageCache cache = new LocalPageCache("lake", TestingPages.config(100 * PAGE_SIZE, first), new PageCacheStats())) {
            assertThat(Files.readString(owner)).startsWith(ProcessHandle.current().pid() + " ");
        }
        assertThat(Files.exists(owner)).as("the claim goes with the cache").isFalse();
    }

    private static void write(PageCache cache, PageId pageId)
    {
        cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), CacheReadContext.UNKNOWN);
    }

    private static void assertReadsBackAll(PageCache cache, List<PageId> pages)
    {
        byte[] target = new byte[PAGE_SIZE];
        for (PageId pageId : pages) {
            int length = TestingPages.length(pageId);
            assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).as("page %s", pageId).isEqualTo(length);
            assertThat(Arrays.copyOf(target, length)).isEqualTo(TestingPages.content(pageId, length));
        }
    }

    private static void await(BooleanSupplier condition)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 30s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
