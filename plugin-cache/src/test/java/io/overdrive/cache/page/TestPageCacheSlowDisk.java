package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cache directory made slow at the page store boundary (a delay before each read of a page): with reads of storage
 * taking about a millisecond, it steps aside (its hits read storage, counted, and nothing is written to it) and comes
 * back once the delay is gone; whatever it decides, every read returns the right bytes.
 */
class TestPageCacheSlowDisk
{
    private static final long SLOW_DISK_NANOS = MILLISECONDS.toNanos(50);
    private static final long STORAGE_NANOS = MILLISECONDS.toNanos(1);

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void slowDiskStepsAsideAndComesBackWhenFast()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first), stats)) {
            List<PageId> pages = pages("file", 20);
            // a first pass reads storage (a millisecond a read) and caches every page
            for (PageId pageId : pages) {
                assertThat(read(cache, pageId)).as("cold").isFalse();
            }
            assertThat(stats.getPagesWritten()).isEqualTo(pages.size());
            for (PageId pageId : pages) {
                assertThat(read(cache, pageId)).as("cached").isTrue();
            }
            assertThat(stats.getDirectoriesSteppedAside()).isZero();

            AtomicLong delay = new AtomicLong(SLOW_DISK_NANOS);
            cache.directories().getFirst().beforeRead(() -> sleep(delay.get()));
            long hitsBefore = stats.getHits();
            // measured slow: steps aside once most reads of its window (the last 16, the fast ones before included) are
            int slowReads = 0;
            while (stats.getDirectoriesSteppedAside() == 0 && slowReads < DiskStepAside.WINDOW) {
                assertThat(read(cache, pages.get(slowReads))).as("not stepped aside yet").isTrue();
                slowReads++;
            }
            assertThat(stats.getDirectoriesSteppedAside()).isEqualTo(1);
            assertThat(slowReads).isGreaterThanOrEqualTo(DiskStepAside.MIN_READS);
            assertThat(stats.getDiskReadMillis()).isGreaterThanOrEqualTo(SLOW_DISK_NANOS / 2e6);
            assertThat(stats.getStorageReadMillis()).isPositive().isLessThan(stats.getDiskReadMillis());

            // stepped aside: cached pages are read from storage (a sampled read may still read the disk) and not written
            int fromStorage = 0;
            for (PageId pageId : pages) {
                if (!read(cache, pageId)) {
                    fromStorage++;
                }
            }
            assertThat(fromStorage).isGreaterThanOrEqualTo(pages.size() - 2);
            assertThat(stats.getReadsSteppedAside()).isEqualTo(fromStorage);
            assertThat(stats.getWritesSteppedAside()).isEqualTo(fromStorage);
            assertThat(cache.contains(pages.getFirst())).as("a page of a directory stepped aside is not served").isFalse();
            assertThat(stats.getHits() - hitsBefore).isEqualTo(slowReads + pages.size() - fromStorage);

            // the disk is fast again: the sampled reads find it so, and it serves hits again
            delay.set(0);
            long deadline = System.nanoTime() + SECONDS.toNanos(30);
            while (stats.getDirectoriesSteppedAside() > 0 && System.nanoTime() < deadline) {
                for (PageId pageId : pages) {
                    read(cache, pageId);
                }
                Thread.sleep(20);
            }
            assertThat(stats.getDirectoriesSteppedAside()).isZero();
            long steppedAside = stats.getReadsSteppedAside();
            for (PageId pageId : pages) {
                assertThat(read(cache, pageId)).as("back").isTrue();
            }
            assertThat(stats.getReadsSteppedAside()).isEqualTo(steppedAside);
        }
    }

    @Test
    void injectedDiskReadDelaySlowsEveryReadOfTheDisk()
            throws Exception
    {
        // cache.testing.disk-read-delay, the slow disk benchmarks inject: every hit waits for it, the bytes stay right
        long delayNanos = MILLISECONDS.toNanos(30);
        PageCacheStats stats = new PageCacheStats();
        PageCacheConfig config = TestingPages.config(100 * PAGE_SIZE, first)
                .setSlowDiskStepAsideEnabled(false)
                .setTestingDiskReadDelay(new Duration(30, MILLISECONDS));
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            List<PageId> pages = pages("file", 10);
            for (PageId pageId : pages) {
                assertThat(read(cache, pageId)).as("cold").isFalse();
            }
            for (int round = 0; round < 2; round++) {
                for (PageId pageId : pages) {
                    long start = System.nanoTime();
                    assertThat(read(cache, pageId)).as("cached").isTrue();
                    assertThat(System.nanoTime() - start).as("a hit waits for the injected delay").isGreaterThanOrEqualTo(delayNanos);
                }
            }
            assertThat(stats.getHits()).isEqualTo(2L * pages.size());
            assertThat(stats.getDiskReadMillis()).as("the disk's measured read time").isGreaterThanOrEqualTo(30.0);
        }
    }

    @Test
    void stepAsideDisabled()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first).setSlowDiskStepAsideEnabled(false), stats)) {
            List<PageId> pages = pages("file", 10);
            for (PageId pageId : pages) {
                read(cache, pageId);
            }
            cache.directories().getFirst().beforeRead(() -> sleep(SLOW_DISK_NANOS));
            for (int round = 0; round < 3; round++) {
                for (PageId pageId : pages) {
                    assertThat(read(cache, pageId)).isTrue();
                }
            }
            assertThat(stats.getDirectoriesSteppedAside()).isZero();
            assertThat(stats.getReadsSteppedAside()).isZero();
            assertThat(stats.getDiskReadMillis()).as("measured all the same").isGreaterThanOrEqualTo(SLOW_DISK_NANOS / 1e6);
        }
    }

    @Test
    void everyReadReturnsTheRightBytesWhateverTheDecisions()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(200 * PAGE_SIZE, first, second), stats)) {
            List<PageId> pages = new ArrayList<>();
            for (int file = 0; file < 12; file++) {
                pages.addAll(pages("file-" + file, 10));
            }
            // each directory's reads are slow or not, changing every few milliseconds
            List<AtomicLong> delays = new ArrayList<>();
            for (PageStoreDirectory directory : cache.directories()) {
                AtomicLong delay = new AtomicLong();
                delays.add(delay);
                directory.beforeRead(() -> sleep(delay.get()));
            }
            AtomicBoolean done = new AtomicBoolean();
            int threads = 6;
            ExecutorService executor = Executors.newFixedThreadPool(threads + 1);
            try {
                Future<?> chaos = executor.submit(() -> {
                    while (!done.get()) {
                        for (AtomicLong delay : delays) {
                            delay.set(ThreadLocalRandom.current().nextBoolean() ? MILLISECONDS.toNanos(10) : 0);
                        }
                        sleep(MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(20, 200)));
                    }
                });
                List<Future<?>> readers = new ArrayList<>();
                // the readers go on past their operations until a directory has stepped aside at least once (within a
                // minute): on a fast machine they can finish before the first slow spell, and the step-aside must be
                // among the decisions the reads were right under
                long deadline = System.nanoTime() + MINUTES.toNanos(1);
                for (int thread = 0; thread < threads; thread++) {
                    readers.add(executor.submit(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        byte[] target = new byte[PAGE_SIZE + 16];
                        for (int operation = 0; operation < 1_500 || (stats.getReadsSteppedAside() == 0 && System.nanoTime() < deadline); operation++) {
                            PageId pageId = pages.get(random.nextInt(pages.size()));
                            int pageLength = TestingPages.length(pageId);
                            byte[] content = TestingPages.content(pageId, pageLength);
                            switch (random.nextInt(6)) {
                                case 0 -> cache.write(TestingPages.path(pageId.getFileId()), pageId, ByteBuffer.wrap(content), TestingPages.context(pageId.getFileId()));
                                case 1 -> {
                                    int from = random.nextInt(pageLength);
                                    int to = from + 1 + random.nextInt(pageLength - from);
                                    cache.writePart(TestingPages.path(pageId.getFileId()), pageId, pageLength, from, ByteBuffer.wrap(content, from, to - from), TestingPages.context(pageId.getFileId()));
                                }
                                case 2 -> cache.recordStorageRead(PAGE_SIZE, random.nextLong(MILLISECONDS.toNanos(1) / 20, MILLISECONDS.toNanos(1)));
                                default -> {
                                    int offset = random.nextInt(pageLength);
                                    int length = 1 + random.nextInt(PAGE_SIZE);
                                    int targetOffset = random.nextInt(16);
                                    cache.contains(pageId);
                                    int read = cache.read(pageId, offset, length, target, targetOffset);
                                    if (read > 0) {
                                        assertThat(read).isEqualTo(Math.min(length, pageLength - offset));
                                        assertThat(Arrays.copyOfRange(target, targetOffset, targetOffset + read))
                                                .as("page %s from %s", pageId, offset)
                                                .isEqualTo(Arrays.copyOfRange(content, offset, offset + read));
                                    }
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> reader : readers) {
                    reader.get(5, MINUTES);
                }
                done.set(true);
                chaos.get(1, MINUTES);
            }
            finally {
                done.set(true);
                executor.shutdownNow();
            }
            assertThat(stats.getHits()).isPositive();
            assertThat(stats.getReadsSteppedAside()).as("the directories did step aside").isPositive();
            assertThat(stats.getCorruptPages()).isZero();
            assertThat(stats.getChecksumFailures()).isZero();
        }
    }

    private static List<PageId> pages(String fileId, int count)
    {
        List<PageId> pages = new ArrayList<>();
        for (int index = 0; index < count; index++) {
            pages.add(new PageId(fileId, index));
        }
        return pages;
    }

    // a reader: the cache, else storage (a millisecond, timed and reported to the cache), then the page offered to the
    // cache; checks the bytes either way and says whether the cache served them
    private static boolean read(LocalPageCache cache, PageId pageId)
    {
        int length = TestingPages.length(pageId);
        byte[] content = TestingPages.content(pageId, length);
        byte[] target = new byte[PAGE_SIZE];
        int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
        if (read > 0) {
            assertThat(read).isEqualTo(length);
            assertThat(Arrays.copyOf(target, read)).as("page %s", pageId).isEqualTo(content);
            return true;
        }
        long start = System.nanoTime();
        sleep(STORAGE_NANOS);
        cache.recordStorageRead(length, System.nanoTime() - start);
        cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(content), CacheReadContext.UNKNOWN);
        return false;
    }

    private static void sleep(long nanos)
    {
        if (nanos <= 0) {
            return;
        }
        try {
            NANOSECONDS.sleep(nanos);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }
}
