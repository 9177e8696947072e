package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.testing.TestingTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * {@link Hedger} on {@link HedgedReads}'s own pool (virtual threads, no core threads, a {@link SynchronousQueue}), with
 * attempts that record how often they ran and were released. Ordering is by latches; the thresholds are either far
 * above (10s, no hedge) or far below (10ms) what an attempt takes, and a slow attempt blocks until the test lets it go.
 */
@Timeout(30)
class TestHedger
{
    private static final HedgeThreshold NEVER = HedgeThreshold.fixed(SECONDS.toNanos(10));
    private static final HedgeThreshold SOON = HedgeThreshold.fixed(MILLISECONDS.toNanos(10));

    private final List<ExecutorService> executors = new ArrayList<>();
    private final HedgedReadStats stats = new HedgedReadStats();

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        for (ExecutorService executor : executors) {
            executor.shutdownNow();
            assertThat(executor.awaitTermination(10, SECONDS)).isTrue();
        }
    }

    @Test
    void fastPrimaryIsNotHedged()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        TestAttempt primary = new TestAttempt("primary", TestAttempt::succeed);
        HedgeSupplier hedges = new HedgeSupplier(() -> new TestAttempt("hedge", TestAttempt::succeed));

        assertThat(hedger.read(primary, hedges, NEVER)).isSameAs(primary);

        assertThat(hedges.calls()).isZero();
        assertThat(primary.runs()).isEqualTo(1);
        assertThat(primary.releases()).isZero();
        // it ran on the pool, not in the reading thread
        assertThat(primary.thread()).isNotSameAs(Thread.currentThread());
        assertThat(stats.getReads()).isEqualTo(1);
        assertThat(stats.getHedgedReadOps()).isZero();
        assertThat(stats.getUnhedgedReadsPoolFull()).isZero();
    }

    @Test
    void slowPrimaryIsHedgedAndTheHedgeWins()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        CountDownLatch primaryGoes = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitIgnoringInterrupts(primaryGoes));
        TestAttempt hedge = new TestAttempt("hedge", TestAttempt::succeed);
        HedgeSupplier hedges = new HedgeSupplier(() -> hedge);

        assertThat(hedger.read(primary, hedges, SOON)).isSameAs(hedge);

        assertThat(hedges.calls()).isEqualTo(1);
        assertThat(hedge.runs()).isEqualTo(1);
        assertThat(hedge.thread()).isNotSameAs(Thread.currentThread());
        assertThat(stats.getHedgedReadOps()).isEqualTo(1);
        assertThat(stats.getHedgedReadOpsWin()).isEqualTo(1);
        assertThat(stats.getHedgedReadOpsInCurThread()).isZero();
        // the loser is interrupted, and released only once it stops
        await(primary.interrupted);
        assertThat(primary.releases()).isZero();
        primaryGoes.countDown();
        await(primary.released);
        assertThat(primary.releases()).isEqualTo(1);
        assertThat(primary.releasedWhileRunning()).isZero();
        // the interrupt meant to stop it was cleared before its release: closing a stream in an interrupted thread can fail
        assertThat(primary.releasedInterrupted()).isFalse();
        assertThat(hedge.releases()).isZero();
        // the loser read its bytes for nothing
        assertThat(stats.getWastedBytes()).isEqualTo(TestAttempt.BYTES);
    }

    @Test
    void slowPrimaryWinsOverASlowerHedge()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        CountDownLatch primaryGoes = new CountDownLatch(1);
        CountDownLatch hedgeGoes = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitIgnoringInterrupts(primaryGoes));
        TestAttempt hedge = new TestAttempt("hedge", attempt -> attempt.awaitIgnoringInterrupts(hedgeGoes));
        Future<Hedger.Attempt> read = executor().submit(() -> hedger.read(primary, () -> hedge, SOON));

        await(hedge.started);
        primaryGoes.countDown();
        assertThat(read.get(10, SECONDS)).isSameAs(primary);
        assertThat(stats.getHedgedReadOps()).isEqualTo(1);
        assertThat(stats.getHedgedReadOpsWin()).isZero();
        await(hedge.interrupted);
        assertThat(hedge.releases()).isZero();
        hedgeGoes.countDown();
        await(hedge.released);
        assertThat(hedge.releases()).isEqualTo(1);
        assertThat(primary.releases()).isZero();
    }

    @Test
    void primaryFailingAfterTheThresholdLosesToTheHedge()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        IOException primaryFailure = new IOException("primary failed");
        CountDownLatch hedgeStarted = new CountDownLatch(1);
        CountDownLatch primaryFailing = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> {
            attempt.awaitIgnoringInterrupts(hedgeStarted);
            primaryFailing.countDown();
            throw primaryFailure;
        });
        // the hedge succeeds only once the primary is failing
        TestAttempt hedge = new TestAttempt("hedge", attempt -> {
            hedgeStarted.countDown();
            attempt.awaitIgnoringInterrupts(primaryFailing);
        });

        assertThat(hedger.read(primary, () -> hedge, SOON)).isSameAs(hedge);

        await(primary.released);
        assertThat(primary.failed()).isSameAs(primaryFailure);
        assertThat(primary.releases()).isEqualTo(1);
        assertThat(primary.releasedWhileRunning()).isZero();
        assertThat(hedge.releases()).isZero();
        assertThat(stats.getHedgedReadOpsWin()).isEqualTo(1);
        // the read succeeded: no failure counted, and a failed loser read nothing worth counting
        assertThat(stats.getReadFailures().getTotalCount()).isZero();
        assertThat(stats.getBothFailed()).isZero();
        assertThat(stats.getWastedBytes()).isZero();
    }

    @Test
    void budgetRefusesTheHedge()
            throws Exception
    {
        // a ratio of 0.5: the first read earns half a hedge
        Hedger hedger = hedger(pool(2), 0.5);
        CountDownLatch primaryGoes = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitIgnoringInterrupts(primaryGoes));
        HedgeSupplier hedges = new HedgeSupplier(() -> new TestAttempt("hedge", TestAttempt::succeed));
        Future<Hedger.Attempt> read = executor().submit(() -> hedger.read(primary, hedges, SOON));

        awaitTrue(() -> stats.getHedgesRefusedByBudget() == 1);
        assertThat(read.isDone()).isFalse();
        primaryGoes.countDown();
        assertThat(read.get(10, SECONDS)).isSameAs(primary);

        assertThat(hedges.calls()).isZero();
        assertThat(primary.interrupted.getCount()).isEqualTo(1);
        assertThat(primary.releases()).isZero();
        assertThat(stats.getHedgedReadOps()).isZero();

        // the second read brings the budget to one hedge
        CountDownLatch secondGoes = new CountDownLatch(1);
        TestAttempt second = new TestAttempt("second", attempt -> attempt.awaitIgnoringInterrupts(secondGoes));
        TestAttempt hedge = new TestAttempt("hedge", TestAttempt::succeed);
        assertThat(hedger.read(second, () -> hedge, SOON)).isSameAs(hedge);
        assertThat(stats.getHedgesRefusedByBudget()).isEqualTo(1);
        assertThat(stats.getHedgedReadOps()).isEqualTo(1);
        secondGoes.countDown();
        await(second.released);
    }

    @Test
    void primaryRunsUnhedgedInTheReadingThreadWhenThePoolIsFull()
            throws Exception
    {
        ThreadPoolExecutor pool = pool(1);
        Hedger hedger = hedger(pool, 1);
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch occupied = new CountDownLatch(1);
        pool.execute(() -> {
            occupied.countDown();
            awaitUninterruptibly(busy);
        });
        await(occupied);
        try {
            // slower than the threshold, yet not hedged: the reading thread runs it and has no one to wait for it
            TestAttempt primary = new TestAttempt("primary", attempt -> attempt.sleep(50));
            HedgeSupplier hedges = new HedgeSupplier(() -> new TestAttempt("hedge", TestAttempt::succeed));
            assertThat(hedger.read(primary, hedges, HedgeThreshold.fixed(MILLISECONDS.toNanos(1)))).isSameAs(primary);

            assertThat(primary.thread()).isSameAs(Thread.currentThread());
            assertThat(hedges.calls()).isZero();
            assertThat(stats.getUnhedgedReadsPoolFull()).isEqualTo(1);
            assertThat(stats.getHedgedReadOps()).isZero();

            // a failure there is the read's failure, and releases the attempt
            IOException failure = new IOException("failed");
            TestAttempt failing = new TestAttempt("failing", attempt -> {
                throw failure;
            });
            assertThatThrownBy(() -> hedger.read(failing, hedges, SOON)).isSameAs(failure);
            assertThat(failing.releases()).isEqualTo(1);
            assertThat(stats.getUnhedgedReadsPoolFull()).isEqualTo(2);
            assertThat(stats.getReadFailures().getTotalCount()).isEqualTo(1);
            assertThat(stats.getBothFailed()).isZero();
        }
        finally {
            busy.countDown();
        }
    }

    @Test
    void hedgeRunsInTheReadingThreadWhenThePoolIsFull()
            throws Exception
    {
        ThreadPoolExecutor pool = pool(1);
        Hedger hedger = hedger(pool, 1);
        CountDownLatch primaryGoes = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitIgnoringInterrupts(primaryGoes));
        TestAttempt hedge = new TestAttempt("hedge", TestAttempt::succeed);

        assertThat(hedger.read(primary, () -> hedge, SOON)).isSameAs(hedge);

        assertThat(hedge.thread()).isSameAs(Thread.currentThread());
        assertThat(primary.thread()).isNotSameAs(Thread.currentThread());
        assertThat(stats.getHedgedReadOps()).isEqualTo(1);
        assertThat(stats.getHedgedReadOpsInCurThread()).isEqualTo(1);
        assertThat(stats.getHedgedReadOpsWin()).isEqualTo(1);
        await(primary.interrupted);
        assertThat(primary.releases()).isZero();
        primaryGoes.countDown();
        await(primary.released);
        assertThat(primary.releases()).isEqualTo(1);
        assertThat(primary.releasedInterrupted()).isFalse();
        assertThat(hedge.releases()).isZero();
        assertThat(pool.getLargestPoolSize()).isEqualTo(1);
    }

    @Test
    void bothFailingThrowsThePrimaryFailureWithTheHedgeFailureSuppressed()
            throws Exception
    {
        for (boolean primaryFailsFirst : new boolean[] {true, false}) {
            HedgedReadStats stats = new HedgedReadStats();
            Hedger hedger = new Hedger(pool(2), new HedgeBudget(1, 0, new TestingTicker()), stats, Ticker.systemTicker());
            IOException primaryFailure = new IOException("primary failed");
            IOException hedgeFailure = new IOException("hedge failed");
            CountDownLatch firstFailed = new CountDownLatch(1);
            CountDownLatch hedgeStarted = new CountDownLatch(1);
            TestAttempt primary = new TestAttempt("primary", attempt -> {
                if (primaryFailsFirst) {
                    attempt.awaitIgnoringInterrupts(hedgeStarted);
                    firstFailed.countDown();
                }
                else {
                    attempt.awaitIgnoringInterrupts(firstFailed);
                }
                throw primaryFailure;
            });
            TestAttempt hedge = new TestAttempt("hedge", attempt -> {
                hedgeStarted.countDown();
                if (primaryFailsFirst) {
                    attempt.awaitIgnoringInterrupts(firstFailed);
                }
                else {
                    firstFailed.countDown();
                }
                throw hedgeFailure;
            });

            assertThatThrownBy(() -> hedger.read(primary, () -> hedge, SOON))
                    .as("primary fails first: %s", primaryFailsFirst)
                    .isSameAs(primaryFailure)
                    .satisfies(failure -> assertThat(failure.getSuppressed()).containsExactly(hedgeFailure));

            assertThat(primary.releases()).isEqualTo(1);
            assertThat(hedge.releases()).isEqualTo(1);
            assertThat(primary.releasedWhileRunning() + hedge.releasedWhileRunning()).isZero();
            assertThat(stats.getBothFailed()).isEqualTo(1);
            assertThat(stats.getReadFailures().getTotalCount()).isEqualTo(1);
            assertThat(stats.getHedgedReadOps()).isEqualTo(1);
            assertThat(stats.getHedgedReadOpsWin()).isZero();
            assertThat(stats.getWastedBytes()).isZero();
        }
    }

    @Test
    void primaryFailingBeforeTheThresholdIsNotHedged()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        IOException failure = new IOException("failed");
        TestAttempt primary = new TestAttempt("primary", attempt -> {
            throw failure;
        });
        HedgeSupplier hedges = new HedgeSupplier(() -> new TestAttempt("hedge", TestAttempt::succeed));

        assertThatThrownBy(() -> hedger.read(primary, hedges, NEVER)).isSameAs(failure);

        assertThat(failure.getSuppressed()).isEmpty();
        assertThat(primary.releases()).isEqualTo(1);
        assertThat(hedges.calls()).isZero();
        assertThat(stats.getReadFailures().getTotalCount()).isEqualTo(1);
        assertThat(stats.getBothFailed()).isZero();
        assertThat(stats.getHedgedReadOps()).isZero();
    }

    @Test
    void runtimeFailureOfThePrimaryIsRethrownAsIs()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        IllegalStateException failure = new IllegalStateException("bug");
        TestAttempt primary = new TestAttempt("primary", attempt -> {
            throw failure;
        });
        assertThatThrownBy(() -> hedger.read(primary, () -> new TestAttempt("hedge", TestAttempt::succeed), NEVER)).isSameAs(failure);
        assertThat(primary.releases()).isEqualTo(1);
    }

    @Test
    void callerInterruptedWhileBothRun()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        CountDownLatch attemptsGo = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitIgnoringInterrupts(attemptsGo));
        TestAttempt hedge = new TestAttempt("hedge", attempt -> attempt.awaitIgnoringInterrupts(attemptsGo));
        Caller caller = new Caller(() -> hedger.read(primary, () -> hedge, SOON));

        await(primary.started);
        await(hedge.started);
        caller.interrupt();
        caller.join();

        assertThat(caller.failure.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(caller.failure.get().getCause()).isInstanceOf(InterruptedException.class);
        assertThat(caller.interruptedAfter.get()).isTrue();
        // both are stopped, and released only once they have stopped
        await(primary.interrupted);
        await(hedge.interrupted);
        assertThat(primary.releases() + hedge.releases()).isZero();
        attemptsGo.countDown();
        await(primary.released);
        await(hedge.released);
        assertThat(primary.releases()).isEqualTo(1);
        assertThat(hedge.releases()).isEqualTo(1);
        assertThat(primary.releasedWhileRunning() + hedge.releasedWhileRunning()).isZero();
    }

    @Test
    void callerInterruptedBeforeTheThreshold()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        CountDownLatch primaryGoes = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitIgnoringInterrupts(primaryGoes));
        HedgeSupplier hedges = new HedgeSupplier(() -> new TestAttempt("hedge", TestAttempt::succeed));
        Caller caller = new Caller(() -> hedger.read(primary, hedges, NEVER));

        await(primary.started);
        caller.interrupt();
        caller.join();

        assertThat(caller.failure.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(caller.interruptedAfter.get()).isTrue();
        assertThat(hedges.calls()).isZero();
        await(primary.interrupted);
        assertThat(primary.releases()).isZero();
        primaryGoes.countDown();
        await(primary.released);
        assertThat(primary.releases()).isEqualTo(1);
    }

    @Test
    void callerInterruptedWhileWaitingForAnUnhedgedRead()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 0.5);
        CountDownLatch primaryGoes = new CountDownLatch(1);
        TestAttempt primary = new TestAttempt("primary", attempt -> attempt.awaitInterruptibly(primaryGoes));
        Caller caller = new Caller(() -> hedger.read(primary, () -> new TestAttempt("hedge", TestAttempt::succeed), SOON));

        awaitTrue(() -> stats.getHedgesRefusedByBudget() == 1);
        caller.interrupt();
        caller.join();

        assertThat(caller.failure.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(caller.interruptedAfter.get()).isTrue();
        // an attempt that stops when interrupted is released without the test's help
        await(primary.released);
        assertThat(primary.releases()).isEqualTo(1);
        assertThat(primary.failed()).isInstanceOf(InterruptedIOException.class);
    }

    /**
     * 16 readers share a pool of 4: most reads find it full and run in the reading thread, and most hedges run there.
     */
    @Test
    void randomizedManyReadersSmallPool()
            throws Exception
    {
        randomizedManyReaders(4);
        assertThat(stats.getUnhedgedReadsPoolFull()).isPositive();
        assertThat(stats.getHedgedReadOpsInCurThread()).isPositive();
    }

    /**
     * 16 readers share a pool of 24: most reads and hedges run on the pool, where a loser is interrupted.
     */
    @Test
    void randomizedManyReadersLargePool()
            throws Exception
    {
        randomizedManyReaders(24);
        assertThat(stats.getHedgedReadOps() - stats.getHedgedReadOpsInCurThread()).isGreaterThan(stats.getReads() / 4);
    }

    /**
     * Many readers share a pool; attempts take 0-3ms and 10% fail; the threshold is 1ms, so most reads run past it.
     * Whatever the interleaving: a read returns an attempt that succeeded and is never released, or throws the
     * primary's failure; every other attempt is released exactly once, after it stopped, in a thread not interrupted;
     * no attempt runs twice; an interrupt reaches only an attempt abandoned for the other's success, never a reader.
     */
    private void randomizedManyReaders(int poolSize)
            throws Exception
    {
        int readers = 16;
        int readsPerReader = 500;
        long seed = new Random().nextLong();
        String context = "pool of " + poolSize + ", seed " + seed;
        ThreadPoolExecutor pool = pool(poolSize);
        Hedger hedger = new Hedger(pool, new HedgeBudget(1, 0, Ticker.systemTicker()), stats, Ticker.systemTicker());
        HedgeThreshold threshold = HedgeThreshold.fixed(MILLISECONDS.toNanos(1));

        ExecutorService callers = executor();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Read>>> futures = new ArrayList<>();
        for (int reader = 0; reader < readers; reader++) {
            Random random = new Random(seed + reader);
            futures.add(callers.submit(() -> {
                start.await();
                List<Read> reads = new ArrayList<>();
                for (int index = 0; index < readsPerReader; index++) {
                    Read read = new Read(TestAttempt.random("primary", random));
                    try {
                        read.result = hedger.read(read.primary, () -> {
                            checkState(read.hedge == null, "a second hedge for one read");
                            read.hedge = TestAttempt.random("hedge", random);
                            return read.hedge;
                        }, threshold);
                        // owned by the reader now: nothing releases it, even later
                        assertThat(((TestAttempt) read.result).releases()).as(context).isZero();
                    }
                    catch (IOException e) {
                        read.failure = e;
                    }
                    // no interrupt meant for an attempt ever reaches the reading thread
                    assertThat(Thread.currentThread().isInterrupted()).as("%s: reader interrupted after %s", context, read.primary).isFalse();
                    reads.add(read);
                }
                return reads;
            }));
        }
        start.countDown();
        List<Read> reads = new ArrayList<>();
        for (Future<List<Read>> future : futures) {
            reads.addAll(future.get(60, SECONDS));
        }
        // every loser stops; then nothing is left to release anything
        pool.shutdown();
        assertThat(pool.awaitTermination(10, SECONDS)).as(context).isTrue();

        int hedged = 0;
        int hedgeWins = 0;
        int failed = 0;
        int interrupted = 0;
        for (Read read : reads) {
            List<TestAttempt> attempts = read.hedge == null ? List.of(read.primary) : List.of(read.primary, read.hedge);
            for (TestAttempt attempt : attempts) {
                if (attempt.interrupted.getCount() == 0) {
                    interrupted++;
                }
                assertThat(attempt.runs()).as("%s: %s ran", context, attempt).isLessThanOrEqualTo(1);
                assertThat(attempt.releasedWhileRunning()).as("%s: %s released while running", context, attempt).isZero();
                if (attempt.interruptedAtStart()) {
                    // abandoned as it started, as the other attempt had won: no other interrupt reaches an attempt
                    assertThat(read.result).as("%s: %s started interrupted", context, attempt).isNotNull().isNotSameAs(attempt);
                }
                assertThat(attempt.releasedInterrupted()).as("%s: %s released in an interrupted thread", context, attempt).isFalse();
                int expectedReleases = attempt == read.result ? 0 : 1;
                assertThat(attempt.releases()).as("%s: releases of %s", context, attempt).isEqualTo(expectedReleases);
            }
            if (read.hedge != null) {
                hedged++;
            }
            if (read.result != null) {
                TestAttempt winner = (TestAttempt) read.result;
                assertThat(winner.succeeded()).as("%s: %s returned", context, winner).isTrue();
                assertThat(read.failure).isNull();
                if (winner == read.hedge) {
                    hedgeWins++;
                }
                else {
                    assertThat(winner).as(context).isSameAs(read.primary);
                }
            }
            else {
                failed++;
                assertThat(read.failure).as(context).isNotNull();
                // the primary's failure, even when the hedge failed first; never an interrupt, as no reader is interrupted
                assertThat(read.failure).as(context).isSameAs(read.primary.failed()).isNotInstanceOf(InterruptedIOException.class);
                if (read.hedge != null) {
                    assertThat(read.hedge.succeeded()).as(context).isFalse();
                    if (read.hedge.runs() == 1) {
                        assertThat(read.failure.getSuppressed()).as(context).containsExactly(read.hedge.failed());
                        assertThat(read.hedge.failed()).as(context).isNotInstanceOf(InterruptedIOException.class);
                    }
                }
            }
        }

        System.out.printf("%s: %s reads, %s hedged (%s in the reading thread), %s won by the hedge, %s losers interrupted, %s refused by the budget, %s unhedged as the pool was full, %s failed (%s both)%n",
                context, reads.size(), hedged, stats.getHedgedReadOpsInCurThread(), hedgeWins, interrupted, stats.getHedgesRefusedByBudget(), stats.getUnhedgedReadsPoolFull(), failed, stats.getBothFailed());
        assertThat(reads).hasSize(readers * readsPerReader);
        assertThat(stats.getReads()).as(context).isEqualTo((long) readers * readsPerReader);
        assertThat(stats.getHedgedReadOps()).as(context).isEqualTo(hedged);
        assertThat(stats.getHedgedReadOpsWin()).as(context).isEqualTo(hedgeWins).isLessThanOrEqualTo(stats.getHedgedReadOps());
        assertThat(stats.getHedgedReadOpsInCurThread()).as(context).isLessThanOrEqualTo(stats.getHedgedReadOps());
        assertThat(stats.getReadFailures().getTotalCount()).as(context).isEqualTo(failed);
        assertThat(stats.getBothFailed()).as(context).isLessThanOrEqualTo(failed);
        // the mix this test is for did happen: hedges won, losers were interrupted, reads failed, both attempts failed
        assertThat(hedgeWins).as(context).isPositive();
        assertThat(interrupted).as(context).isPositive();
        assertThat(failed).as(context).isPositive();
        assertThat(stats.getBothFailed()).as(context).isPositive();
    }

    @Test
    void loserBlockedInASocketReadIsStoppedAndItsConnectionClosed()
            throws Exception
    {
        Hedger hedger = hedger(pool(2), 1);
        try (ServerSocket storage = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // the primary: a GET whose answer never comes, as from a storage endpoint that stalls before the first byte
            CountDownLatch released = new CountDownLatch(1);
            CountDownLatch requestSent = new CountDownLatch(1);
            AtomicReference<Throwable> primaryFailure = new AtomicReference<>();
            Hedger.Attempt primary = new Hedger.Attempt()
            {
                @Override
                public void run()
                        throws IOException
                {
                    try (Socket socket = new Socket(storage.getInetAddress(), storage.getLocalPort())) {
                        socket.getOutputStream().write('G');
                        requestSent.countDown();
                        socket.getInputStream().read();
                    }
                    catch (IOException e) {
                        primaryFailure.set(e);
                        throw e;
                    }
                }

                @Override
                public long bytesRead()
                {
                    return 0;
                }

                @Override
                public void release()
                {
                    released.countDown();
                }
            };
            // the hedge wins once the primary's request is out, so that the primary is stopped waiting for the answer
            TestAttempt hedge = new TestAttempt("hedge", _ -> await(requestSent));

            assertThat(hedger.read(primary, new HedgeSupplier(() -> hedge), SOON)).isSameAs(hedge);

            try (Socket request = storage.accept()) {
                request.setSoTimeout(10_000);
                assertThat(request.getInputStream().read()).isEqualTo('G');
                // the storage sees the loser's connection closed, without having answered: the read was dropped, not waited out
                assertThat(request.getInputStream().read()).as("the loser's connection").isEqualTo(-1);
            }
            await(released);
            assertThat(primaryFailure.get()).isInstanceOf(SocketException.class);
            assertThat(stats.getAbandonedAttemptsStopped()).isEqualTo(1);
            assertThat(stats.getAttemptsRunning()).isZero();
            assertThat(stats.getWastedBytes()).isZero();
        }
    }

    private Hedger hedger(ExecutorService pool, double maxRatio)
    {
        return new Hedger(pool, new HedgeBudget(maxRatio, 0, new TestingTicker()), stats, Ticker.systemTicker());
    }

    // HedgedReads's pool: no core threads, no queue, virtual threads
    private ThreadPoolExecutor pool(int size)
    {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) HedgedReads.pool("test", size);
        executors.add(pool);
        return pool;
    }

    private ExecutorService executor()
    {
        ExecutorService executor = Executors.newCachedThreadPool(daemonThreadsNamed("test-hedger-caller-%s"));
        executors.add(executor);
        return executor;
    }

    private static void await(CountDownLatch latch)
    {
        try {
            if (!latch.await(10, SECONDS)) {
                fail("timed out waiting");
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void awaitTrue(BooleanSupplier condition)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting");
            }
            Thread.sleep(1);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch)
    {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            }
            catch (InterruptedException _) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void checkState(boolean condition, String message)
    {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static final class Read
    {
        private final TestAttempt primary;
        private volatile TestAttempt hedge;
        private Hedger.Attempt result;
        private IOException failure;

        Read(TestAttempt primary)
        {
            this.primary = primary;
        }
    }

    private static final class HedgeSupplier
            implements Supplier<Hedger.Attempt>
    {
        private final Supplier<Hedger.Attempt> delegate;
        private final AtomicInteger calls = new AtomicInteger();

        HedgeSupplier(Supplier<Hedger.Attempt> delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public Hedger.Attempt get()
        {
            calls.incrementAndGet();
            return delegate.get();
        }

        int calls()
        {
            return calls.get();
        }
    }

    /** Runs a read in a thread of its own, to interrupt it; records how it ended and whether it was left interrupted. */
    private static final class Caller
    {
        private final Thread thread;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();

        Caller(ReadCall read)
        {
            thread = Thread.ofPlatform().daemon().start(() -> {
                try {
                    read.call();
                }
                catch (Throwable t) {
                    failure.set(t);
                }
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            });
        }

        void interrupt()
        {
            thread.interrupt();
        }

        void join()
                throws InterruptedException
        {
            assertThat(thread.join(Duration.ofSeconds(10))).isTrue();
        }
    }

    @FunctionalInterface
    private interface ReadCall
    {
        Hedger.Attempt call()
                throws IOException;
    }

    @FunctionalInterface
    private interface Body
    {
        void run(TestAttempt attempt)
                throws IOException;
    }

    private static final class TestAttempt
            implements Hedger.Attempt
    {
        static final long BYTES = 1000;

        private final String name;
        private final Body body;
        private final AtomicInteger runs = new AtomicInteger();
        private final AtomicInteger releases = new AtomicInteger();
        private final AtomicInteger releasedWhileRunning = new AtomicInteger();
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch interrupted = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile boolean running;
        private volatile boolean succeeded;
        private volatile boolean interruptedAtStart;
        private volatile Throwable failed;
        private volatile Thread thread;
        private volatile boolean releasedInterrupted;

        TestAttempt(String name, Body body)
        {
            this.name = name;
            this.body = body;
        }

        /** Takes 0-3ms; fails one time in ten; stops when interrupted. */
        static TestAttempt random(String name, Random random)
        {
            long micros = random.nextInt(3_000);
            boolean fails = random.nextInt(10) == 0;
            return new TestAttempt(name + " " + micros + "us" + (fails ? " failing" : ""), attempt -> {
                attempt.sleepMicros(micros);
                if (fails) {
                    throw new IOException("failed: " + attempt);
                }
            });
        }

        @Override
        public void run()
                throws IOException
        {
            runs.incrementAndGet();
            thread = Thread.currentThread();
            interruptedAtStart = Thread.currentThread().isInterrupted();
            running = true;
            started.countDown();
            try {
                body.run(this);
                succeeded = true;
            }
            catch (IOException | RuntimeException e) {
                failed = e;
                throw e;
            }
            finally {
                running = false;
            }
        }

        @Override
        public long bytesRead()
        {
            return BYTES;
        }

        @Override
        public void release()
        {
            if (running) {
                releasedWhileRunning.incrementAndGet();
            }
            if (Thread.currentThread().isInterrupted()) {
                releasedInterrupted = true;
            }
            releases.incrementAndGet();
            released.countDown();
        }

        void succeed() {}

        // a read that does not notice interrupts: it finishes late, whenever the test lets it
        void awaitIgnoringInterrupts(CountDownLatch latch)
        {
            boolean wasInterrupted = false;
            while (true) {
                try {
                    latch.await();
                    break;
                }
                catch (InterruptedException _) {
                    wasInterrupted = true;
                    interrupted.countDown();
                }
            }
            if (wasInterrupted) {
                Thread.currentThread().interrupt();
            }
        }

        void awaitInterruptibly(CountDownLatch latch)
                throws InterruptedIOException
        {
            try {
                latch.await();
            }
            catch (InterruptedException _) {
                interrupted.countDown();
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted: " + this);
            }
        }

        void sleep(long millis)
                throws InterruptedIOException
        {
            sleepMicros(MILLISECONDS.toMicros(millis));
        }

        void sleepMicros(long micros)
                throws InterruptedIOException
        {
            try {
                Thread.sleep(Duration.ofNanos(MICROSECONDS.toNanos(micros)));
            }
            catch (InterruptedException _) {
                interrupted.countDown();
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted: " + this);
            }
        }

        int runs()
        {
            return runs.get();
        }

        int releases()
        {
            return releases.get();
        }

        int releasedWhileRunning()
        {
            return releasedWhileRunning.get();
        }

        boolean succeeded()
        {
            return succeeded;
        }

        boolean interruptedAtStart()
        {
            return interruptedAtStart;
        }

        boolean releasedInterrupted()
        {
            return releasedInterrupted;
        }

        Throwable failed()
        {
            return failed;
        }

        Thread thread()
        {
            return thread;
        }

        @Override
        public String toString()
        {
            return name + " (runs " + runs + ", releases " + releases + ")";
        }
    }
}
