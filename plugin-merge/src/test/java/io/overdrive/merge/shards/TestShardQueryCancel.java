package io.overdrive.merge.shards;

import com.google.common.base.Splitter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.airlift.units.Duration;
import io.trino.client.QueryError;
import io.trino.client.QueryResults;
import io.trino.client.StatementStats;
import io.trino.client.TrinoJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static io.trino.client.TrinoJsonCodec.jsonCodec;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.testing.TestingConnectorSession.SESSION;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a {@link ShardQuery} (its Trino query is done, failed or cancelled) cancels its queries on the shard, at any
 * point of starting them: while the query is being posted (the shard has queued it, its id is not known yet), while
 * the first poll submits it, while it runs, while a hedge is being started. The client stack is the real one
 * ({@link ShardClient}, Trino's statement client, OkHttp); the shard is a fake Trino coordinator at the HTTP boundary
 * whose answers can be held or delayed. The thread that closes is sometimes interrupted, as Trino's
 * {@code Driver.close()} interrupts a driver thread while it closes its operators.
 */
class TestShardQueryCancel
{
    private static final int THREADS = 8;
    private static final int QUERIES_PER_THREAD = 40;
    // how long to wait for an asynchronous event before failing instead of hanging; never reached when all is well
    private static final long AWAIT_BOUND_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final AtomicInteger sqlIds = new AtomicInteger();
    private final List<Throwable> closeFailures = new CopyOnWriteArrayList<>();
    private ShardClient client;
    private FakeShard fakeShard;

    @BeforeEach
    void setUp()
            throws IOException
    {
        client = new ShardClient(new ShardsConfig());
        fakeShard = new FakeShard();
    }

    @AfterEach
    void tearDown()
    {
        fakeShard.close();
        client.close();
    }

    /**
     * The close comes at each step of starting the query, the shard's answer to that step held until after the close.
     */
    @Test
    void closeAtEachStepOfStartingCancelsTheShardQuery()
            throws Exception
    {
        for (ClosePoint point : ClosePoint.values()) {
            for (boolean interrupted : List.of(false, true)) {
                String sql = nextSql();
                fakeShard.holdFromRequest(point.heldRequest);
                ShardQuery query = query(sql, 1, new Duration(1, HOURS));
                query.start();
                fakeShard.awaitHeld();
                close(query, interrupted ? Interrupt.BEFORE : Interrupt.NONE);
                fakeShard.release();
                assertThat(fakeShard.awaitCancelled(sql))
                        .as("the shard's query, closed %s by %s thread", point, interrupted ? "an interrupted" : "a")
                        .isEqualTo(State.CANCELLED);
            }
        }
        assertThat(closeFailures).as("close failures").isEmpty();
        assertThat(fakeShard.cancelledQueued.get()).isPositive();
        assertThat(fakeShard.cancelledRunning.get()).isPositive();
    }

    /**
     * Many queries of 1 to 3 replicas (hedged after 1-5 ms) on a shard that answers 0-5 ms late, each closed after a
     * random number of its requests reached the shard, by a thread that may be interrupted before or during the close.
     */
    @Test
    void closeAtAnyPointCancelsTheShardQueries()
            throws Exception
    {
        fakeShard.setMaxDelayMillis(5);
        try (ExecutorService threads = Executors.newFixedThreadPool(THREADS)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                futures.add(threads.submit(() -> {
                    for (int i = 0; i < QUERIES_PER_THREAD; i++) {
                        startAndClose();
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }
        }
        Map<String, State> states = fakeShard.awaitAllCancelled();
        System.out.printf("shard queries: %s, cancelled while queued %s, while running %s%n", states.size(), fakeShard.cancelledQueued.get(), fakeShard.cancelledRunning.get());
        List<String> notCancelled = states.entrySet().stream()
                .filter(entry -> entry.getValue() != State.CANCELLED)
                .map(entry -> entry.getKey() + "=" + entry.getValue())
                .sorted()
                .toList();
        assertThat(notCancelled).as("queries not cancelled on the shard, of %s", states.size()).isEmpty();
        assertThat(closeFailures).as("close failures").isEmpty();
        // the closes came before the shard ran a query as well as after
        assertThat(fakeShard.cancelledQueued.get()).isPositive();
        assertThat(fakeShard.cancelledRunning.get()).isPositive();
    }

    private void startAndClose()
            throws InterruptedException
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String sql = nextSql();
        ShardQuery query = query(sql, random.nextInt(1, 4), new Duration(random.nextInt(1, 6), MILLISECONDS));
        query.start();
        // 0: as soon as it started; 1: once the shard got the POST; 2: the first poll; 3: a later poll
        fakeShard.awaitRequests(sql, random.nextInt(0, 4));
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(0, 2000)));
        close(query, Interrupt.values()[random.nextInt(Interrupt.values().length)]);
    }

    /**
     * Closes the query on a platform thread (as Trino's driver threads are), interrupted as asked.
     */
    private void close(ShardQuery query, Interrupt interrupt)
            throws InterruptedException
    {
        Thread closer = Thread.ofPlatform().start(() -> {
            if (interrupt == Interrupt.BEFORE) {
                Thread.currentThread().interrupt();
            }
            try {
                query.close();
            }
            catch (Throwable t) {
                closeFailures.add(t);
            }
        });
        if (interrupt == Interrupt.DURING) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(0, 300)));
            closer.interrupt();
        }
        closer.join();
    }

    private ShardQuery query(String sql, int replicaCount, Duration hedgeDelay)
    {
        List<ShardUri> replicas = new ArrayList<>();
        for (int i = 0; i < replicaCount; i++) {
            replicas.add(new ShardUri(fakeShard.uri(), "catalog_" + i, Optional.empty()));
        }
        ShardsConfig config = new ShardsConfig().setHedgeDelay(hedgeDelay);
        return ShardQuery.create(client, new Shard(1, replicas), SESSION, sql, List.of(BIGINT), config, FailurePolicy.FAIL, new ShardsStats(), new ShardStats());
    }

    private String nextSql()
    {
        return "SELECT count(*) FROM big WHERE id <> " + sqlIds.incrementAndGet();
    }

    private enum ClosePoint
    {
        // the shard has queued the query; its answer (the query's id and next URI) is held
        WHILE_POSTING(1),
        // the first poll submitted the query on the shard; its answer is held
        WHILE_FIRST_POLL(2),
        // the query runs on the shard; a later poll is held
        WHILE_RUNNING(4);

        private final int heldRequest;

        ClosePoint(int heldRequest)
        {
            this.heldRequest = heldRequest;
        }
    }

    private enum Interrupt
    {
        NONE, BEFORE, DURING
    }

    enum State
    {
        QUEUED, RUNNING, CANCELLED
    }

    /**
     * Enough of a Trino coordinator's client protocol for queries that do not end on their own (a long scan or
     * aggregation on a big shard): a POST queues a query, which runs once the client first follows its next URI (as
     * Trino submits a query on its first poll); a poll is answered with the next URI; a DELETE of any of its URIs
     * cancels it. Answers come up to {@code maxDelayMillis} late, and from {@link #holdFromRequest} on the query's n-th
     * request (the POST being the first) waits for {@link #release()}. Queries are told apart by their SQL.
     */
    private static final class FakeShard
            implements AutoCloseable
    {
        private static final TrinoJsonCodec<QueryResults> CODEC = jsonCodec(QueryResults.class);

        private final HttpServer server;
        private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
        private final AtomicLong ids = new AtomicLong();
        private final Map<String, State> states = new ConcurrentHashMap<>();
        private final Map<String, String> sqlById = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> requestsById = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> requestsBySql = new ConcurrentHashMap<>();
        private final AtomicLong cancelledQueued = new AtomicLong();
        private final AtomicLong cancelledRunning = new AtomicLong();
        private volatile int maxDelayMillis;
        private volatile int holdFromRequest = Integer.MAX_VALUE;
        private volatile CountDownLatch held = new CountDownLatch(0);
        private volatile CountDownLatch released = new CountDownLatch(0);

        FakeShard()
                throws IOException
        {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(handlers);
            server.createContext("/v1/statement", exchange -> {
                try (exchange) {
                    handle(exchange);
                }
                catch (InterruptedException _) {
                    Thread.currentThread().interrupt();
                }
            });
            server.start();
        }

        URI uri()
        {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        void setMaxDelayMillis(int maxDelayMillis)
        {
            this.maxDelayMillis = maxDelayMillis;
        }

        void holdFromRequest(int request)
        {
            held = new CountDownLatch(1);
            released = new CountDownLatch(1);
            holdFromRequest = request;
        }

        void awaitHeld()
                throws InterruptedException
        {
            assertThat(held.await(10, TimeUnit.SECONDS)).as("a request held by the shard").isTrue();
        }

        void release()
        {
            holdFromRequest = Integer.MAX_VALUE;
            released.countDown();
        }

        private void handle(HttpExchange exchange)
                throws IOException, InterruptedException
        {
            String sql = new String(exchange.getRequestBody().readAllBytes(), UTF_8);
            // /v1/statement, or /v1/statement/{queued|executing}/{id}/{slug}/{token}
            List<String> path = Splitter.on('/').omitEmptyStrings().splitToList(exchange.getRequestURI().getPath());
            String method = exchange.getRequestMethod();
            if (method.equals("DELETE")) {
                State previous = states.put(path.get(3), State.CANCELLED);
                if (previous == State.QUEUED) {
                    cancelledQueued.incrementAndGet();
                }
                else if (previous == State.RUNNING) {
                    cancelledRunning.incrementAndGet();
                }
                exchange.sendResponseHeaders(204, -1);
                return;
            }
            String id;
            if (method.equals("POST")) {
                id = "query_" + ids.incrementAndGet();
                sqlById.put(id, sql);
                states.put(id, State.QUEUED);
            }
            else {
                id = path.get(3);
                states.computeIfPresent(id, (_, state) -> state == State.QUEUED ? State.RUNNING : state);
            }
            int request = requestsById.computeIfAbsent(id, _ -> new AtomicInteger()).incrementAndGet();
            requestsBySql.computeIfAbsent(sqlById.get(id), _ -> new AtomicInteger()).incrementAndGet();
            if (request >= holdFromRequest) {
                held.countDown();
                released.await(30, TimeUnit.SECONDS);
            }
            int delay = maxDelayMillis;
            if (delay > 0) {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(0, delay * 1000)));
            }
            if (states.get(id) == State.CANCELLED) {
                QueryError error = new QueryError("Query was canceled", null, 3, "USER_CANCELED", "USER_ERROR", null, null);
                respond(exchange, new QueryResults(id, uri(), null, null, null, null, stats("FAILED"), error, List.of(), null, OptionalLong.empty()));
                return;
            }
            String phase = method.equals("POST") ? "queued" : "executing";
            URI next = URI.create("%s/v1/statement/%s/%s/slug/%s".formatted(uri(), phase, id, request));
            respond(exchange, new QueryResults(id, uri(), null, next, null, null, stats(states.get(id).name()), null, List.of(), null, OptionalLong.empty()));
        }

        private static StatementStats stats(String state)
        {
            return StatementStats.builder()
                    .setState(state)
                    .setProgressPercentage(OptionalDouble.empty())
                    .setRunningPercentage(OptionalDouble.empty())
                    .build();
        }

        private static void respond(HttpExchange exchange, QueryResults results)
                throws IOException
        {
            byte[] body = CODEC.toJson(results).getBytes(UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream output = exchange.getResponseBody()) {
                output.write(body);
            }
        }

        /**
         * Waits until the shard received {@code count} requests (POSTs and polls) for queries of this SQL.
         */
        void awaitRequests(String sql, int count)
                throws InterruptedException
        {
            // a bound only to fail instead of hanging: the requests are sent, however loaded the machine
            long deadline = System.nanoTime() + AWAIT_BOUND_NANOS;
            while (requestsBySql.getOrDefault(sql, new AtomicInteger()).get() < count) {
                assertThat(System.nanoTime()).as("%s requests for %s reached the shard", count, sql).isLessThan(deadline);
                Thread.sleep(0, 100_000);
            }
        }

        /**
         * The state of the query of this SQL once it is cancelled, or after two minutes.
         */
        State awaitCancelled(String sql)
                throws InterruptedException
        {
            long deadline = System.nanoTime() + AWAIT_BOUND_NANOS;
            while (true) {
                State state = sqlById.entrySet().stream()
                        .filter(entry -> entry.getValue().equals(sql))
                        .map(entry -> states.get(entry.getKey()))
                        .findFirst()
                        .orElse(null);
                if (state == State.CANCELLED || System.nanoTime() > deadline) {
                    return state;
                }
                Thread.sleep(10);
            }
        }

        /**
         * Every query's state once all are cancelled, or after two minutes.
         */
        Map<String, State> awaitAllCancelled()
                throws InterruptedException
        {
            long deadline = System.nanoTime() + AWAIT_BOUND_NANOS;
            while (!states.values().stream().allMatch(state -> state == State.CANCELLED) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            return Map.copyOf(states);
        }

        @Override
        public void close()
        {
            release();
            server.stop(0);
            handlers.shutdownNow();
        }
    }
}
