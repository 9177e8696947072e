package io.overdrive.cache.scan;

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
import io.overdrive.cache.peer.PeerConfig;
import io.overdrive.cache.peer.PeerService;
import io.overdrive.cache.peer.PeerStats;
import io.overdrive.cache.session.QueryReadStats;
import io.overdrive.cache.session.ReadOptions;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.HostAddress;
import io.trino.spi.catalog.CatalogName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two workers' caches over one file, each with its peer service (real sockets): the worker that misses reads the pages
 * from the worker that holds them instead of storage, keeps them, and reads storage when that worker is gone. Every
 * byte read is checked against the file.
 */
@Timeout(120)
class TestPeerReadsInScans
{
    private static final int PAGE_SIZE = 4096;
    private static final int FILE_SIZE = 48 * PAGE_SIZE - 1000;
    private static final String SECRET = "the-catalogs-secret-0123456789";
    private static final String KEY = "local:///data.bin#1#" + FILE_SIZE;

    @TempDir
    Path directory;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void tearDown()
            throws Exception
    {
        for (AutoCloseable closeable : closing.reversed()) {
            closeable.close();
        }
    }

    @Test
    void aWorkerReadsWhatItMissesFromThePeerThatHoldsIt()
            throws Exception
    {
        byte[] data = new byte[FILE_SIZE];
        new Random(3).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        StorageBoundary storage = new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin")), PAGE_SIZE);

        // the file's own worker reads it once, from storage, and caches it
        Worker owner = worker("owner");
        assertThat(readAll(owner, storage, List.of(), new QueryReadStats())).isEqualTo(data);
        assertThat(storage.bytesRead()).isEqualTo(FILE_SIZE);

        // another worker (a split placed off the file's worker, or the file's new worker after a scale-out) asks it
        Worker other = worker("other");
        QueryReadStats fromPeer = new QueryReadStats();
        assertThat(readAll(other, storage, List.of(owner.address()), fromPeer)).isEqualTo(data);
        assertThat(storage.bytesRead()).as("storage read again").isEqualTo(FILE_SIZE);
        assertThat(fromPeer.bytesFromPeers()).isEqualTo(FILE_SIZE);
        assertThat(fromPeer.bytesFromStorage()).isZero();
        assertThat(other.peerStats().getHits()).isPositive();
        assertThat(other.peerStats().getHitBytes()).isEqualTo(FILE_SIZE);
        assertThat(owner.peerStats().getServedBytes()).isEqualTo(FILE_SIZE);

        // and keeps what it read: read again with no peer named, every byte from its own cache
        QueryReadStats again = new QueryReadStats();
        assertThat(readAll(other, storage, List.of(), again)).isEqualTo(data);
        assertThat(again.bytesFromCache()).isEqualTo(FILE_SIZE);
        assertThat(storage.bytesRead()).isEqualTo(FILE_SIZE);

        // a third worker, whose peer is gone: storage, the right bytes, the failure counted, the peer not asked again
        owner.service().close();
        Worker third = worker("third");
        QueryReadStats peerGone = new QueryReadStats();
        assertThat(readAll(third, storage, List.of(owner.address()), peerGone)).isEqualTo(data);
        assertThat(peerGone.bytesFromStorage()).isEqualTo(FILE_SIZE);
        assertThat(peerGone.bytesFromPeers()).isZero();
        assertThat(third.peerStats().getConnectionFailures()).isEqualTo(1);
        assertThat(third.peerStats().getSkippedPeerDown()).isPositive();
    }

    // the peer's read completes at any point of the other worker's questions: repeated
    @RepeatedTest(5)
    void workersReadingANewFileAtOnceReadItFromStorageOnce()
            throws Exception
    {
        byte[] data = writeFile(5);
        StorageBoundary storage = storage();
        Worker owner = worker("owner", new Duration(10, SECONDS));
        Worker other = worker("other", new Duration(10, SECONDS));
        ExecutorService executor = Executors.newFixedThreadPool(2);
        closing.add(executor::shutdownNow);
        int length = 3 * PAGE_SIZE;

        // the file's worker starts reading its first pages from storage, which answers only when released
        storage.blockNextRead(null);
        Future<byte[]> ownerRead = executor.submit(() -> readRange(owner, storage, List.of(), 0, length, new QueryReadStats()));
        storage.awaitBlockedRead();
        // another worker needs the same bytes meanwhile: the file's worker says it is reading them, and it waits
        QueryReadStats otherStats = new QueryReadStats();
        Future<byte[]> otherRead = executor.submit(() -> readRange(other, storage, List.of(owner.address()), 0, length, otherStats));
        while (other.peerStats().getFetchWaits() == 0) {
            assertThat(otherRead).isNotDone();
            Thread.sleep(5);
        }
        storage.release();

        assertThat(ownerRead.get(30, SECONDS)).isEqualTo(Arrays.copyOf(data, length));
        assertThat(otherRead.get(30, SECONDS)).isEqualTo(Arrays.copyOf(data, length));
        // one storage read of each page in the cluster
        for (long page = 0; page < 3; page++) {
            assertThat(storage.reads(page)).as("storage reads of page %s", page).isEqualTo(1);
        }
        assertThat(storage.bytesRead()).isEqualTo(length);
        assertThat(otherStats.bytesFromPeers()).isEqualTo(length);
        assertThat(otherStats.bytesFromStorage()).isZero();
        assertThat(other.peerStats().getFetchWaits()).isEqualTo(1);
        assertThat(other.peerStats().getHits()).isEqualTo(1);
        assertThat(owner.peerStats().getServed()).isEqualTo(1);
        // its own warm-up request at start, then the other's first question
        assertThat(owner.peerStats().getServedMisses()).isEqualTo(2);
    }

    @Test
    void aPeerWhoseStorageReadTakesLongerThanTheFetchWaitIsNotWaitedForLonger()
            throws Exception
    {
        byte[] data = writeFile(7);
        StorageBoundary storage = storage();
        Worker owner = worker("owner", new Duration(200, MILLISECONDS));
        Worker other = worker("other", new Duration(200, MILLISECONDS));
        ExecutorService executor = Executors.newFixedThreadPool(1);
        closing.add(executor::shutdownNow);
        closing.add(storage::release);
        int length = 3 * PAGE_SIZE;

        storage.blockNextRead(null);
        Future<byte[]> ownerRead = executor.submit(() -> readRange(owner, storage, List.of(), 0, length, new QueryReadStats()));
        storage.awaitBlockedRead();
        // the file's worker's read stays blocked: the other worker waits the fetch wait, then reads storage itself
        QueryReadStats otherStats = new QueryReadStats();
        assertThat(readRange(other, storage, List.of(owner.address()), 0, length, otherStats)).isEqualTo(Arrays.copyOf(data, length));
        assertThat(otherStats.bytesFromStorage()).isEqualTo(length);
        assertThat(otherStats.bytesFromPeers()).isZero();
        assertThat(other.peerStats().getFetchWaits()).isEqualTo(1);
        assertThat(other.peerStats().getMisses()).isEqualTo(1);
        assertThat(other.peerStats().getTimeouts()).isZero();
        // its own warm-up request at start, the other's first question and its question with a wait
        assertThat(owner.peerStats().getServedMisses()).isEqualTo(3);
        assertThat(ownerRead).isNotDone();
        storage.release();
        assertThat(ownerRead.get(30, SECONDS)).isEqualTo(Arrays.copyOf(data, length));
    }

    // the file the workers read, of random bytes
    private byte[] writeFile(long seed)
            throws IOException
    {
        byte[] data = new byte[FILE_SIZE];
        new Random(seed).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        return data;
    }

    private StorageBoundary storage()
    {
        return new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin")), PAGE_SIZE);
    }

    private byte[] readRange(Worker worker, StorageBoundary storage, List<HostAddress> peers, int position, int length, QueryReadStats readStats)
            throws IOException
    {
        CacheReadContext context = new CacheReadContext(Optional.of("s"), Optional.of("t"), true, ReadOptions.DEFAULT, readStats, peers);
        byte[] read = new byte[length];
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context);
                TrinoInput input = worker.cache().cacheInput(storage, KEY)) {
            input.readFully(position, read, 0, length);
        }
        return read;
    }

    private byte[] readAll(Worker worker, StorageBoundary storage, List<HostAddress> peers, QueryReadStats readStats)
            throws IOException
    {
        CacheReadContext context = new CacheReadContext(Optional.of("s"), Optional.of("t"), true, ReadOptions.DEFAULT, readStats, peers);
        byte[] read = new byte[FILE_SIZE];
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context);
                TrinoInput input = worker.cache().cacheInput(storage, KEY)) {
            // reads of a few pages each, as a column reader's
            for (int position = 0; position < FILE_SIZE; position += 3 * PAGE_SIZE) {
                input.readFully(position, read, position, Math.min(3 * PAGE_SIZE, FILE_SIZE - position));
            }
        }
        return read;
    }

    private Worker worker(String name)
            throws IOException
    {
        return worker(name, new PeerConfig().getFetchWait());
    }

    private Worker worker(String name, Duration fetchWait)
            throws IOException
    {
        PageCacheStats cacheStats = new PageCacheStats();
        PageCache pageCache = PageCache.create("lake", new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve(name).toString())
                .setMaxSizes("64MB")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false)
                .setAsyncWriteEnabled(false), cacheStats);
        HedgedReads noHedging = new HedgedReads(new CatalogName("lake"), new HedgedReadConfig(), new FileSystemConfig(), new HedgedReadStats());
        OverdriveFileSystemCache cache = new OverdriveFileSystemCache(OpenTelemetry.noop().getTracer("test"), "lake", pageCache, cacheStats, noHedging,
                Optional.of(new SharedScanConfig().setReadAhead(0)), new SharedScanStats());
        closing.add(cache::shutdown);
        // the worker's Trino port: its service listens one above
        int servicePort;
        try (ServerSocket socket = new ServerSocket(0)) {
            servicePort = socket.getLocalPort();
        }
        HostAddress address = HostAddress.fromParts("127.0.0.1", servicePort - 1);
        PeerStats peerStats = new PeerStats();
        PeerConfig config = new PeerConfig()
                .setSharedSecret(SECRET)
                .setBindAddress("127.0.0.1")
                .setReadTimeout(new Duration(10, SECONDS))
                .setFetchWait(fetchWait);
        PeerService service = PeerService.start("lake", config, peerStats, pageCache, cache.sharedScans().orElseThrow(), address).orElseThrow();
        closing.add(service);
        cache.usePeers(service.reads());
        return new Worker(cache, service, peerStats, address);
    }

    private record Worker(OverdriveFileSystemCache cache, PeerService service, PeerStats peerStats, HostAddress address) {}
}
