package io.overdrive.merge.shards;

import io.airlift.units.Duration;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.overdrive.merge.shards.ShardsErrorCode.SHARD_FAILED;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShardQuery}'s hedging, failover and failure policy under many threads with random replica behaviour (slow,
 * failing before or after their first rows) and consumers that stop early. The replicas are the fault injected at the
 * shard boundary; the state machine under test is the real one. Whatever happens, a query returns exactly one
 * replica's complete rows, or is missing (PARTIAL, every replica failed before answering), or fails; never a mix, never
 * a hang, and every replica attempt started is closed.
 */
class TestShardQueryStress
{
    private static final int THREADS = 16;
    private static final int QUERIES_PER_THREAD = 150;
    private static final int ROWS_PER_PAGE = 3;

    private static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(2);
    private static final ExecutorService REPLICA_THREADS = Executors.newVirtualThreadPerTaskExecutor();

    private final AtomicLong succeeded = new AtomicLong();
    private final AtomicLong missing = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong abandoned = new AtomicLong();
    private final ShardsStats stats = new ShardsStats();

    @AfterAll
    static void tearDown()
    {
        TIMER.shutdownNow();
        REPLICA_THREADS.shutdownNow();
    }

    @Test
    void randomReplicasUnderManyThreads()
            throws Exception
    {
        try (ExecutorService threads = Executors.newFixedThreadPool(THREADS)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                futures.add(threads.submit(() -> {
                    for (int i = 0; i < QUERIES_PER_THREAD; i++) {
                        runOneQuery();
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }
        }
        System.out.printf("shard queries: %s succeeded, %s missing (PARTIAL), %s failed, %s abandoned early; hedged %s, hedge wins %s, failovers %s%n",
                succeeded, missing, failed, abandoned, stats.getHedgedQueries(), stats.getHedgeWins(), stats.getFailovers());
        assertThat(succeeded.get()).isPositive();
        assertThat(missing.get()).isPositive();
        assertThat(failed.get()).isPositive();
        assertThat(stats.getHedgeWins()).isPositive();
        assertThat(stats.getFailovers()).isPositive();
    }

    private void runOneQuery()
            throws Exception
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int replicaCount = random.nextInt(1, 4);
        List<ShardUri> uris = new ArrayList<>();
        for (int i = 0; i < replicaCount; i++) {
            uris.add(new ShardUri(URI.create("http://replica-" + i + ":8080"), "c", Optional.empty()));
        }
        Shard shard = new Shard(1, uris);
        FailurePolicy policy = random.nextBoolean() ? FailurePolicy.FAIL : FailurePolicy.PARTIAL;
        List<FakeReplica> started = new ArrayList<>();
        ShardQuery query = new ShardQuery(
                shard,
                replica -> {
                    FakeReplica fake = new FakeReplica(shard, replica, uris.indexOf(replica), Behaviour.random());
                    synchronized (started) {
                        started.add(fake);
                    }
                    return fake;
                },
                TIMER,
                new Duration(random.nextInt(1, 6), MILLISECONDS),
                policy,
                "query",
                stats);
        query.start();
        boolean abandon = random.nextInt(10) == 0;
        List<Long> rows = new ArrayList<>();
        TrinoException failure = null;
        try {
            while (!query.isFinished()) {
                query.isBlocked().get(10, TimeUnit.SECONDS);
                Page page = query.getNextPage();
                if (page != null) {
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        rows.add(BIGINT.getLong(page.getBlock(0), position));
                    }
                    if (abandon) {
                        break;
                    }
                }
            }
        }
        catch (TrinoException e) {
            failure = e;
        }
        boolean wasMissing = query.isMissing();
        query.close();

        List<FakeReplica> attempts;
        synchronized (started) {
            attempts = List.copyOf(started);
        }
        if (abandon && failure == null && !wasMissing && !rows.isEmpty()) {
            abandoned.incrementAndGet();
            // the rows read so far are one replica's, in order
            int replica = (int) (rows.getFirst() / 1000);
            assertThat(rows).isEqualTo(FakeReplica.rows(replica).subList(0, rows.size()));
        }
        else if (failure != null) {
            failed.incrementAndGet();
            assertThat(failure.getErrorCode()).isEqualTo(SHARD_FAILED.toErrorCode());
            assertThat(failure.getMessage()).startsWith("Shard 1 (http://replica-");
            // either a replica failed after its rows started, or every replica failed before answering under FAIL
            boolean failedAfterAnswer = attempts.stream().anyMatch(attempt -> attempt.behaviour == Behaviour.FAIL_AFTER_ANSWER && attempt.answered().isDone() && !attempt.answered().isCompletedExceptionally());
            boolean allFailedBefore = policy == FailurePolicy.FAIL && attempts.size() == replicaCount && attempts.stream().allMatch(attempt -> attempt.behaviour == Behaviour.FAIL_BEFORE_ANSWER);
            assertThat(failedAfterAnswer || allFailedBefore).as("failure %s with %s", failure.getMessage(), attempts).isTrue();
        }
        else if (wasMissing) {
            missing.incrementAndGet();
            assertThat(policy).isEqualTo(FailurePolicy.PARTIAL);
            assertThat(rows).isEmpty();
            assertThat(attempts).hasSize(replicaCount).allMatch(attempt -> attempt.behaviour == Behaviour.FAIL_BEFORE_ANSWER);
        }
        else if (!abandon) {
            succeeded.incrementAndGet();
            // exactly one replica's complete rows, from a replica that answers completely
            int replica = (int) (rows.getFirst() / 1000);
            assertThat(rows).isEqualTo(FakeReplica.rows(replica));
            assertThat(attempts.stream().filter(attempt -> attempt.index == replica).findFirst().orElseThrow().behaviour).isEqualTo(Behaviour.ANSWER);
        }
        // every attempt is closed (losers are closed from the winner's callback, on another thread); the bound only
        // fails the test instead of hanging it
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!attempts.stream().allMatch(FakeReplica::isClosed) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(attempts).allMatch(FakeReplica::isClosed, "closed");
    }

    enum Behaviour
    {
        ANSWER, FAIL_BEFORE_ANSWER, FAIL_AFTER_ANSWER;

        static Behaviour random()
        {
            int draw = ThreadLocalRandom.current().nextInt(10);
            return draw < 6 ? ANSWER : draw < 9 ? FAIL_BEFORE_ANSWER : FAIL_AFTER_ANSWER;
        }
    }

    /**
     * A replica that answers after a random delay (0-8 ms) with 4 pages, one every 0-1 ms, or fails before or after its
     * first page. Its rows are {@code replica * 1000 + n}.
     */
    private static final class FakeReplica
            implements ReplicaQuery
    {
        private static final int PAGES = 4;

        private final Shard shard;
        private final ShardUri replica;
        private final int index;
        private final Behaviour behaviour;
        private final CompletableFuture<Void> answered = new CompletableFuture<>();
        private final Queue<Page> pages = new ArrayDeque<>();
        private boolean done;
        private boolean closed;
        private TrinoException failure;
        private CompletableFuture<Void> changed = new CompletableFuture<>();

        FakeReplica(Shard shard, ShardUri replica, int index, Behaviour behaviour)
        {
            this.shard = shard;
            this.replica = replica;
            this.index = index;
            this.behaviour = behaviour;
        }

        static List<Long> rows(int replica)
        {
            List<Long> rows = new ArrayList<>();
            for (int i = 0; i < PAGES * ROWS_PER_PAGE; i++) {
                rows.add(replica * 1000L + i);
            }
            return rows;
        }

        @Override
        public ShardUri replica()
        {
            return replica;
        }

        @Override
        public CompletableFuture<Void> answered()
        {
            return answered;
        }

        @Override
        public void start()
        {
            REPLICA_THREADS.execute(this::run);
        }

        private void run()
        {
            try {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                Thread.sleep(random.nextInt(0, 9));
                if (behaviour == Behaviour.FAIL_BEFORE_ANSWER) {
                    fail();
                    return;
                }
                List<Long> rows = rows(index);
                for (int page = 0; page < PAGES; page++) {
                    BlockBuilder builder = BIGINT.createFixedSizeBlockBuilder(ROWS_PER_PAGE);
                    for (int row = 0; row < ROWS_PER_PAGE; row++) {
                        BIGINT.writeLong(builder, rows.get(page * ROWS_PER_PAGE + row));
                    }
                    if (!offer(new Page(builder.build()))) {
                        return;
                    }
                    if (behaviour == Behaviour.FAIL_AFTER_ANSWER && page == 1) {
                        fail();
                        return;
                    }
                    Thread.sleep(random.nextInt(0, 2));
                }
                CompletableFuture<Void> toComplete;
                synchronized (this) {
                    done = true;
                    toComplete = changed;
                }
                toComplete.complete(null);
            }
            catch (InterruptedException _) {
                Thread.currentThread().interrupt();
            }
        }

        private boolean offer(Page page)
        {
            CompletableFuture<Void> toComplete;
            synchronized (this) {
                if (closed) {
                    return false;
                }
                pages.add(page);
                toComplete = changed;
            }
            answered.complete(null);
            toComplete.complete(null);
            return true;
        }

        private void fail()
        {
            TrinoException exception = new TrinoException(SHARD_FAILED, "Shard %s (%s) failed: injected".formatted(shard.number(), replica));
            CompletableFuture<Void> toComplete;
            synchronized (this) {
                if (closed) {
                    return;
                }
                failure = exception;
                toComplete = changed;
            }
            answered.completeExceptionally(exception);
            toComplete.complete(null);
        }

        @Override
        public synchronized CompletableFuture<?> isBlocked()
        {
            if (!pages.isEmpty() || done || failure != null || closed) {
                return NOT_BLOCKED;
            }
            if (changed.isDone()) {
                changed = new CompletableFuture<>();
            }
            return changed;
        }

        @Override
        public synchronized Page getNextPage()
        {
            if (failure != null) {
                throw failure;
            }
            return pages.poll();
        }

        @Override
        public synchronized boolean isFinished()
        {
            if (failure != null) {
                throw failure;
            }
            return closed || (done && pages.isEmpty());
        }

        @Override
        public void close()
        {
            synchronized (this) {
                closed = true;
                pages.clear();
            }
            answered.cancel(false);
        }

        synchronized boolean isClosed()
        {
            return closed;
        }

        @Override
        public String toString()
        {
            return "replica %s %s".formatted(index, behaviour);
        }
    }
}
