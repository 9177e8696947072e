package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Background writes under many threads: writers of whole pages and of parts of pages, readers checking every byte
 * served (from a page waiting for the disk or from the disk), a flusher deleting, expiring and invalidating files, with
 * a cache a fraction of the data (eviction) and a buffer of a few dozen pages (full now and then). Nothing wrong is ever
 * served, no error, no damaged page; afterwards the buffer is empty, every page file on disk is registered, and a file
 * flushed while nobody writes it has no page left.
 */
class TestBackgroundWritesStress
{
    private static final int WRITERS = 4;
    private static final int READERS = 3;
    private static final int OPERATIONS = 4_000;
    private static final int FILES = 40;
    private static final int PAGES = 8;

    @TempDir
    Path directory;

    @Test
    void writersReadersFlushesAndEvictions()
            throws Exception
    {
        for (long seed = 1; seed <= 5; seed++) {
            run(seed);
        }
    }

    private void run(long seed)
            throws Exception
    {
        Path base = directory.resolve("seed-" + seed);
        PageCacheStats stats = new PageCacheStats();
        PageCacheConfig config = TestingPages.config(60 * PAGE_SIZE, base)
                .setAsyncWriteEnabled(true)
                .setAsyncWriteBufferSize(DataSize.of(1, DataSize.Unit.MEGABYTE));
        AtomicLong hits = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            // the writers are slowed now and then, so that pages wait and the buffer fills
            Random slow = new Random(seed);
            cache.backgroundWrites().setBeforeWrite(_ -> {
                boolean pause;
                synchronized (slow) {
                    pause = slow.nextInt(50) == 0;
                }
                if (pause) {
                    try {
                        Thread.sleep(5);
                    }
                    catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            ExecutorService executor = Executors.newFixedThreadPool(WRITERS + READERS + 1);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < WRITERS; thread++) {
                long threadSeed = seed * 100 + thread;
                futures.add(executor.submit(() -> {
                    start.await();
                    Random random = new Random(threadSeed);
                    for (int operation = 0; operation < OPERATIONS; operation++) {
                        PageId pageId = new PageId("file-" + random.nextInt(FILES), random.nextInt(PAGES));
                        int length = TestingPages.length(pageId);
                        byte[] page = TestingPages.content(pageId, length);
                        if (random.nextBoolean()) {
                            cache.write(TestingPages.path(pageId.getFileId()), pageId, ByteBuffer.wrap(page), TestingPages.context(pageId.getFileId()));
                        }
                        else {
                            // a part, from a buffer larger than the part whose other bytes are garbage
                            int from = random.nextInt(length);
                            int to = from + 1 + random.nextInt(length - from);
                            byte[] buffer = new byte[length + 20];
                            random.nextBytes(buffer);
                            System.arraycopy(page, from, buffer, 10 + from, to - from);
                            cache.writePart(TestingPages.path(pageId.getFileId()), pageId, length, from, ByteBuffer.wrap(buffer, 10 + from, to - from), TestingPages.context(pageId.getFileId()));
                            // the caller reuses its buffer at once
                            Arrays.fill(buffer, (byte) 0x5A);
                        }
                    }
                    return null;
                }));
            }
            for (int thread = 0; thread < READERS; thread++) {
                long threadSeed = seed * 1000 + thread;
                futures.add(executor.submit(() -> {
                    start.await();
                    Random random = new Random(threadSeed);
                    byte[] target = new byte[PAGE_SIZE];
                    while (!stop.get()) {
                        PageId pageId = new PageId("file-" + random.nextInt(FILES), random.nextInt(PAGES));
                        int length = TestingPages.length(pageId);
                        int offset = random.nextInt(length);
                        int wanted = 1 + random.nextInt(length - offset);
                        // asked beside the reads, for the races; a page contained may be evicted or flushed before the read
                        cache.contains(pageId, offset, offset + wanted);
                        int read = cache.read(pageId, offset, wanted, target, 0);
                        reads.incrementAndGet();
                        if (read > 0) {
                            hits.incrementAndGet();
                            assertThat(read).isEqualTo(wanted);
                            assertThat(Arrays.copyOf(target, read)).as("page %s from %s", pageId, offset).isEqualTo(Arrays.copyOfRange(TestingPages.content(pageId, length), offset, offset + read));
                        }
                    }
                    return null;
                }));
            }
            futures.add(executor.submit(() -> {
                start.await();
                Random random = new Random(seed * 7);
                while (!stop.get()) {
                    String fileId = "file-" + random.nextInt(FILES);
                    switch (random.nextInt(20)) {
                        case 0 -> cache.invalidateAll();
                        case 1, 2, 3, 4, 5 -> cache.expire(TestingPages.path(fileId));
                        case 6, 7, 8, 9, 10 -> cache.invalidatePaths(path -> path.equals(TestingPages.path(fileId)));
                        default -> cache.deleteFile(fileId);
                    }
                    Thread.sleep(1);
                }
                return null;
            }));
            start.countDown();
            for (Future<?> writer : futures.subList(0, WRITERS)) {
                writer.get(5, MINUTES);
            }
            stop.set(true);
            for (Future<?> future : futures) {
                future.get(5, MINUTES);
            }
            executor.shutdown();
            assertThat(executor.awaitTermination(1, MINUTES)).isTrue();
            assertThat(cache.awaitWrites(new Duration(1, MINUTES))).isTrue();

            assertThat(hits.get()).as("seed %s: some reads hit", seed).isPositive();
            assertThat(stats.getHits() + stats.getMisses()).isEqualTo(reads.get());
            assertThat(stats.getWriteBufferHits()).as("seed %s", seed).isPositive();
            assertThat(stats.getBackgroundWrites()).as("seed %s", seed).isPositive();
            assertThat(stats.getBytesEvicted()).as("seed %s: the cache evicts", seed).isPositive();
            assertThat(stats.getCorruptPages() + stats.getChecksumFailures()).isZero();
            assertThat(stats.getGetErrors() + stats.getPutErrors()).isZero();
            assertThat(stats.getDirectoriesOutOfUse()).isZero();
            assertThat(stats.getWriteBufferBytes()).isZero();
            assertThat(cache.backgroundWrites().reservedBytes()).isZero();
            TestingPages.assertEveryPageFileRegistered(cache, base);

            // every page served now is right, from the disk
            byte[] target = new byte[PAGE_SIZE];
            for (int file = 0; file < FILES; file++) {
                for (int page = 0; page < PAGES; page++) {
                    PageId pageId = new PageId("file-" + file, page);
                    int length = TestingPages.length(pageId);
                    int read = cache.read(pageId, 0, length, target, 0);
                    if (read > 0) {
                        assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, length));
                    }
                }
            }
            // a flush with no writer running leaves nothing of the file
            cache.expire(TestingPages.path("file-0"));
            cache.invalidatePaths(path -> path.equals(TestingPages.path("file-1")));
            cache.deleteFile("file-2");
            assertThat(cache.awaitWrites(new Duration(1, MINUTES))).isTrue();
            for (int file = 0; file < 3; file++) {
                assertThat(cache.directories().getFirst().pages("file-" + file)).isEmpty();
            }
        }
    }
}
