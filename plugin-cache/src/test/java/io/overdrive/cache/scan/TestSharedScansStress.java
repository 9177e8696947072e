package io.overdrive.cache.scan;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.page.PageFrame;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.local.LocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Randomized stress of shared scans: many threads reading random ranges of a few files, sequential runs that read
 * ahead, with storage reads failing at random, readers interrupted at random (a cancelled split), a cache small enough
 * to evict all the time with admission on, and page files of the cache truncated or deleted under it. Every byte read
 * is checked; every thread must finish; nothing may stay in flight or hold read-ahead memory at the end.
 * {@code -Doverdrive.long-tests=true} runs 10 times as many operations.
 */
@Timeout(180)
class TestSharedScansStress
{
    private static final int PAGE_SIZE = 4096;
    private static final int THREADS = 16;
    private static final int OPERATIONS = Boolean.getBoolean("overdrive.long-tests") ? 4000 : 400;

    @TempDir
    Path directory;

    @Test
    void randomReadsWithFaults()
            throws Exception
    {
        randomReadsWithFaults(PAGE_SIZE, "small-pages");
    }

    // pages of several checksum chunks: readers that are not streams fetch and cache parts of pages, which concurrent
    // readers of other parts of the same pages join, look up, fill in, see evicted, damaged and flushed
    @Test
    void randomReadsOfPartsOfPagesWithFaults()
            throws Exception
    {
        PageCacheStats cacheStats = randomReadsWithFaults(4 * PageFrame.CHUNK_SIZE, "partial-pages");
        assertThat(cacheStats.getPartialPageWrites()).isPositive();
        assertThat(cacheStats.getPartialPageMisses()).isPositive();
    }

    private PageCacheStats randomReadsWithFaults(int pageSize, String name)
            throws Exception
    {
        int[] sizes = {50 * pageSize + 17, 20 * pageSize, 3 * pageSize - 5};
        List<byte[]> contents = new ArrayList<>();
        List<StorageBoundary> files = new ArrayList<>();
        LocalFileSystem fileSystem = new LocalFileSystem(directory);
        for (int i = 0; i < sizes.length; i++) {
            byte[] data = new byte[sizes[i]];
            new Random(i).nextBytes(data);
            Files.write(directory.resolve("file" + i), data);
            contents.add(data);
            StorageBoundary storage = new StorageBoundary(fileSystem.newInputFile(Location.of("local:///file" + i)), pageSize);
            storage.setDelayMillis(1);
            storage.setFailureChance(0.03);
            files.add(storage);
        }
        Path cacheDirectory = directory.resolve("cache-" + name);
        PageCacheConfig cacheConfig = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(cacheDirectory.toString())
                .setMaxSizes(40 * pageSize + "B")
                .setPageSize(DataSize.ofBytes(pageSize))
                .setAdmissionEnabled(true);
        SharedScanConfig config = new SharedScanConfig()
                .setReadAhead(4)
                .setReadAheadMaxMemory(DataSize.ofBytes(16 * pageSize))
                .setMaxWait(new Duration(2, SECONDS))
                .setFetchRestOfPage(true);
        PageCacheStats cacheStats = new PageCacheStats();
        SharedScanStats stats = new SharedScanStats();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger injectedFailures = new AtomicInteger();
        AtomicInteger interruptions = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);

        try (PageCache pageCache = PageCache.create("lake", cacheConfig, cacheStats);
                SharedScans scans = new SharedScans("lake", pageCache, config, stats, cacheStats)) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Random random = new Random(1000 + t);
                workers.add(Thread.ofPlatform().name("reader-" + t).start(() -> {
                    for (int operation = 0; operation < OPERATIONS; operation++) {
                        int file = random.nextInt(files.size());
                        byte[] data = contents.get(file);
                        try (TrinoInput input = scans.input(files.get(file), "file" + file, data.length, CacheReadContext.UNKNOWN)) {
                            int position = random.nextInt(data.length);
                            int readsInRun = 1 + random.nextInt(6);
                            boolean sequential = random.nextBoolean();
                            for (int read = 0; read < readsInRun && position < data.length; read++) {
                                int length = 1 + random.nextInt(Math.min(data.length - position, 3 * pageSize));
                                byte[] buffer = new byte[length];
                                input.readFully(position, buffer, 0, length);
                                if (!Arrays.equals(buffer, 0, length, data, position, position + length)) {
                                    unexpected.add(new AssertionError("wrong bytes of file%s at %s, %s long".formatted(file, position, length)));
                                }
                                reads.incrementAndGet();
                                position = sequential ? position + length : random.nextInt(data.length);
                            }
                        }
                        catch (InterruptedIOException e) {
                            interruptions.incrementAndGet();
                        }
                        catch (IOException e) {
                            if ("injected storage failure".equals(e.getMessage())) {
                                injectedFailures.incrementAndGet();
                            }
                            else {
                                unexpected.add(e);
                            }
                        }
                        catch (RuntimeException | Error e) {
                            unexpected.add(e);
                        }
                        // an interrupt that arrived after the read ended is for this operation only
                        Thread.interrupted();
                    }
                }));
            }
            Thread chaos = Thread.ofPlatform().name("chaos").start(() -> {
                Random random = new Random(99);
                while (running.get()) {
                    try {
                        MILLISECONDS.sleep(2);
                        if (random.nextInt(3) == 0) {
                            workers.get(random.nextInt(THREADS)).interrupt();
                        }
                        if (random.nextInt(10) == 0) {
                            damageRandomPage(cacheDirectory, random);
                        }
                        if (random.nextInt(200) == 0) {
                            // a flush mid-read: readers then miss, never get wrong bytes
                            pageCache.invalidateAll();
                        }
                    }
                    catch (InterruptedException e) {
                        return;
                    }
                    catch (IOException | UncheckedIOException e) {
                        // the cache may delete the page first
                    }
                }
            });
            for (Thread worker : workers) {
                worker.join(SECONDS.toMillis(150));
                assertThat(worker.isAlive()).as("%s finished", worker.getName()).isFalse();
            }
            running.set(false);
            chaos.join();

            System.out.printf("shared scans stress: %s reads, %s injected storage failures, %s interrupted; fetches %s, coalesced %s, take-overs %s, wait timeouts %s, read-ahead %s (used %s, held %s), rest-of-page fetches %s; evicted %s bytes, %s corrupt pages%n",
                    reads, injectedFailures, interruptions, stats.getFetches(), stats.getCoalescedReads(), stats.getTakeOvers(), stats.getWaitTimeouts(),
                    stats.getReadAheadPages(), stats.getReadAheadPagesUsed(), stats.getReadAheadPagesHeld(), stats.getRestOfPageFetches(), cacheStats.getBytesEvicted(), cacheStats.getCorruptPages());
            assertThat(unexpected).isEmpty();
            long deadline = System.nanoTime() + SECONDS.toNanos(10);
            while ((stats.getPagesInFlight() > 0 || stats.getReadAheadMemoryBytes() > 0) && System.nanoTime() < deadline) {
                MILLISECONDS.sleep(10);
            }
            assertThat(stats.getPagesInFlight()).as("fetches left in flight").isZero();
            assertThat(stats.getReadAheadMemoryBytes()).as("read-ahead memory left held").isZero();
            assertThat(reads.get()).isGreaterThan(THREADS * OPERATIONS / 2);
            assertThat(injectedFailures.get()).isPositive();
            assertThat(interruptions.get()).isPositive();
            assertThat(stats.getCoalescedReads()).isPositive();
            assertThat(stats.getReadAheadPages()).isPositive();
            if (pageSize > PageFrame.CHUNK_SIZE) {
                // requests (1 ms each) cost more than the rest of a page here: once the cost is known, misses fetch
                // whole pages too, mixed with the partial ones
                assertThat(stats.getRestOfPageFetches()).isPositive();
            }
            assertThat(cacheStats.getBytesEvicted()).isPositive();
            assertThat(cacheStats.getCorruptPages()).isPositive();
            for (StorageBoundary file : files) {
                assertThat(file.inputsOpen()).as("remote inputs left open").isZero();
            }
        }
        return cacheStats;
    }

    @Test
    void readAheadMemoryNeverPassesItsCap()
            throws Exception
    {
        int pages = 200;
        byte[] data = new byte[pages * PAGE_SIZE - 123];
        new Random(5).nextBytes(data);
        Files.write(directory.resolve("file"), data);
        StorageBoundary storage = new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///file")), PAGE_SIZE);
        // slow enough that read-aheads overlap: the cap is what limits them
        storage.setDelayMillis(5);
        PageCacheConfig cacheConfig = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes("2MB")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false);
        int readAhead = 4;
        long cap = readAhead * PAGE_SIZE;
        SharedScanConfig config = new SharedScanConfig()
                .setReadAhead(readAhead)
                .setReadAheadMaxMemory(DataSize.ofBytes(cap));
        PageCacheStats cacheStats = new PageCacheStats();
        SharedScanStats stats = new SharedScanStats();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicLong maxReserved = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);

        try (PageCache pageCache = PageCache.create("lake", cacheConfig, cacheStats);
                SharedScans scans = new SharedScans("lake", pageCache, config, stats, cacheStats)) {
            Thread sampler = Thread.ofPlatform().name("sampler").start(() -> {
                while (running.get()) {
                    maxReserved.accumulateAndGet(scans.readAhead().memoryInUse(), Math::max);
                    Thread.onSpinWait();
                }
            });
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Random random = new Random(2000 + t);
                workers.add(Thread.ofPlatform().name("reader-" + t).start(() -> {
                    for (int operation = 0; operation < OPERATIONS / 16; operation++) {
                        // a file of its own (the same bytes), so that what other operations cached is not in the way
                        String fileId = "file-%s-%s".formatted(thread, operation);
                        int first = random.nextInt(pages - 40);
                        int last = first + 8 + random.nextInt(32);
                        int step = random.nextInt(4) == 0 ? 3 : 2;
                        try {
                            // pages here and there, read one by one (no read-ahead) and cached: a read-ahead between them
                            // fetches runs that span them
                            try (TrinoInput input = scans.input(storage, fileId, data.length, CacheReadContext.UNKNOWN)) {
                                for (int page = last + 2 * readAhead; page >= first; page -= step) {
                                    read(input, data, page * PAGE_SIZE, 1 + random.nextInt(PAGE_SIZE), unexpected);
                                }
                            }
                            try (TrinoInput input = scans.input(storage, fileId, data.length, CacheReadContext.UNKNOWN)) {
                                int position = first * PAGE_SIZE;
                                while (position < (last + 1) * PAGE_SIZE) {
                                    int length = 1 + random.nextInt(2 * PAGE_SIZE);
                                    read(input, data, position, length, unexpected);
                                    position += length;
                                }
                            }
                        }
                        catch (IOException | RuntimeException | Error e) {
                            unexpected.add(e);
                        }
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join(SECONDS.toMillis(150));
                assertThat(worker.isAlive()).as("%s finished", worker.getName()).isFalse();
            }
            running.set(false);
            sampler.join();

            System.out.printf("read-ahead memory stress: read ahead %s pages (%s skipped for memory), most read ahead at once %s bytes, most reserved %s bytes, cap %s%n",
                    stats.getReadAheadPages(), stats.getReadAheadSkippedMemory(), storage.maxReadAheadBytesReading(), maxReserved, cap);
            assertThat(unexpected).isEmpty();
            assertThat(stats.getReadAheadPages()).isPositive();
            assertThat(stats.getReadAheadSkippedMemory()).as("the cap was reached").isPositive();
            assertThat(maxReserved.get()).as("read-ahead memory reserved at once").isLessThanOrEqualTo(cap);
            assertThat(storage.maxReadAheadBytesReading()).as("read-ahead bytes being read at once").isLessThanOrEqualTo(cap);
            long deadline = System.nanoTime() + SECONDS.toNanos(10);
            while ((stats.getPagesInFlight() > 0 || stats.getReadAheadMemoryBytes() > 0) && System.nanoTime() < deadline) {
                MILLISECONDS.sleep(10);
            }
            assertThat(stats.getPagesInFlight()).as("fetches left in flight").isZero();
            assertThat(stats.getReadAheadMemoryBytes()).as("read-ahead memory left held").isZero();
            assertThat(storage.inputsOpen()).as("remote inputs left open").isZero();
        }
    }

    private static void read(TrinoInput input, byte[] data, int position, int length, ConcurrentLinkedQueue<Throwable> unexpected)
            throws IOException
    {
        length = Math.min(length, data.length - position);
        if (length <= 0) {
            return;
        }
        byte[] buffer = new byte[length];
        input.readFully(position, buffer, 0, length);
        if (!Arrays.equals(buffer, 0, length, data, position, position + length)) {
            unexpected.add(new AssertionError("wrong bytes at %s, %s long".formatted(position, length)));
        }
    }

    private static void damageRandomPage(Path cacheDirectory, Random random)
            throws IOException
    {
        List<Path> pages;
        try (Stream<Path> files = Files.walk(cacheDirectory)) {
            pages = files.filter(Files::isRegularFile)
                    .filter(path -> !path.getFileName().toString().startsWith("."))
                    .filter(path -> path.getFileName().toString().matches("\\d+"))
                    .toList();
        }
        if (pages.isEmpty()) {
            return;
        }
        Path page = pages.get(random.nextInt(pages.size()));
        if (random.nextBoolean()) {
            Files.deleteIfExists(page);
            return;
        }
        try (FileChannel channel = FileChannel.open(page, WRITE)) {
            channel.truncate(channel.size() / 2);
        }
    }
}
