package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Background writes ({@code cache.async-write-enabled}): the writers are held back on purpose so that pages wait for
 * the disk while the test reads, flushes, fills the buffer, damages a page on disk and closes the cache.
 */
class TestBackgroundWrites
{
    private static final Duration TIMEOUT = new Duration(1, MINUTES);

    @TempDir
    Path directory;

    @Test
    void pageWaitingForTheDiskIsServedFromItsBytes()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(DataSize.of(64, DataSize.Unit.MEGABYTE)), stats)) {
            CountDownLatch release = holdWriters(cache);
            PageId pageId = new PageId("file", 3);
            byte[] page = TestingPages.content(pageId, PAGE_SIZE);
            ByteBuffer buffer = ByteBuffer.wrap(page.clone());
            cache.write("/file", pageId, buffer, CacheReadContext.UNKNOWN);
            // the caller's buffer is the caller's again once write() returns
            Arrays.fill(buffer.array(), (byte) 7);
            assertThat(TestingPages.pageFiles(directory)).isEmpty();
            assertThat(cache.contains(pageId)).isTrue();
            assertThat(stats.getWriteBufferBytes()).isEqualTo(PAGE_SIZE + BackgroundWrites.WRITE_OVERHEAD);
            byte[] target = new byte[100];
            assertThat(cache.read(pageId, 1000, 100, target, 0)).isEqualTo(100);
            assertThat(target).isEqualTo(Arrays.copyOfRange(page, 1000, 1100));
            assertThat(stats.getWriteBufferHits()).isEqualTo(1);

            release.countDown();
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(TestingPages.pageFiles(directory)).hasSize(1);
            assertThat(stats.getBackgroundWrites()).isEqualTo(1);
            assertThat(stats.getPagesWritten()).isEqualTo(1);
            assertThat(stats.getWriteBufferBytes()).isZero();
            byte[] whole = new byte[PAGE_SIZE];
            assertThat(cache.read(pageId, 0, PAGE_SIZE, whole, 0)).isEqualTo(PAGE_SIZE);
            assertThat(whole).isEqualTo(page);
            assertThat(stats.getWriteBufferHits()).as("read from disk").isEqualTo(1);
            TestingPages.assertEveryPageFileRegistered(cache, directory);
        }
    }

    @Test
    void partsOfAPageWaitingTogetherAreWrittenAsOneFill()
            throws Exception
    {
        int chunk = PageFrame.CHUNK_SIZE;
        PageCacheStats stats = new PageCacheStats();
        PageCacheConfig config = config(DataSize.of(64, DataSize.Unit.MEGABYTE)).setPageSize(DataSize.ofBytes(4L * chunk));
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            PageId pageId = new PageId("file", 0);
            int pageLength = 4 * chunk - 100;
            byte[] page = TestingPages.content(pageId, pageLength);
            // chunk 0 written first, alone: a partial page on disk
            cache.writePart("/file", pageId, pageLength, 0, ByteBuffer.wrap(page, 0, chunk), CacheReadContext.UNKNOWN);
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            CountDownLatch release = holdWriters(cache);
            // chunks 1 and 3 wait together, then are added to the page on disk by one fill on a background writer
            cache.writePart("/file", pageId, pageLength, chunk, ByteBuffer.wrap(page, chunk, chunk), CacheReadContext.UNKNOWN);
            cache.writePart("/file", pageId, pageLength, 3 * chunk, ByteBuffer.wrap(page, 3 * chunk, pageLength - 3 * chunk), CacheReadContext.UNKNOWN);
            assertThat(stats.getWriteBufferBytes()).as("one write").isEqualTo(pageLength + BackgroundWrites.WRITE_OVERHEAD);
            byte[] target = new byte[pageLength];
            assertThat(cache.contains(pageId, chunk, 2 * chunk)).isTrue();
            assertThat(cache.read(pageId, chunk + 10, chunk - 10, target, 0)).as("from the waiting chunks").isEqualTo(chunk - 10);
            assertThat(Arrays.copyOf(target, chunk - 10)).isEqualTo(Arrays.copyOfRange(page, chunk + 10, 2 * chunk));
            assertThat(cache.read(pageId, 2 * chunk, 10, target, 0)).as("chunk 2 was never fetched").isZero();
            release.countDown();
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(stats.getPartialPageWrites()).isEqualTo(2);
            assertThat(cache.read(pageId, 0, 2 * chunk, target, 0)).isEqualTo(2 * chunk);
            assertThat(Arrays.copyOf(target, 2 * chunk)).isEqualTo(Arrays.copyOf(page, 2 * chunk));
            assertThat(cache.read(pageId, 3 * chunk, chunk, target, 0)).isEqualTo(pageLength - 3 * chunk);
            assertThat(cache.read(pageId, 2 * chunk, 10, target, 0)).isZero();

            // the missing chunk: the page is whole, from the disk
            cache.writePart("/file", pageId, pageLength, 2 * chunk, ByteBuffer.wrap(page, 2 * chunk, chunk), CacheReadContext.UNKNOWN);
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(cache.read(pageId, 0, pageLength, target, 0)).isEqualTo(pageLength);
            assertThat(target).isEqualTo(page);
            assertThat(cache.contains(pageId)).isTrue();
            assertThat(stats.getChecksumFailures() + stats.getCorruptPages()).isZero();
        }
    }

    @Test
    void partHandedOverBehindAWriteInProgressHoldsItsChunksToo()
            throws Exception
    {
        int chunk = PageFrame.CHUNK_SIZE;
        PageCacheStats stats = new PageCacheStats();
        PageCacheConfig config = config(DataSize.of(64, DataSize.Unit.MEGABYTE)).setPageSize(DataSize.ofBytes(4L * chunk));
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            PageId pageId = new PageId("file", 0);
            int pageLength = 4 * chunk;
            byte[] page = TestingPages.content(pageId, pageLength);
            cache.writePart("/file", pageId, pageLength, 0, ByteBuffer.wrap(page, 0, chunk), CacheReadContext.UNKNOWN);
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            // chunk 1's fill held between writing its new frame and renaming it over the page
            CountDownLatch inFill = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            cache.directories().getFirst().setBeforeFillRename(_ -> {
                inFill.countDown();
                try {
                    release.await();
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            cache.writePart("/file", pageId, pageLength, chunk, ByteBuffer.wrap(page, chunk, chunk), CacheReadContext.UNKNOWN);
            assertThat(inFill.await(1, MINUTES)).isTrue();
            cache.writePart("/file", pageId, pageLength, 2 * chunk, ByteBuffer.wrap(page, 2 * chunk, chunk), CacheReadContext.UNKNOWN);
            // chunks 1 and 2 together: the disk has chunk 0 only until the fill renames
            byte[] target = new byte[2 * chunk];
            assertThat(cache.read(pageId, chunk, 2 * chunk, target, 0)).isEqualTo(2 * chunk);
            assertThat(target).isEqualTo(Arrays.copyOfRange(page, chunk, 3 * chunk));
            assertThat(stats.getWriteBufferHits()).isEqualTo(1);
            release.countDown();
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            target = new byte[3 * chunk];
            assertThat(cache.read(pageId, 0, 3 * chunk, target, 0)).as("chunks 0 to 2 on disk").isEqualTo(3 * chunk);
            assertThat(target).isEqualTo(Arrays.copyOf(page, 3 * chunk));
            assertThat(cache.read(pageId, 3 * chunk, chunk, target, 0)).as("chunk 3 never fetched").isZero();
            assertThat(stats.getWriteBufferHits()).isEqualTo(1);
        }
    }

    @Test
    void flushWhileWaitingNeverBringsThePageBack()
            throws Exception
    {
        assertFlushWhileWaiting("deleteFile", cache -> cache.deleteFile("gone"));
        assertFlushWhileWaiting("expire", cache -> cache.expire("/warehouse/gone"));
        assertFlushWhileWaiting("invalidatePaths", cache -> cache.invalidatePaths(path -> path.startsWith("/warehouse/g")));
        assertFlushWhileWaiting("invalidateAll", LocalPageCache::invalidateAll);
    }

    private void assertFlushWhileWaiting(String flush, Consumer<LocalPageCache> flushing)
            throws Exception
    {
        Path base = directory.resolve(flush);
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(base, DataSize.of(64, DataSize.Unit.MEGABYTE)), stats)) {
            // page 0 on disk, pages 1 to 9 waiting (two of them taken by the writers, held before they write)
            write(cache, "/warehouse/gone", new PageId("gone", 0));
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            CountDownLatch release = holdWriters(cache);
            for (int page = 1; page < 10; page++) {
                write(cache, "/warehouse/gone", new PageId("gone", page));
            }
            assertThat(cache.contains(new PageId("gone", 5))).isTrue();
            flushing.accept(cache);
            assertThat(stats.getWriteBufferBytes()).as(flush).isZero();
            for (int page = 0; page < 10; page++) {
                assertThat(cache.contains(new PageId("gone", page))).as(flush).isFalse();
            }
            release.countDown();
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(TestingPages.pageFiles(base)).as(flush).isEmpty();
            byte[] target = new byte[PAGE_SIZE];
            for (int page = 0; page < 10; page++) {
                assertThat(cache.read(new PageId("gone", page), 0, PAGE_SIZE, target, 0)).as(flush).isZero();
            }
            assertThat(stats.getBackgroundWrites()).as(flush).isEqualTo(1);
        }
    }

    @Test
    void fullBufferDeclinesAndCounts()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        DataSize buffer = DataSize.of(1, DataSize.Unit.MEGABYTE);
        long fits = buffer.toBytes() / (PAGE_SIZE + BackgroundWrites.WRITE_OVERHEAD);
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(buffer), stats)) {
            CountDownLatch release = holdWriters(cache);
            long start = System.nanoTime();
            // pages of PAGE_SIZE bytes each
            for (int page = 0; page < fits + 50; page++) {
                cache.write("/file", new PageId("file", page), ByteBuffer.wrap(TestingPages.content(new PageId("file", page), PAGE_SIZE)), CacheReadContext.UNKNOWN);
            }
            // never waited for the held writers
            assertThat(System.nanoTime() - start).isLessThan(SECONDS.toNanos(20));
            assertThat(stats.getNotCachedWriteBufferFull()).isEqualTo(50);
            assertThat(stats.getWriteBufferBytes()).isEqualTo(fits * (PAGE_SIZE + BackgroundWrites.WRITE_OVERHEAD)).isLessThanOrEqualTo(buffer.toBytes());
            assertThat(cache.contains(new PageId("file", fits - 1))).isTrue();
            assertThat(cache.contains(new PageId("file", fits))).as("declined").isFalse();

            release.countDown();
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(stats.getPagesWritten()).isEqualTo(fits);
            assertThat(stats.getBackgroundWrites()).isEqualTo(fits);
            assertThat(stats.getWriteBufferBytes()).isZero();
            // room again
            write(cache, "/file", new PageId("file", fits));
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(stats.getPagesWritten()).isEqualTo(fits + 1);
            assertThat(stats.getNotCachedWriteBufferFull()).isEqualTo(50);
        }
    }

    @Test
    void closeDropsWaitingWritesPromptlyAndARestartRestoresOnlyWrittenPages()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(DataSize.of(64, DataSize.Unit.MEGABYTE)), stats);
        for (int page = 0; page < 10; page++) {
            write(cache, "/file", new PageId("file", page));
        }
        assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
        CountDownLatch release = holdWriters(cache);
        for (int page = 10; page < 60; page++) {
            write(cache, "/file", new PageId("file", page));
        }
        // the writers held before their writes are let go a moment after the close began; it then drops every write
        Thread releaser = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(200);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            release.countDown();
        });
        long start = System.nanoTime();
        cache.close();
        assertThat(System.nanoTime() - start).as("close waits only for the writes in progress").isLessThan(SECONDS.toNanos(5));
        releaser.join();
        assertThat(stats.getPagesWritten()).as("nothing written once the close began").isEqualTo(10);
        assertThat(stats.getWriteBufferBytes()).isZero();
        assertThat(TestingPages.pageFiles(directory)).hasSize(10);

        PageCacheStats reopened = new PageCacheStats();
        try (LocalPageCache restarted = new LocalPageCache(TestingPages.CATALOG, config(DataSize.of(64, DataSize.Unit.MEGABYTE)), reopened)) {
            assertThat(restarted.awaitRestore(TIMEOUT)).isTrue();
            byte[] target = new byte[PAGE_SIZE];
            for (int page = 0; page < 60; page++) {
                PageId pageId = new PageId("file", page);
                int read = restarted.read(pageId, 0, PAGE_SIZE, target, 0);
                if (page < 10) {
                    assertThat(read).isEqualTo(TestingPages.length(pageId));
                    assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, read));
                }
                else {
                    assertThat(read).as("page %s never reached the disk", page).isZero();
                }
            }
            assertThat(reopened.getRestoreDiscardedCorrupt()).isZero();
            assertThat(reopened.getPagesRestored() + reopened.getPagesRestoredOnRead()).isEqualTo(10);
            TestingPages.assertEveryPageFileRegistered(restarted, directory);
        }
    }

    @Test
    void damagedPageOnDiskWhileAnotherPageOfTheFileWaits()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(DataSize.of(64, DataSize.Unit.MEGABYTE)), stats)) {
            PageId damaged = new PageId("file", 0);
            PageId waiting = new PageId("file", 1);
            write(cache, "/file", damaged);
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            Path file = cache.directories().getFirst().pagePath(damaged).orElseThrow();
            try (FileChannel channel = FileChannel.open(file, READ, WRITE)) {
                ByteBuffer bytes = ByteBuffer.allocate(8);
                channel.read(bytes, 100);
                for (int i = 0; i < 8; i++) {
                    bytes.put(i, (byte) ~bytes.get(i));
                }
                channel.write(bytes.flip(), 100);
            }
            CountDownLatch release = holdWriters(cache);
            write(cache, "/file", waiting);
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(damaged, 0, PAGE_SIZE, target, 0)).as("damaged: a miss").isZero();
            assertThat(stats.getChecksumFailures()).isEqualTo(1);
            assertThat(cache.read(waiting, 0, PAGE_SIZE, target, 0)).isEqualTo(TestingPages.length(waiting));
            assertThat(Arrays.copyOf(target, TestingPages.length(waiting))).isEqualTo(TestingPages.content(waiting, TestingPages.length(waiting)));
            release.countDown();
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(cache.read(waiting, 0, PAGE_SIZE, target, 0)).as("from the disk").isEqualTo(TestingPages.length(waiting));
            assertThat(Arrays.copyOf(target, TestingPages.length(waiting))).isEqualTo(TestingPages.content(waiting, TestingPages.length(waiting)));
            assertThat(stats.getWriteBufferHits()).isEqualTo(1);
            assertThat(cache.read(damaged, 0, PAGE_SIZE, target, 0)).as("deleted").isZero();
            // cached again by the read that missed it
            write(cache, "/file", damaged);
            assertThat(cache.awaitWrites(TIMEOUT)).isTrue();
            assertThat(cache.read(damaged, 0, PAGE_SIZE, target, 0)).isEqualTo(PAGE_SIZE);
            assertThat(target).isEqualTo(TestingPages.content(damaged, PAGE_SIZE));
            TestingPages.assertEveryPageFileRegistered(cache, directory);
        }
    }

    @Test
    void backgroundWritersAreNamedAfterTheCatalog()
            throws Exception
    {
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(DataSize.of(64, DataSize.Unit.MEGABYTE)), new PageCacheStats())) {
            List<String> names = new ArrayList<>();
            CountDownLatch written = new CountDownLatch(1);
            cache.backgroundWrites().setBeforeWrite(_ -> {
                names.add(Thread.currentThread().getName());
                written.countDown();
            });
            write(cache, "/file", new PageId("file", 0));
            assertThat(written.await(1, MINUTES)).isTrue();
            assertThat(names).singleElement().asString().startsWith("overdrive-cache-write-" + TestingPages.CATALOG + "-");
            assertThat(Thread.getAllStackTraces().keySet()).filteredOn(thread -> thread.getName().startsWith("overdrive-cache-write-" + TestingPages.CATALOG))
                    .allMatch(Thread::isDaemon);
        }
    }

    private static void write(LocalPageCache cache, String path, PageId pageId)
    {
        cache.write(path, pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), CacheReadContext.UNKNOWN);
    }

    // every background writer waits before its next write until the latch is released
    private static CountDownLatch holdWriters(LocalPageCache cache)
    {
        CountDownLatch release = new CountDownLatch(1);
        cache.backgroundWrites().setBeforeWrite(_ -> {
            try {
                release.await();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return release;
    }

    private PageCacheConfig config(DataSize buffer)
    {
        return config(directory, buffer);
    }

    private static PageCacheConfig config(Path base, DataSize buffer)
    {
        return TestingPages.config(1000 * PAGE_SIZE, base)
                .setAsyncWriteEnabled(true)
                .setAsyncWriteBufferSize(buffer);
    }
}
