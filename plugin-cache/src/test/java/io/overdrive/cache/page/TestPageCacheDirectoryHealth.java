package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static com.google.common.collect.MoreCollectors.onlyElement;
import static com.google.common.util.concurrent.Uninterruptibles.awaitUninterruptibly;
import static com.google.common.io.MoreFiles.deleteRecursively;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MINUTES;
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
        refusedPutsAreNotDiskFailures(false);
        refusedPutsAreNotDiskFailures(true);
    }

    private void refusedPutsAreNotDiskFailures(boolean background)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        // threads that miss the same page at once write it at once: the cache manager refuses all but one; a small
        // cache makes eviction races likely too. Background writes serve a page waiting for the disk, so fewer race
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(40 * PAGE_SIZE, first.resolve("background-" + background))
                .setAsyncWriteEnabled(background)
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
            assertThat(cache.awaitWrites(new Duration(1, MINUTES))).isTrue();

            if (!background) {
                assertThat(stats.getPutsRefused()).as("the cache manager declined pages").isGreaterThan(3);
            }
            else {
                assertThat(stats.getBackgroundWrites()).isPositive();
            }
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

    @Test
    void interruptedWritesAreNotDiskFailures()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(200 * PAGE_SIZE, first).setDirectoryFailureThreshold(1), stats)) {
            List<PageId> pages = new ArrayList<>();
            for (int file = 0; file < 20; file++) {
                // a split cancelled as it caches a file's first page: the file's record is being written
                PageId firstPage = new PageId("file-" + file, 0);
                Thread.currentThread().interrupt();
                write(cache, firstPage);
                assertThat(Thread.interrupted()).as("the interrupt is left for the reader").isTrue();
                write(cache, firstPage);
                // and as it caches a later page: the page file itself is being written (by Alluxio)
                PageId laterPage = new PageId("file-" + file, 1);
                Thread.currentThread().interrupt();
                write(cache, laterPage);
                assertThat(Thread.interrupted()).isTrue();
                pages.add(firstPage);
            }
            assertThat(stats.getDirectoriesDisabled()).as("interrupts took the directory out of use").isZero();
            assertThat(stats.getDirectoriesOutOfUse()).isZero();
            assertThat(stats.getPutErrors()).isZero();
            assertThat(stats.getPutsInterrupted()).isEqualTo(40);
            assertThat(stats.getPutsRefused()).isZero();
            assertThat(stats.getPagesWritten()).isEqualTo(20);
            assertReadsBackAll(cache, pages);
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(new PageId("file-0", 1), 0, PAGE_SIZE, target, 0)).as("an interrupted write caches nothing").isZero();
        }
    }

    @Test
    void writersInterruptedAtRandomNeverTakeTheDirectoryOutOfUse()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(400 * PAGE_SIZE, first).setDirectoryFailureThreshold(1), stats)) {
            ExecutorService executor = Executors.newFixedThreadPool(THREADS);
            List<Thread> writers = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch started = new CountDownLatch(THREADS);
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                futures.add(executor.submit(() -> {
                    writers.add(Thread.currentThread());
                    started.countDown();
                    awaitUninterruptibly(started);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    byte[] target = new byte[PAGE_SIZE];
                    for (int operation = 0; operation < 1_000; operation++) {
                        PageId pageId = new PageId("file-" + random.nextInt(40), random.nextInt(8));
                        if (random.nextInt(4) == 0) {
                            // interrupted by itself, for sure, as well as by the interrupter at random
                            Thread.currentThread().interrupt();
                        }
                        int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                        if (read > 0) {
                            assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, TestingPages.length(pageId)));
                        }
                        else {
                            write(cache, pageId);
                        }
                        var _ = Thread.interrupted();
                    }
                    return null;
                }));
            }
            Thread interrupter = Thread.ofPlatform().start(() -> {
                awaitUninterruptibly(started);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!done.get()) {
                    writers.get(random.nextInt(writers.size())).interrupt();
                    Thread.onSpinWait();
                }
            });
            try {
                for (Future<?> future : futures) {
                    future.get(2, java.util.concurrent.TimeUnit.MINUTES);
                }
            }
            finally {
                done.set(true);
                interrupter.join();
                executor.shutdownNow();
            }
            assertThat(stats.getDirectoriesDisabled()).as("interrupts took the directory out of use").isZero();
            assertThat(stats.getPutErrors()).isZero();
            assertThat(stats.getPutsInterrupted()).isPositive();
            assertThat(stats.getGetErrors()).isZero();
            assertThat(stats.getHits()).isPositive();
        }
    }

    @Test
    void interruptsAreNotDiskFailures()
    {
        PageCacheStats stats = new PageCacheStats();
        DirectoryHealth health = new DirectoryHealth(first, 1, new Duration(1, SECONDS), Ticker.systemTicker(), stats);
        health.failed("write", new IOException("Failed to write file", new ClosedByInterruptException()));
        health.failed("read", new ClosedByInterruptException());
        health.failed("read", new InterruptedIOException());
        health.failed("read", new UncheckedIOException(new IOException("wrapped", new ClosedByInterruptException())));
        Thread.currentThread().interrupt();
        try {
            health.failed("restore", new IOException("failed while this thread was interrupted"));
        }
        finally {
            assertThat(Thread.interrupted()).isTrue();
        }
        assertThat(health.isEnabled()).isTrue();
        assertThat(stats.getDirectoriesDisabled()).isZero();

        health.failed("read", new IOException("Input/output error"));
        assertThat(health.isEnabled()).isFalse();
    }

    @Test
    void cachedPagesAreReadableByTheTrinoUserOnly()
            throws Exception
    {
        // a catalog directory an earlier version created with the umask's permissions
        Path catalogDirectory = Files.createDirectories(TestingPages.catalogDirectory(first), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Set<PosixFilePermission> basePermissions = Files.getPosixFilePermissions(first);
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first, second), new PageCacheStats())) {
            for (int file = 0; file < 10; file++) {
                writeTablePage(cache, new PageId("file-" + file, 0));
            }
            for (Path base : List.of(first, second)) {
                Path directory = TestingPages.catalogDirectory(base);
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory))).as("%s", directory).isEqualTo("rwx------");
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve(DirectoryOwner.FILE_NAME)))).isEqualTo("rw-------");
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve(DirectoryOwner.LOCK_FILE_NAME)))).isEqualTo("rw-------");
                try (Stream<Path> files = Files.walk(directory.resolve(CachedFiles.DIRECTORY))) {
                    List<Path> records = files.filter(Files::isRegularFile).toList();
                    assertThat(records).isNotEmpty();
                    for (Path record : records) {
                        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(record))).as("%s", record).isEqualTo("rw-------");
                    }
                }
            }
        }
        assertThat(Files.getPosixFilePermissions(catalogDirectory)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(first)).as("cache.base-directory itself is the operator's").isEqualTo(basePermissions);
    }

    enum Flush
    {
        EXPIRE,
        INVALIDATE_PATHS,
        DELETE_FILE,
    }

    @ParameterizedTest
    @EnumSource(Flush.class)
    void fileFlushedWhileItsDirectoryIsOutOfUseIsNeverServedAgain(Flush flush)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        // probes only when the test says so
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first, second)
                .setDirectoryRetryInterval(new Duration(1, HOURS)), stats)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            PageId pageId = new PageId("file-0", 0);
            String path = TestingPages.path(pageId.getFileId());
            writeTablePage(cache, pageId);
            PageStoreDirectory home = cache.directories().stream()
                    .filter(directory -> directory.hasPages(pageId.getFileId()))
                    .collect(onlyElement());
            assertHit(cache, pageId);

            // its disk fails: the file moves to its second choice, and is cached there too
            home.health().disable("the test takes it out of use");
            assertThat(cache.read(pageId, 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).isZero();
            writeTablePage(cache, pageId);
            assertHit(cache, pageId);

            switch (flush) {
                case EXPIRE -> cache.expire(path);
                case INVALIDATE_PATHS -> cache.invalidatePaths(candidate -> candidate.startsWith("/warehouse/s/"));
                case DELETE_FILE -> cache.deleteFile(pageId.getFileId());
            }
            assertThat(cache.read(pageId, 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).isZero();

            // the disk works again: the file's first choice is back in use, and must not serve the flushed page
            home.health().restore();
            assertThat(cache.directories()).allMatch(PageStoreDirectory::isEnabled);
            assertThat(cache.read(pageId, 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).as("flushed while its directory was out of use").isZero();
            assertThat(cache.contains(pageId)).isFalse();
            assertThat(cache.directories()).noneMatch(directory -> directory.hasPages(pageId.getFileId()));

            // and a restart does not bring it back either
        }
        PageCacheStats restarted = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first, second), restarted)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            assertThat(restarted.getPagesRestored()).isZero();
            assertThat(cache.read(new PageId("file-0", 0), 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).isZero();
        }
    }

    private static void writeTablePage(PageCache cache, PageId pageId)
    {
        cache.write(TestingPages.path(pageId.getFileId()), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), TestingPages.context(pageId.getFileId()));
    }

    private static void assertHit(PageCache cache, PageId pageId)
    {
        assertReadsBackAll(cache, List.of(pageId));
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
