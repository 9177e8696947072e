package io.overdrive.cache.scan;

import alluxio.client.file.cache.PageId;
import com.google.common.base.Ticker;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.opentelemetry.api.OpenTelemetry;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.hedge.HedgedReadConfig;
import io.overdrive.cache.hedge.HedgedReadStats;
import io.overdrive.cache.hedge.HedgedReads;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.scan.InFlightPages.Claim;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.catalog.CatalogName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shared scans through the page cache's entry point ({@link OverdriveFileSystemCache#cacheInput}), over a real local
 * file behind a {@link StorageBoundary} that counts every remote read per page and injects slow, blocked or failing
 * reads. Every byte any reader gets is checked against the file.
 */
@Timeout(120)
class TestSharedScans
{
    private static final int PAGE_SIZE = 4096;
    private static final int PAGES = 64;
    private static final int FILE_SIZE = PAGES * PAGE_SIZE - 1000;

    @TempDir
    Path directory;

    private byte[] data;
    private StorageBoundary storage;
    private PageCacheStats cacheStats;
    private SharedScanStats stats;
    private OverdriveFileSystemCache cache;
    private ExecutorService threads;

    @BeforeEach
    void setUp()
            throws IOException
    {
        data = new byte[FILE_SIZE];
        new Random(7).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        storage = new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin")), PAGE_SIZE);
        cacheStats = new PageCacheStats();
        stats = new SharedScanStats();
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        threads.shutdownNow();
        if (cache != null) {
            cache.shutdown();
        }
    }

    private void startCache(Optional<SharedScanConfig> sharedScans)
    {
        startCache(sharedScans, pageCacheConfig());
    }

    private void startCache(Optional<SharedScanConfig> sharedScans, PageCacheConfig config)
    {
        PageCache pageCache = PageCache.create("lake", config, cacheStats);
        HedgedReads noHedging = new HedgedReads(new CatalogName("lake"), new HedgedReadConfig(), new FileSystemConfig(), new HedgedReadStats());
        cache = new OverdriveFileSystemCache(OpenTelemetry.noop().getTracer("test"), "lake", pageCache, cacheStats, noHedging, sharedScans, stats);
    }

    private PageCacheConfig pageCacheConfig()
    {
        return new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes("64MB")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false)
                // pages on disk once written, as the counts of this test expect
                .setAsyncWriteEnabled(false);
    }

    private static SharedScanConfig sharing(int readAhead)
    {
        return new SharedScanConfig().setReadAhead(readAhead);
    }

    private TrinoInput open()
            throws IOException
    {
        return cache.cacheInput(storage, "local:///data.bin#1#" + FILE_SIZE);
    }

    @Test
    void concurrentColdReadersFetchEachPageOnce()
            throws Exception
    {
        startCache(Optional.of(sharing(0)));
        storage.setDelayMillis(20);
        // pieces of at most a page span at most 2 pages: a reader's claimed pages are then never one page apart, so no
        // remote read spans a page that another reader fetched (missingPagesOneCachedPageApartAreOneRemoteRead: by design)
        readWholeFileConcurrently(12, CacheReadContext.UNKNOWN, PAGE_SIZE);

        assertThat(storage.readsPerPage()).hasSize(PAGES);
        for (long page = 0; page < PAGES; page++) {
            assertThat(storage.reads(page)).as("remote reads of page %s", page).isEqualTo(1);
        }
        assertThat(storage.bytesRead()).isEqualTo(FILE_SIZE);
        assertThat(cacheStats.getBytesFromRemote()).isEqualTo(FILE_SIZE);
        assertThat(stats.getCoalescedReads()).isPositive();
        assertThat(stats.getRemoteBytesSaved()).isPositive();
        assertThat(stats.getPagesInFlight()).isZero();
        assertThat(storage.inputsOpen()).isZero();
    }

    @Test
    void withoutSharingConcurrentReadersFetchPagesAgain()
            throws Exception
    {
        // the control: Trino's own readers, each fetching its own misses, over the same boundary
        startCache(Optional.empty());
        storage.setDelayMillis(20);
        readWholeFileConcurrently(12);

        assertThat(storage.readsPerPage().values().stream().mapToInt(AtomicInteger::get).max().orElseThrow()).isGreaterThan(1);
        assertThat(storage.bytesRead()).isGreaterThan(FILE_SIZE);
    }

    // every thread reads the whole file in random pieces, all starting together
    @Test
    void remoteReadsAreComparedWithTheCacheDisk()
            throws Exception
    {
        startCache(Optional.of(sharing(0)));
        storage.setDelayMillis(5);
        readWholeFileConcurrently(1, CacheReadContext.UNKNOWN, PAGE_SIZE);
        assertThat(storage.reads()).isGreaterThanOrEqualTo(10);
        storage.setDelayMillis(0);
        readWholeFileConcurrently(1, CacheReadContext.UNKNOWN, PAGE_SIZE);
        // the cache's reads compared with what the shared scans' remote reads took: 5 ms or more
        assertThat(cacheStats.getStorageReadMillis()).isGreaterThanOrEqualTo(5);
        assertThat(cacheStats.getDiskReadMillis()).isGreaterThan(0);
        assertThat(cacheStats.getDirectoriesSteppedAside()).isZero();
        assertThat(cacheStats.getReadsSteppedAside()).isZero();
    }

    @Test
    void remoteReadsOfTrinosOwnReadersAreComparedWithTheCacheDiskToo()
            throws Exception
    {
        startCache(Optional.empty());
        storage.setDelayMillis(5);
        readWholeFileConcurrently(1, CacheReadContext.UNKNOWN, PAGE_SIZE);
        assertThat(storage.reads()).isGreaterThanOrEqualTo(10);
        storage.setDelayMillis(0);
        readWholeFileConcurrently(1, CacheReadContext.UNKNOWN, PAGE_SIZE);
        assertThat(cacheStats.getStorageReadMillis()).isGreaterThanOrEqualTo(5);
        assertThat(cacheStats.getDirectoriesSteppedAside()).isZero();
    }

    private void readWholeFileConcurrently(int readers)
            throws Exception
    {
        readWholeFileConcurrently(readers, CacheReadContext.UNKNOWN, 3 * PAGE_SIZE);
    }

    private void readWholeFileConcurrently(int readers, CacheReadContext context, int maxPiece)
            throws Exception
    {
        CyclicBarrier start = new CyclicBarrier(readers);
        List<Future<?>> futures = new ArrayList<>();
        for (int reader = 0; reader < readers; reader++) {
            Random random = new Random(reader);
            futures.add(threads.submit((Callable<Void>) () -> {
                try (var _ = CacheReadContext.enter(context);
                        TrinoInput input = open()) {
                    start.await();
                    int position = 0;
                    while (position < FILE_SIZE) {
                        int length = Math.min(FILE_SIZE - position, 1 + random.nextInt(maxPiece));
                        assertRead(input, position, length);
                        position += length;
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : futures) {
            future.get(60, SECONDS);
        }
    }

    @Test
    void missingPagesOneCachedPageApartAreOneRemoteRead()
            throws Exception
    {
        startCache(Optional.of(sharing(0)));
        try (TrinoInput input = open()) {
            assertRead(input, PAGE_SIZE + 10, 100);
            assertRead(input, 5 * PAGE_SIZE + 10, 100);
            assertRead(input, 6 * PAGE_SIZE + 10, 100);
            assertThat(storage.reads()).isEqualTo(3);
            // pages 0 and 2 around cached page 1: one round trip, page 1 read again; pages 4 and 7 around cached 5 and 6: two
            assertRead(input, 100, 3 * PAGE_SIZE);
            assertRead(input, 4 * PAGE_SIZE, 4 * PAGE_SIZE);
        }
        assertThat(storage.reads()).isEqualTo(3 + 1 + 2);
        assertThat(storage.reads(1)).isEqualTo(2);
        assertThat(storage.reads(5)).isEqualTo(1);
    }

    @Test
    void waitersTakeOverWhenTheFetcherFails()
            throws Exception
    {
        startCache(Optional.of(sharing(0)));
        storage.blockNextRead(new IOException("DataNode went away"));
        Future<?> fetcher = startReading(0, 2 * PAGE_SIZE);
        storage.awaitBlockedRead();
        List<Future<?>> waiters = startWaiters(4);

        storage.release();
        assertThatThrownBy(() -> fetcher.get(10, SECONDS)).hasRootCauseMessage("DataNode went away");
        for (Future<?> waiter : waiters) {
            waiter.get(10, SECONDS);
        }
        assertThat(stats.getTakeOvers()).isPositive();
        assertThat(stats.getFetchFailures()).isEqualTo(1);
        // the failed read counted nothing: one reader took over, the others joined it
        assertThat(storage.reads(0)).isEqualTo(1);
        assertThat(stats.getPagesInFlight()).isZero();
    }

    @Test
    void waitersTakeOverWhenTheFetcherIsCancelled()
            throws Exception
    {
        startCache(Optional.of(sharing(0)));
        storage.blockNextRead(null);
        Future<?> fetcher = startReading(0, 2 * PAGE_SIZE);
        storage.awaitBlockedRead();
        List<Future<?>> waiters = startWaiters(4);

        // Trino cancels a split's thread by interrupting it; the blocked read then ends with an InterruptedIOException
        fetcher.cancel(true);
        for (Future<?> waiter : waiters) {
            waiter.get(10, SECONDS);
        }
        assertThat(stats.getTakeOvers()).isPositive();
        assertThat(storage.reads(0)).isEqualTo(1);
        assertThat(stats.getPagesInFlight()).isZero();
    }

    // readers of the first two pages, started once their fetch is in flight (they then wait for it)
    private List<Future<?>> startWaiters(int count)
            throws InterruptedException
    {
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waiters.add(startReading(100, 2 * PAGE_SIZE - 200));
        }
        // until every waiter joined the fetch in flight: their cache misses are counted before they wait
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (cacheStats.getMisses() < 1 + count && System.nanoTime() < deadline) {
            MILLISECONDS.sleep(5);
        }
        MILLISECONDS.sleep(50);
        return waiters;
    }

    @Test
    void waiterReadsItselfAfterMaxWait()
            throws Exception
    {
        startCache(Optional.of(sharing(0).setMaxWait(new Duration(100, MILLISECONDS))));
        storage.blockNextRead(null);
        Future<?> fetcher = startReading(0, PAGE_SIZE);
        storage.awaitBlockedRead();
        try (TrinoInput input = open()) {
            assertRead(input, 10, 100);
        }
        assertThat(stats.getWaitTimeouts()).isEqualTo(1);
        assertThat(fetcher.isDone()).as("the stuck fetcher is still stuck").isFalse();
        storage.release();
        fetcher.get(10, SECONDS);
        assertThat(stats.getPagesInFlight()).isZero();
    }

    @Test
    void readersShareFetchesOfPagesTheCacheRefuses()
            throws Exception
    {
        startCache(Optional.of(sharing(4)));
        storage.setDelayMillis(20);
        // a worker that is not the file's preferred one (soft affinity) does not cache it
        readWholeFileConcurrently(8, CacheReadContext.forTable("tpch", "lineitem", false), 3 * PAGE_SIZE);
        assertThat(stats.getCoalescedReads()).isPositive();
        assertThat(stats.getReadAheadPages()).as("no read-ahead for pages this node will not cache").isZero();
        assertThat(cacheStats.getHits()).isZero();
    }

    @Test
    void readAheadFetchesAheadOfSequentialReaders()
            throws Exception
    {
        startCache(Optional.of(sharing(4)));
        storage.setDelayMillis(5);
        try (TrinoInput input = open()) {
            for (int position = 0; position < FILE_SIZE; position += PAGE_SIZE) {
                assertRead(input, position, Math.min(PAGE_SIZE, FILE_SIZE - position));
            }
        }
        awaitIdle();
        for (long page = 0; page < PAGES; page++) {
            assertThat(storage.reads(page)).as("remote reads of page %s", page).isEqualTo(1);
        }
        assertThat(stats.getReadAheadPages()).isGreaterThan(PAGES / 2);
        assertThat(stats.getReadAheadPagesUsed()).isGreaterThan(PAGES / 2);
        // the pages fetched ahead of the reader's end were never read
        assertThat(stats.getReadAheadPagesUsed()).isEqualTo(stats.getReadAheadPages());
        assertThat(stats.getReadAheadMemoryBytes()).isZero();
    }

    @Test
    void readAheadFetchesEachPageOnceWhenAdmissionRefusesIt()
            throws Exception
    {
        // admission on and the cache full: a one-off scan's pages are refused, read ahead or not
        startCache(Optional.of(sharing(4)), pageCacheConfig().setAdmissionEnabled(true).setMaxSizes("256kB"));
        fillCache(128);
        long evicted = cacheStats.getBytesEvicted();
        long rejected = cacheStats.getAdmissionRejections();
        long readAhead = stats.getReadAheadPages();
        long held = stats.getReadAheadPagesHeld();
        long used = stats.getReadAheadPagesUsed();

        // each read-ahead done before the next read: every page fetched ahead is then refused before the reader reads it
        readSequentially(true);
        awaitIdle();
        assertThat(cacheStats.getAdmissionRejections() - rejected).as("the scan's pages were refused").isGreaterThan(PAGES / 2);
        assertThat(storage.bytesRead()).as("remote bytes of one cold sequential read").isEqualTo(FILE_SIZE);
        for (long page = 0; page < PAGES; page++) {
            assertThat(storage.reads(page)).as("remote reads of page %s", page).isEqualTo(1);
        }
        long readAheadPages = stats.getReadAheadPages() - readAhead;
        // (a read while the last read-ahead's thread is finishing reads ahead no further: the next one catches up)
        assertThat(readAheadPages).isGreaterThanOrEqualTo(8);
        // all of them but those that found room (admission guards eviction only)
        assertThat(stats.getReadAheadPagesHeld() - held).as("pages fetched ahead, refused, held").isBetween(readAheadPages - 4, readAheadPages);
        assertThat(stats.getReadAheadPagesUsed() - used).as("pages fetched ahead and read").isEqualTo(readAheadPages);
        // admission still keeps the one-off scan from evicting what the cache holds
        assertThat(cacheStats.getBytesEvicted()).isEqualTo(evicted);
    }

    @Test
    void pagesReadAheadAreAdmittedAsIfTheReaderFetchedThem()
            throws Exception
    {
        startCache(Optional.of(sharing(4)), pageCacheConfig().setAdmissionEnabled(true).setMaxSizes("512kB"));
        fillCache(160);
        // two queries read the file: its pages are then frequent enough to evict the filler's, fetched ahead or not
        readSequentially(false);
        readSequentially(false);
        awaitIdle();
        long remoteBytes = storage.bytesRead();
        readSequentially(false);
        awaitIdle();
        assertThat(storage.bytesRead()).as("the third read is served by the cache").isEqualTo(remoteBytes);
    }

    // the cache filled with the pages of another file of that many pages, which two queries read (a hot set)
    private void fillCache(int pages)
            throws IOException, InterruptedException
    {
        int size = pages * PAGE_SIZE;
        Files.write(directory.resolve("filler.bin"), new byte[size]);
        StorageBoundary filler = new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///filler.bin")), PAGE_SIZE);
        for (int query = 0; query < 2; query++) {
            try (TrinoInput input = cache.cacheInput(filler, "local:///filler.bin#1#" + size)) {
                for (int position = 0; position < size; position += PAGE_SIZE) {
                    input.readFully(position, new byte[PAGE_SIZE], 0, PAGE_SIZE);
                }
            }
            awaitIdle();
        }
        assertThat(cacheStats.getBytesEvicted()).as("the cache is full").isPositive();
    }

    // one query's sequential read of the file, a page at a time; awaitReadAhead: each read waits for the fetches it
    // started ahead to end
    private void readSequentially(boolean awaitReadAhead)
            throws IOException, InterruptedException
    {
        try (TrinoInput input = open()) {
            for (int position = 0; position < FILE_SIZE; position += PAGE_SIZE) {
                assertRead(input, position, Math.min(PAGE_SIZE, FILE_SIZE - position));
                long deadline = System.nanoTime() + SECONDS.toNanos(10);
                // the read claimed its read-ahead's pages before it returned: they are in flight until fetched, and the
                // reader reads ahead again once the read-ahead's thread has left it (on a busy machine, a while later)
                while (awaitReadAhead && (stats.getPagesInFlight() > 0 || readAheadRunning()) && System.nanoTime() < deadline) {
                    MILLISECONDS.sleep(1);
                }
            }
        }
    }

    @Test
    void readAheadStaysWithinItsMemory()
            throws Exception
    {
        // room for one read-ahead of 4 pages: concurrent sequential readers skip theirs rather than wait
        startCache(Optional.of(sharing(4).setReadAheadMaxMemory(DataSize.ofBytes(4 * PAGE_SIZE))));
        storage.setDelayMillis(10);
        List<Future<?>> readers = new ArrayList<>();
        AtomicInteger maxMemory = new AtomicInteger();
        for (int reader = 0; reader < 6; reader++) {
            int first = reader * 10;
            readers.add(threads.submit((Callable<Void>) () -> {
                try (TrinoInput input = open()) {
                    for (int page = first; page < first + 10 && page < PAGES - 1; page++) {
                        assertRead(input, page * PAGE_SIZE, PAGE_SIZE);
                        maxMemory.accumulateAndGet((int) stats.getReadAheadMemoryBytes(), Math::max);
                    }
                }
                return null;
            }));
        }
        for (Future<?> reader : readers) {
            reader.get(30, SECONDS);
        }
        assertThat(maxMemory.get()).isLessThanOrEqualTo(4 * PAGE_SIZE);
        assertThat(stats.getReadAheadSkippedMemory()).isPositive();
        awaitIdle();
    }

    @Test
    void readAheadReservesTheCachedPagesItsRemoteReadSpans()
            throws Exception
    {
        startCache(Optional.of(sharing(4).setReadAheadMaxMemory(DataSize.ofBytes(4 * PAGE_SIZE))));
        // pages 0, 1, 3 and 5 cached, read one by one (not sequential: no read-ahead)
        try (TrinoInput input = open()) {
            for (int page : new int[] {5, 3, 1, 0}) {
                assertRead(input, page * PAGE_SIZE, PAGE_SIZE);
            }
        }
        awaitIdle();
        storage.blockNextRead(null);
        try (TrinoInput input = open()) {
            assertRead(input, 0, PAGE_SIZE);
            // sequential: reads pages 2 to 5 ahead, of which 2 and 4 are missing; one remote read, page 3 read again
            assertRead(input, PAGE_SIZE, PAGE_SIZE);
            storage.awaitBlockedRead();
            assertThat(storage.blockedReadLength()).isEqualTo(3 * PAGE_SIZE);
            assertThat(stats.getReadAheadMemoryBytes()).as("read-ahead memory reserved for the remote read").isEqualTo(3 * PAGE_SIZE);
            storage.release();
            awaitIdle();
        }
        assertThat(stats.getReadAheadPages()).isEqualTo(2);
    }

    @Test
    void remoteReadsFitAJavaArray()
    {
        List<Claim> claims = LongStream.range(0, 64)
                .mapToObj(page -> new Claim(new PageId("file", page), new PageFetch(false), true))
                .toList();
        // 64 pages of 32MB would be 2GB, past what an array holds
        for (long pageSize : new long[] {32L << 20, 64L << 20}) {
            List<List<Claim>> runs = SharedPageReader.runs(claims, pageSize);
            assertThat(runs).allSatisfy(run -> assertThat((run.getLast().pageId().getPageIndex() - run.getFirst().pageId().getPageIndex() + 1) * pageSize)
                    .isLessThanOrEqualTo(SharedPageReader.MAX_BYTES_PER_FETCH));
            assertThat(runs.stream().flatMap(List::stream).toList()).isEqualTo(claims);
        }
        assertThat(SharedPageReader.runs(claims, PAGE_SIZE)).hasSize(1);
    }

    @Test
    void readAheadPagesNobodyReadsAreWasted()
            throws Exception
    {
        AtomicLong nanos = new AtomicLong();
        Ticker ticker = new Ticker()
        {
            @Override
            public long read()
            {
                return nanos.get();
            }
        };
        PageCache pageCache = PageCache.create("lake", pageCacheConfig(), cacheStats);
        try (SharedScans scans = new SharedScans("lake", pageCache, sharing(8), stats, cacheStats, ticker);
                TrinoInput input = scans.input(storage, "data", FILE_SIZE, CacheReadContext.UNKNOWN)) {
            assertRead(input, 0, PAGE_SIZE);
            assertRead(input, PAGE_SIZE, PAGE_SIZE);
            awaitIdle();
            assertThat(stats.getReadAheadPages()).isEqualTo(8);
            assertThat(stats.getReadAheadPagesWasted()).as("not yet: they may still be read").isZero();

            assertRead(input, 2 * PAGE_SIZE, PAGE_SIZE);
            nanos.addAndGet(SharedScans.UNREAD_RETENTION.roundTo(NANOSECONDS) + 1);
            assertThat(stats.getReadAheadPagesUsed()).isEqualTo(1);
            // the read of page 2 fetched another 4 ahead, and nobody read pages 3 to 14
            assertThat(stats.getReadAheadPagesWasted()).isEqualTo(stats.getReadAheadPages() - 1);
        }
        finally {
            pageCache.close();
        }
    }

    @Test
    void streamReadsTheFileInPieces()
            throws Exception
    {
        startCache(Optional.of(sharing(2)));
        Random random = new Random(3);
        try (TrinoInputStream stream = cache.cacheStream(storage, "local:///data.bin#1#" + FILE_SIZE)) {
            byte[] read = new byte[FILE_SIZE];
            int position = 0;
            while (position < FILE_SIZE) {
                if (random.nextInt(10) == 0) {
                    read[position] = (byte) stream.read();
                    position++;
                    continue;
                }
                int bytes = stream.read(read, position, Math.min(FILE_SIZE - position, 1 + random.nextInt(PAGE_SIZE * 2)));
                assertThat(bytes).isPositive();
                position += bytes;
            }
            assertThat(stream.read()).isEqualTo(-1);
            assertThat(read).isEqualTo(data);
            stream.seek(5000);
            assertThat(stream.getPosition()).isEqualTo(5000);
            assertThat(stream.read()).isEqualTo(data[5000] & 0xFF);
            assertThat(stream.skip(FILE_SIZE)).isEqualTo(FILE_SIZE - 5001);
            assertThatThrownBy(() -> stream.seek(FILE_SIZE + 1)).isInstanceOf(IOException.class);
        }
        awaitIdle();
        assertThat(storage.bytesRead()).isEqualTo(FILE_SIZE);
    }

    @Test
    void inputChecksItsArguments()
            throws Exception
    {
        startCache(Optional.of(sharing(0)));
        try (TrinoInput input = open()) {
            assertThatThrownBy(() -> input.readFully(FILE_SIZE - 10, new byte[20], 0, 20)).hasMessageContaining("Read past end of file");
            assertThatThrownBy(() -> input.readFully(-1, new byte[20], 0, 20)).hasMessageContaining("Negative");
            byte[] tail = new byte[100];
            assertThat(input.readTail(tail, 0, 100)).isEqualTo(100);
            assertThat(tail).isEqualTo(Arrays.copyOfRange(data, FILE_SIZE - 100, FILE_SIZE));
            input.close();
            assertThatThrownBy(() -> input.readFully(0, new byte[1], 0, 1)).hasMessageContaining("closed");
        }
    }

    private Future<?> startReading(long position, int length)
    {
        return threads.submit((Callable<Void>) () -> {
            try (TrinoInput input = open()) {
                assertRead(input, position, length);
            }
            return null;
        });
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

    // read-ahead runs in the background: wait until it is done
    // a read-ahead thread is still inside a read-ahead (its reader skips reading ahead until it leaves)
    private static boolean readAheadRunning()
    {
        return Thread.getAllStackTraces().entrySet().stream()
                .anyMatch(thread -> thread.getKey().getName().startsWith("overdrive-read-ahead-") && Arrays.stream(thread.getValue())
                        .anyMatch(frame -> frame.getClassName().equals(SharedPageReader.class.getName()) && frame.getMethodName().equals("readAhead")));
    }

    private void awaitIdle()
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while ((stats.getPagesInFlight() > 0 || stats.getReadAheadMemoryBytes() > 0) && System.nanoTime() < deadline) {
            MILLISECONDS.sleep(5);
        }
        assertThat(stats.getPagesInFlight()).isZero();
        assertThat(stats.getReadAheadMemoryBytes()).isZero();
    }
}
