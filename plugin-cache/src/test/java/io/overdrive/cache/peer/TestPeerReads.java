package io.overdrive.cache.peer;

import alluxio.client.file.cache.PageId;
import com.sun.net.httpserver.HttpServer;
import io.airlift.http.client.HttpClientConfig;
import io.airlift.http.client.jetty.JettyHttpClient;
import io.airlift.units.Duration;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.trino.spi.HostAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
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
import java.util.stream.Stream;

import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Peer reads over real sockets: a worker's service (Netty) over a real page cache on disk, asked by the client
 * (Airlift's Jetty client). Faults are injected at the boundary only: a fake peer that sends damaged bytes or stalls,
 * a port where nothing listens, a client with another secret.
 */
class TestPeerReads
{
    private static final String SECRET = "a-secret-of-the-catalog-0123456789";
    private static final int PAGE_SIZE = 64 * 1024;
    private static final String FILE = "file-v1";
    private static final int PAGES = 4;

    @TempDir
    Path directory;

    private PageCache cache;
    private PeerStats serverStats;
    private PeerPageServer server;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void setUp()
    {
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.toString())
                .setMaxSizes("64MB")
                .setPageSize(io.airlift.units.DataSize.of(64, KILOBYTE))
                .setAdmissionEnabled(false)
                .setAsyncWriteEnabled(false);
        cache = PageCache.create("lake", config, new PageCacheStats());
        for (int page = 0; page < PAGES; page++) {
            cache.write("/warehouse/t/" + FILE, new PageId(FILE, page), ByteBuffer.wrap(content(page)), CacheReadContext.forTable("s", "t", true));
        }
        serverStats = new PeerStats();
        server = new PeerPageServer(new InetSocketAddress("127.0.0.1", 0), cache, auth(SECRET), config(), serverStats);
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        for (AutoCloseable closeable : closing.reversed()) {
            closeable.close();
        }
        server.close();
        cache.close();
    }

    @Test
    void aPeerServesTheBytesItCachesVerified()
    {
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong());
        Random random = new Random(1);
        for (int read = 0; read < 50; read++) {
            long start = random.nextInt(PAGES * PAGE_SIZE - 1);
            int length = 1 + random.nextInt((int) Math.min(3 * PAGE_SIZE, PAGES * PAGE_SIZE - start));
            byte[] target = new byte[length + 10];
            assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, start, target, 10, length)).isTrue();
            assertThat(Arrays.copyOfRange(target, 10, 10 + length)).isEqualTo(expected(start, length));
        }
        assertThat(stats.getHits()).isEqualTo(50);
        assertThat(stats.getHitBytes()).isPositive();
        assertThat(serverStats.getServed()).isEqualTo(50);
        assertThat(serverStats.getServedBytes()).isEqualTo(stats.getHitBytes());
    }

    @Test
    void anotherVersionOfTheFileIsAMissAndThePeerStaysInUse()
    {
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong());
        byte[] target = new byte[1000];
        // the key of a newer version of the file (its length or modification time changed): the peer holds the older one
        assertThat(client.read(List.of(peer(server.port())), "file-v2", PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        // bytes past what the peer holds: a miss too, never a part of them
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, PAGES * PAGE_SIZE - 10, target, 0, 1000)).isFalse();
        assertThat(stats.getMisses()).isEqualTo(2);
        assertThat(serverStats.getServedMisses()).isEqualTo(2);
        // a miss is not a failure: the peer is asked again at once
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isTrue();
        assertThat(stats.getSkippedPeerDown()).isZero();
    }

    @Test
    void aRequestNotSignedWithTheSecretIsRefused()
            throws Exception
    {
        PeerStats stats = new PeerStats();
        AtomicLong ticker = new AtomicLong();
        PeerPageClient client = client("another-secret-of-16+-chars", stats, ticker);
        byte[] target = new byte[1000];
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(target).containsOnly(0);
        assertThat(stats.getRefused()).isEqualTo(1);
        assertThat(serverStats.getUnauthenticated()).isEqualTo(1);
        assertThat(serverStats.getServed()).isZero();
        // not asked again until cache.peer.retry-after has passed
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getSkippedPeerDown()).isEqualTo(1);
        assertThat(serverStats.getUnauthenticated()).isEqualTo(1);
        ticker.addAndGet(SECONDS.toNanos(31));
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(serverStats.getUnauthenticated()).isEqualTo(2);

        // no signature at all, or a signed request altered on the way
        try (var http = java.net.http.HttpClient.newHttpClient()) {
            String path = PeerProtocol.pathAndQuery(FILE, PAGE_SIZE, 0, 1000);
            var unsigned = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + server.port() + path)).build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(unsigned.statusCode()).isEqualTo(401);
            String signature = auth(SECRET).sign(path);
            var altered = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + server.port() + path.replace("length=1000", "length=2000")))
                    .header("Authorization", signature).build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(altered.statusCode()).isEqualTo(401);
            var signed = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + server.port() + path))
                    .header("Authorization", signature).build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(signed.statusCode()).isEqualTo(200);
        }
        assertThat(serverStats.getUnauthenticated()).isEqualTo(4);
    }

    @Test
    void aPageDamagedOnThePeersDiskIsNeverSent()
            throws Exception
    {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.filter(Files::isRegularFile).filter(file -> file.toString().contains("LOCAL")).toList()) {
                byte[] bytes = Files.readAllBytes(file);
                if (bytes.length > 200) {
                    bytes[100] ^= 0x5A;
                    Files.write(file, bytes);
                }
            }
        }
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong());
        byte[] target = new byte[PAGE_SIZE];
        for (int page = 0; page < PAGES; page++) {
            assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, (long) page * PAGE_SIZE, target, 0, 1000)).isFalse();
        }
        assertThat(serverStats.getServed()).isZero();
        assertThat(serverStats.getServedMisses()).isEqualTo(PAGES);
        assertThat(stats.getMisses()).isEqualTo(PAGES);
    }

    @Test
    void damagedBytesFromAPeerAreDiscarded()
            throws Exception
    {
        // a fake peer that answers with the right checksums over bytes damaged on the way
        HttpServer fake = fakePeer(exchange -> {
            byte[] data = expected(0, 1000);
            byte[] body = concat(PeerProtocol.checksums(data, 0, data.length), data);
            body[body.length - 7] ^= 1;
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong());
        byte[] target = new byte[1000];
        assertThat(client.read(List.of(peer(fake.getAddress().getPort())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getChecksumFailures()).isEqualTo(1);
        assertThat(stats.getHits()).isZero();
        // and an answer cut short
        HttpServer cutShort = fakePeer(exchange -> {
            byte[] data = expected(0, 1000);
            byte[] body = concat(PeerProtocol.checksums(data, 0, data.length), Arrays.copyOf(data, 500));
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        assertThat(client.read(List.of(peer(cutShort.getAddress().getPort())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getChecksumFailures()).isEqualTo(2);
    }

    @Test
    void aStalledPeerCostsAtMostTheReadTimeout()
            throws Exception
    {
        CountDownLatch release = new CountDownLatch(1);
        closing.add(release::countDown);
        HttpServer stalled = fakePeer(exchange -> {
            try {
                release.await();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong(), new Duration(200, MILLISECONDS));
        // a first request, to the live peer, so that the JVM's first connection's cost is not in the measure
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, 0, new byte[10], 0, 10)).isTrue();
        byte[] target = new byte[1000];
        long start = System.nanoTime();
        assertThat(client.read(List.of(peer(stalled.getAddress().getPort())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        long elapsed = System.nanoTime() - start;
        assertThat(stats.getTimeouts()).isEqualTo(1);
        // cache.peer.read-timeout (200ms here), and not a multiple of it
        assertThat(elapsed).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(190)).isLessThan(SECONDS.toNanos(5));
    }

    @Test
    void aPeerThatTimesOutIsSkippedBrieflyLongerAfterEachTimeoutAndInUseAgainOnceItAnswers()
            throws Exception
    {
        // a peer under load: it answers late while stalled is set, then at once ("not cached")
        AtomicBoolean stalledNow = new AtomicBoolean(true);
        CountDownLatch release = new CountDownLatch(1);
        closing.add(release::countDown);
        HttpServer slow = fakePeer(exchange -> {
            if (stalledNow.get()) {
                try {
                    release.await(2, SECONDS);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        PeerStats stats = new PeerStats();
        AtomicLong ticker = new AtomicLong();
        PeerPageClient client = client(SECRET, stats, ticker, new Duration(200, MILLISECONDS));
        List<HostAddress> peers = List.of(peer(slow.getAddress().getPort()));
        byte[] target = new byte[1000];
        long second = SECONDS.toNanos(1);
        // each timeout in a row doubles the time it is skipped: 1 s, 2 s, 4 s
        long skippedFor = second;
        long timeouts = 0;
        long skipped = 0;
        for (int inARow = 1; inARow <= 3; inARow++) {
            assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
            assertThat(stats.getTimeouts()).isEqualTo(++timeouts);
            ticker.addAndGet(skippedFor - second / 10);
            assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
            assertThat(stats.getSkippedPeerDown()).isEqualTo(++skipped);
            assertThat(stats.getTimeouts()).isEqualTo(timeouts);
            ticker.addAndGet(second / 5);
            skippedFor *= 2;
        }
        // it answers again: asked at once after its last backoff, and from then on each time
        stalledNow.set(false);
        assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getMisses()).isEqualTo(1);
        assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getMisses()).isEqualTo(2);
        assertThat(stats.getSkippedPeerDown()).isEqualTo(skipped);
        // and its run of timeouts is over: a new timeout skips it for 1 s again, never past cache.peer.retry-after
        stalledNow.set(true);
        assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getTimeouts()).isEqualTo(++timeouts);
        ticker.addAndGet(second + second / 10);
        stalledNow.set(false);
        assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getMisses()).isEqualTo(3);
        assertThat(stats.getSkippedPeerDown()).isEqualTo(skipped);
    }

    @Test
    void timeoutsInARowNeverSkipAPeerLongerThanRetryAfter()
            throws Exception
    {
        HttpServer stalled = fakePeer(exchange -> {
            try {
                Thread.sleep(1_000);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        PeerStats stats = new PeerStats();
        AtomicLong ticker = new AtomicLong();
        PeerConfig config = config().setReadTimeout(new Duration(100, MILLISECONDS)).setRetryAfter(new Duration(3, SECONDS));
        PeerPageClient client = new PeerPageClient(new JettyHttpClient(new HttpClientConfig().setConnectTimeout(config.getReadTimeout()).setRequestTimeout(config.getReadTimeout())),
                true, auth(SECRET), config, stats, ticker::get);
        closing.add(client);
        List<HostAddress> peers = List.of(peer(stalled.getAddress().getPort()));
        byte[] target = new byte[10];
        for (int timeout = 1; timeout <= 5; timeout++) {
            assertThat(client.read(peers, FILE, PAGE_SIZE, 0, target, 0, 10)).isFalse();
            assertThat(stats.getTimeouts()).isEqualTo(timeout);
            // 1 s, 2 s, then cache.peer.retry-after (3 s) however many came before
            ticker.addAndGet(SECONDS.toNanos(3) + 1);
        }
        assertThat(stats.getSkippedPeerDown()).isZero();
    }

    @Test
    void aDeadPeerIsSkippedAndAskedAgainLater()
            throws Exception
    {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PeerStats stats = new PeerStats();
        AtomicLong ticker = new AtomicLong();
        PeerPageClient client = client(SECRET, stats, ticker);
        byte[] target = new byte[1000];
        assertThat(client.read(List.of(peer(port)), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getConnectionFailures()).isEqualTo(1);
        for (int read = 0; read < 5; read++) {
            assertThat(client.read(List.of(peer(port)), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        }
        assertThat(stats.getSkippedPeerDown()).isEqualTo(5);
        assertThat(stats.getConnectionFailures()).isEqualTo(1);
        // a live peer next in the list is asked meanwhile
        assertThat(client.read(List.of(peer(port), peer(server.port())), FILE, PAGE_SIZE, 0, target, 0, 1000)).isTrue();
        ticker.addAndGet(SECONDS.toNanos(31));
        assertThat(client.read(List.of(peer(port)), FILE, PAGE_SIZE, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getConnectionFailures()).isEqualTo(2);
    }

    @Test
    void requestsTheServiceCannotServeAreRefusedNotGuessed()
    {
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong());
        byte[] target = new byte[1000];
        // another page size: the nodes' cache.page-size differ
        assertThat(client.read(List.of(peer(server.port())), FILE, PAGE_SIZE * 2, 0, target, 0, 1000)).isFalse();
        assertThat(stats.getRefused()).isEqualTo(1);
        assertThat(serverStats.getBadRequests()).isEqualTo(1);
        // longer than cache.peer.max-read-size: not asked at all
        PeerPageClient fresh = client(SECRET, new PeerStats(), new AtomicLong());
        assertThat(fresh.read(List.of(peer(server.port())), FILE, PAGE_SIZE, 0, new byte[2 << 20], 0, 2 << 20)).isFalse();
        assertThat(serverStats.getBadRequests()).isEqualTo(1);
    }

    /**
     * Many readers at once, random ranges of cached and uncached bytes, a server with two threads (so some requests are
     * refused as busy): every read either returns the right bytes or returns false.
     */
    @Test
    void concurrentReadersGetTheRightBytesOrNone()
            throws Exception
    {
        server.close();
        serverStats = new PeerStats();
        server = new PeerPageServer(new InetSocketAddress("127.0.0.1", 0), cache, auth(SECRET), config().setServerThreads(2), serverStats);
        PeerStats stats = new PeerStats();
        PeerPageClient client = client(SECRET, stats, new AtomicLong());
        ExecutorService executor = Executors.newFixedThreadPool(16);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int thread = 0; thread < 16; thread++) {
                long seed = thread;
                results.add(executor.submit(() -> {
                    Random random = new Random(seed);
                    int hits = 0;
                    for (int read = 0; read < 100; read++) {
                        // up to a page past the cached ones: those reads miss
                        long start = random.nextInt((PAGES + 1) * PAGE_SIZE - 1);
                        int length = 1 + random.nextInt(2 * PAGE_SIZE);
                        byte[] target = new byte[length];
                        if (client.read(List.of(peer(server.port())), FILE, PAGE_SIZE, start, target, 0, length)) {
                            assertThat(start + length).isLessThanOrEqualTo((long) PAGES * PAGE_SIZE);
                            assertThat(target).isEqualTo(expected(start, length));
                            hits++;
                        }
                    }
                    return hits;
                }));
            }
            int hits = 0;
            for (Future<Integer> result : results) {
                hits += result.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
            assertThat(hits).isPositive();
            assertThat(stats.getHits()).isEqualTo(hits);
            assertThat(stats.getHits() + stats.getMisses() + stats.getBusy() + stats.getSkippedPeerDown()).isEqualTo(1600);
            assertThat(serverStats.getServed()).isEqualTo(hits);
        }
        finally {
            executor.shutdownNow();
        }
    }

    private PeerPageClient client(String secret, PeerStats stats, AtomicLong ticker)
    {
        // a cold JVM's first request takes a few hundred milliseconds: only the stall test times out
        return client(secret, stats, ticker, new Duration(5, SECONDS));
    }

    private PeerPageClient client(String secret, PeerStats stats, AtomicLong ticker, Duration readTimeout)
    {
        PeerConfig config = config().setReadTimeout(readTimeout);
        JettyHttpClient http = new JettyHttpClient(new HttpClientConfig()
                .setConnectTimeout(config.getReadTimeout())
                .setRequestTimeout(config.getReadTimeout()));
        PeerPageClient client = new PeerPageClient(http, true, auth(secret), config, stats, ticker::get);
        closing.add(client);
        return client;
    }

    private static PeerConfig config()
    {
        return new PeerConfig()
                .setSharedSecret(SECRET)
                .setPortOffset(1)
                .setReadTimeout(new Duration(200, MILLISECONDS))
                .setMaxReadSize(io.airlift.units.DataSize.of(1, io.airlift.units.DataSize.Unit.MEGABYTE));
    }

    private static PeerAuth auth(String secret)
    {
        return new PeerAuth(secret, InstantSource.system());
    }

    // the client adds cache.peer.port-offset (1) to Trino's port
    private static HostAddress peer(int servicePort)
    {
        return HostAddress.fromParts("127.0.0.1", servicePort - 1);
    }

    private HttpServer fakePeer(com.sun.net.httpserver.HttpHandler handler)
            throws IOException
    {
        HttpServer fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        fake.createContext("/", exchange -> {
            try {
                handler.handle(exchange);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        fake.setExecutor(Executors.newCachedThreadPool());
        fake.start();
        closing.add(() -> fake.stop(0));
        return fake;
    }

    private static byte[] content(int page)
    {
        byte[] bytes = new byte[PAGE_SIZE];
        new Random(page * 7919L).nextBytes(bytes);
        return bytes;
    }

    // the file's bytes from start (pages past the cached ones are read as zeros: never compared, those reads miss)
    private static byte[] expected(long start, int length)
    {
        byte[] file = new byte[(PAGES + 2) * PAGE_SIZE];
        for (int page = 0; page < PAGES; page++) {
            System.arraycopy(content(page), 0, file, page * PAGE_SIZE, PAGE_SIZE);
        }
        return Arrays.copyOfRange(file, (int) start, (int) start + length);
    }

    private static byte[] concat(byte[] first, byte[] second)
    {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
