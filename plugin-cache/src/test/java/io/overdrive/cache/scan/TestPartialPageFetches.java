package io.overdrive.cache.scan;

import io.airlift.units.DataSize;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.page.PageFrame;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.local.LocalFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A miss fetches what the reader needs, to the chunk, not whole pages; the cache keeps those parts of pages, so that a
 * later read of the same bytes hits; a stream still fetches whole pages. Where a request costs more than the rest of a
 * page's transfer, as measured from the fetches, a miss fetches whole pages with {@code cache.fetch-rest-of-page=true}.
 */
@Timeout(60)
class TestPartialPageFetches
{
    private static final int CHUNK = PageFrame.CHUNK_SIZE;
    private static final int PAGE_SIZE = 8 * CHUNK;
    private static final int FILE_SIZE = 6 * PAGE_SIZE - 1000;

    @TempDir
    Path directory;

    private byte[] data;
    private StorageBoundary storage;
    private PageCacheStats cacheStats;
    private PageCache pageCache;
    private SharedScans scans;
    private ExecutorService threads;

    @BeforeEach
    void setUp()
            throws IOException
    {
        data = new byte[FILE_SIZE];
        new Random(5).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        storage = new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin")), PAGE_SIZE);
        cacheStats = new PageCacheStats();
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes("64MB")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false)
                // pages on disk once written, as the counts of this test expect
                .setAsyncWriteEnabled(false);
        pageCache = PageCache.create("lake", config, cacheStats);
        // what a reader needs, to the chunk (the default, whatever the storage's measured cost)
        scans = new SharedScans("lake", pageCache, new SharedScanConfig().setReadAhead(0), new SharedScanStats(), cacheStats);
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown()
    {
        threads.shutdownNow();
        scans.close();
        pageCache.close();
    }

    private TrinoInput open()
    {
        return scans.input(storage, "data", FILE_SIZE, CacheReadContext.UNKNOWN);
    }

    @Test
    void aMissFetchesTheChunksTheReadNeeds()
            throws Exception
    {
        try (TrinoInput input = open()) {
            // inside page 1, from chunk 2 to chunk 4
            assertRead(input, PAGE_SIZE + 2 * CHUNK + 100, 2 * CHUNK);
            assertThat(storage.bytesRead()).isEqualTo(3 * CHUNK);
            // the same bytes, and any inside the chunks fetched: hits
            assertRead(input, PAGE_SIZE + 2 * CHUNK + 100, 2 * CHUNK);
            assertRead(input, PAGE_SIZE + 2 * CHUNK, 3 * CHUNK);
            assertThat(storage.reads()).isEqualTo(1);
            // across pages 2 to 4: the end of page 2 from its chunk 7, page 3 whole, the start of page 4 to its chunk 0
            long before = storage.bytesRead();
            assertRead(input, 3L * PAGE_SIZE - CHUNK + 5, CHUNK + PAGE_SIZE + 10);
            assertThat(storage.bytesRead() - before).isEqualTo(CHUNK + PAGE_SIZE + CHUNK);
            // another part of page 1: only its own chunks; then page 1's chunks 2 to 5 all hit
            before = storage.bytesRead();
            assertRead(input, PAGE_SIZE + 5 * CHUNK + 1, 10);
            assertThat(storage.bytesRead() - before).isEqualTo(CHUNK);
            int reads = storage.reads();
            assertRead(input, PAGE_SIZE + 2 * CHUNK, 4 * CHUNK);
            assertThat(storage.reads()).isEqualTo(reads);
            // the file's last page, shorter than a page: up to its end
            before = storage.bytesRead();
            assertRead(input, FILE_SIZE - 50, 50);
            assertThat(storage.bytesRead() - before).isEqualTo(FILE_SIZE - (5L * PAGE_SIZE + 7 * CHUNK));
        }
        assertThat(cacheStats.getPartialPageWrites()).isPositive();
        assertThat(cacheStats.getCorruptPages()).isZero();
        // another reader of the file finds the parts in the cache
        try (TrinoInput input = open()) {
            int reads = storage.reads();
            assertRead(input, PAGE_SIZE + 2 * CHUNK + 7, 3 * CHUNK);
            assertThat(storage.reads()).isEqualTo(reads);
        }
    }

    @Test
    void aStreamFetchesWholePages()
            throws Exception
    {
        try (TrinoInput input = open()) {
            // the first read of a stream is read as any other; the reads that continue it fetch whole pages
            assertRead(input, 100, 1000);
            assertThat(storage.bytesRead()).isEqualTo(CHUNK);
            assertRead(input, 1100, PAGE_SIZE);
            assertThat(storage.bytesRead()).isEqualTo(CHUNK + 2L * PAGE_SIZE);
        }
    }

    @Test
    void aReaderWaitingForAFetchOfAnotherPartFetchesItsOwn()
            throws Exception
    {
        storage.blockNextRead(null);
        Future<?> first = threads.submit(() -> {
            try (TrinoInput input = open()) {
                assertRead(input, 10, 100);
            }
            return null;
        });
        storage.awaitBlockedRead();
        assertThat(storage.blockedReadLength()).isEqualTo(CHUNK);
        // page 0 is in flight, for its chunk 0 only: this reader joins the fetch, finds its bytes missing, fetches them
        Thread[] waiter = new Thread[1];
        Future<?> second = threads.submit(() -> {
            waiter[0] = Thread.currentThread();
            try (TrinoInput input = open()) {
                assertRead(input, 6 * CHUNK + 10, 100);
            }
            return null;
        });
        // released only once the second reader waits for the fetch in flight
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (!waitsForAFetch(waiter[0])) {
            assertThat(System.nanoTime()).as("the second reader joins the fetch").isLessThan(deadline);
            Thread.sleep(1);
        }
        storage.release();
        first.get(10, SECONDS);
        second.get(10, SECONDS);
        assertThat(storage.reads()).isEqualTo(2);
        assertThat(storage.bytesRead()).isEqualTo(2L * CHUNK);
        // both parts are cached now
        try (TrinoInput input = open()) {
            assertRead(input, 0, CHUNK);
            assertRead(input, 6 * CHUNK, CHUNK);
        }
        assertThat(storage.reads()).isEqualTo(2);
    }

    @Test
    void whereARequestCostsMoreThanTheRestOfAPageAMissFetchesWholePages()
            throws Exception
    {
        // every read of the storage waits 50 ms: requests cost far more than their transfer
        storage.setDelayMillis(50);
        SharedScanStats stats = new SharedScanStats();
        try (SharedScans costAware = new SharedScans("lake", pageCache, new SharedScanConfig().setReadAhead(0).setFetchRestOfPage(true), stats, cacheStats);
                TrinoInput input = costAware.input(storage, "data", FILE_SIZE, CacheReadContext.UNKNOWN)) {
            // until the cost is known (FetchCost.MIN_LARGE fetches of at least half a page, FetchCost.MIN_SMALL of at most
            // one chunk), what the reads need, to the chunk
            long expected = 0;
            int fetches = FetchCost.MIN_LARGE + FetchCost.MIN_SMALL;
            for (int fetch = 0; fetch < fetches; fetch++) {
                if (fetch % 2 == 0) {
                    // pages 0, 2, 3: chunks 0 to 6
                    long page = fetch == 0 ? 0 : 1 + fetch / 2;
                    assertRead(input, page * PAGE_SIZE + 10, 7 * CHUNK - 20);
                    expected += 7 * CHUNK;
                }
                else {
                    // page 1: chunks 0, 2, 4
                    assertRead(input, PAGE_SIZE + (fetch - 1) * CHUNK + 1, 100);
                    expected += CHUNK;
                }
                assertThat(storage.bytesRead()).as("after fetch %s", fetch).isEqualTo(expected);
            }
            assertThat(storage.reads()).isEqualTo(fetches);
            assertThat(stats.getRestOfPageFetches()).isZero();
            assertThat(stats.getFetchCosts()).startsWith("local://: ").contains(" ms + ");

            // now a miss of one chunk of the last page fetches all of it; every other part of it then hits
            assertRead(input, 5L * PAGE_SIZE + CHUNK + 3, 50);
            int lastPageLength = FILE_SIZE - 5 * PAGE_SIZE;
            assertThat(storage.bytesRead()).isEqualTo(expected + lastPageLength);
            assertThat(stats.getRestOfPageFetches()).isEqualTo(1);
            assertThat(stats.getRestOfPageBytes()).isEqualTo(lastPageLength - CHUNK);
            int reads = storage.reads();
            assertRead(input, 5L * PAGE_SIZE, lastPageLength);
            // a miss in a page held in part (chunk 7 of page 0) fills the page; all of page 0 then hits
            assertRead(input, 8L * CHUNK - 10, 5);
            assertThat(storage.reads()).isEqualTo(reads + 1);
            assertThat(storage.bytesRead()).isEqualTo(expected + lastPageLength + PAGE_SIZE);
            assertRead(input, 0, PAGE_SIZE);
            assertThat(storage.reads()).isEqualTo(reads + 1);
        }
        assertThat(cacheStats.getCorruptPages()).isZero();
    }

    private static boolean waitsForAFetch(Thread thread)
    {
        return thread != null && Arrays.stream(thread.getStackTrace()).anyMatch(frame -> frame.getClassName().equals(PageFetch.class.getName()) && frame.getMethodName().equals("await"));
    }

    private void assertRead(TrinoInput input, long position, int length)
            throws IOException
    {
        byte[] buffer = new byte[length + 2];
        input.readFully(position, buffer, 1, length);
        assertThat(Arrays.copyOfRange(buffer, 1, length + 1))
                .as("bytes at %s, %s long", position, length)
                .isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + length));
    }
}
