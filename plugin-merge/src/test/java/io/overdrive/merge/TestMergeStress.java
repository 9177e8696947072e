package io.overdrive.merge;

import io.airlift.units.Duration;
import io.overdrive.merge.MergeInfo;
import io.overdrive.merge.MergeInfo.MergeState;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.combine.CombineStep;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.testing.Drain;
import io.overdrive.merge.testing.RandomCase;
import io.overdrive.merge.testing.ReferenceMerge;
import io.overdrive.merge.testing.Rows;
import io.overdrive.merge.testing.TestingSource.Failure;
import io.overdrive.merge.testing.TestingSource;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.trino.spi.StandardErrorCode.EXCEEDED_TIME_LIMIT;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Many concurrent merges on a small pool with slow asynchronous inputs, failing inputs and consumers that cancel
 * mid-stream. Completed merges must match the reference exactly; cancelled ones must have delivered an exact prefix;
 * failed ones must report the failure. Afterwards nothing may be left: no task queued or running, no merge registered,
 * every input closed exactly once, no page buffered, and no pool thread once the engine is closed.
 */
public class TestMergeStress
{
    private enum Outcome { COMPLETE, CANCEL_EARLY, CANCEL_MIDWAY, FAIL_THROW, FAIL_FUTURE }

    @Test
    public void testConcurrentMergesWithCancellationAndFailures()
            throws Exception
    {
        runStress(240, 8, 11L, true);
    }

    @Test
    public void testConcurrentMergesUnorderedAdmission()
            throws Exception
    {
        runStress(120, 8, 12L, false);
    }

    @Test
    @Tag("long")
    public void testConcurrentMergesLong()
            throws Exception
    {
        runStress(3000, 16, System.nanoTime(), true);
        runStress(1000, 16, System.nanoTime(), false);
    }

    private void runStress(int merges, int consumerThreads, long seed, boolean fifo)
            throws Exception
    {
        // a target task time far below any slice's length pins every task's row budget at its minimum
        // (YieldBudget.MIN_ROWS): a task with that many rows ready and room for its output always yields
        MergeEngine engine = new MergeEngine(new MergeConfig()
                .setFifo(fifo)
                .setPoolSize(3)
                .setBatchSize(32)
                .setQueueSize(2)
                .setTargetTaskTime(new Duration(1, NANOSECONDS)));
        ScheduledExecutorService inputThreads = Executors.newScheduledThreadPool(2);
        ExecutorService consumers = Executors.newFixedThreadPool(consumerThreads);
        List<TestingSource> allSources = new ArrayList<>();
        List<MergedPageStream> allStreams = new ArrayList<>();
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        try {
            Random random = new Random(seed);
            List<Future<?>> futures = new ArrayList<>();
            // merges that must yield, among the others: every row has the same key, so the output (one row) never
            // fills, and the inputs are in memory, so a slice never waits: each slice ends on its row budget
            for (int i = 0; i < YIELDING_MERGES; i++) {
                futures.add(consumers.submit(() -> {
                    MergedPageStream stream = engine.merge(yieldingMerge());
                    synchronized (allStreams) {
                        allStreams.add(stream);
                    }
                    List<Page> pages = Drain.all(stream);
                    assertThat(Rows.read(stream.getTypes(), pages)).singleElement().satisfies(row -> assertThat(row).containsExactly(0L, (long) YIELDING_MERGE_ROWS));
                    stream.close();
                    return null;
                }));
            }
            for (int i = 0; i < merges; i++) {
                long caseSeed = random.nextLong();
                Random caseRandom = new Random(caseSeed);
                RandomCase testCase = RandomCase.generate(caseRandom, 1 + caseRandom.nextInt(40), 1 + caseRandom.nextInt(caseRandom.nextInt(4) == 0 ? 3000 : 300));
                Outcome outcome = Outcome.values()[caseRandom.nextInt(Outcome.values().length)];
                int failingInput = caseRandom.nextInt(testCase.inputs().size());

                List<TestingSource> sources = new ArrayList<>();
                for (int input = 0; input < testCase.inputs().size(); input++) {
                    List<Page> pages = Rows.toPages(testCase.types(), testCase.inputs().get(input), 1 + caseRandom.nextInt(40), caseRandom);
                    boolean fails = input == failingInput && !pages.isEmpty() && (outcome == Outcome.FAIL_THROW || outcome == Outcome.FAIL_FUTURE);
                    sources.add(new TestingSource(
                            pages,
                            inputThreads,
                            // some inputs are always ready, so their tasks run long enough to yield
                            caseRandom.nextInt(3) == 0 ? 0 : caseRandom.nextDouble() * 0.5,
                            caseRandom.nextInt(300),
                            caseRandom.nextLong(),
                            fails ? caseRandom.nextInt(pages.size()) : -1,
                            fails ? (outcome == Outcome.FAIL_THROW ? Failure.THROW : Failure.FAIL_FUTURE) : Failure.NONE));
                }
                boolean inputFails = (outcome == Outcome.FAIL_THROW || outcome == Outcome.FAIL_FUTURE) && !testCase.inputs().get(failingInput).isEmpty();
                synchronized (allSources) {
                    allSources.addAll(sources);
                }
                MergeParallelism parallelism = caseRandom.nextBoolean() ? MergeParallelism.AUTO : MergeParallelism.fixed(1 + caseRandom.nextInt(6));
                // equal priorities: with strict priorities a steady stream of higher-priority merges may starve lower ones
                MergeRequest request = new MergeRequest(testCase.types(), testCase.sortKeys(), List.copyOf(sources), testCase.combine(), testCase.limit(), 0, Optional.of(parallelism));
                int cancelAfterPages = caseRandom.nextInt(6);

                futures.add(consumers.submit(() -> {
                    MergedPageStream stream = engine.merge(request);
                    synchronized (allStreams) {
                        allStreams.add(stream);
                    }
                    List<Object[]> expected = ReferenceMerge.merge(testCase.types(), testCase.sortKeys(), testCase.inputs(), testCase.combine(), testCase.limit());
                    try {
                        switch (outcome) {
                            case CANCEL_EARLY -> {
                                stream.close();
                                cancelled.incrementAndGet();
                            }
                            case CANCEL_MIDWAY -> {
                                List<Object[]> prefix = Rows.read(stream.getTypes(), Drain.pages(stream, cancelAfterPages));
                                stream.close();
                                Rows.assertSameRows(prefix, expected.subList(0, prefix.size()), "prefix before cancel, seed " + caseSeed);
                                cancelled.incrementAndGet();
                            }
                            default -> {
                                if (inputFails) {
                                    // the failure surfaces unless the limit was reached before the failing page was read
                                    try {
                                        List<Object[]> rows = Rows.read(stream.getTypes(), Drain.all(stream));
                                        assertThat(rows.size()).as("rows of a merge whose input failed, seed %s", caseSeed).isLessThanOrEqualTo(expected.size());
                                        Rows.assertSameRows(rows, expected.subList(0, rows.size()), "seed " + caseSeed);
                                    }
                                    catch (IllegalStateException | CompletionException e) {
                                        assertThat(e).hasMessageContaining("input stream failed");
                                        failed.incrementAndGet();
                                    }
                                }
                                else {
                                    List<Object[]> rows = Rows.read(stream.getTypes(), Drain.all(stream));
                                    Rows.assertSameRows(rows, expected, "seed " + caseSeed);
                                    completed.incrementAndGet();
                                }
                                stream.close();
                            }
                        }
                    }
                    catch (AssertionError | RuntimeException e) {
                        throw new AssertionError("merge with seed " + caseSeed + " (" + outcome + ") failed", e);
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }

            // nothing left behind
            for (MergedPageStream stream : allStreams) {
                Drain.awaitTerminated(stream);
                MergeInfo info = stream.getInfo();
                assertThat(info.state()).isIn(MergeState.FINISHED, MergeState.CANCELLED, MergeState.FAILED);
                assertThat(info.bufferedBytes()).as("pages released").isZero();
            }
            assertThat(engine.getPool().awaitQuiescence(30, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.getPool().getRunningTasks()).isZero();
            assertThat(engine.getPool().getQueuedTasks()).isZero();
            assertThat(engine.getActiveMerges()).isZero();
            assertThat(engine.getStats().getRunningMerges()).isZero();
            assertThat(engine.getStats().getQueuedMerges()).isZero();
            for (TestingSource source : allSources) {
                assertThat(source.closeCount()).as("input closed exactly once").isEqualTo(1);
            }
            assertThat(engine.getStats().getStartedMerges().getTotalCount()
                    + engine.getStats().getCancelledMerges().getTotalCount())
                    .isGreaterThanOrEqualTo(merges);
            System.out.printf("stress (fifo=%s): %s merges: %s completed, %s cancelled, %s failed; %s yields%n",
                    fifo, merges, completed.get(), cancelled.get(), failed.get(), engine.getStats().getYields().getTotalCount());
            assertThat(completed.get()).isPositive();
            // the yielding merges' slices end on the minimum row budget, whatever the timing
            assertThat(engine.getStats().getYields().getTotalCount()).isGreaterThanOrEqualTo((long) YIELDING_MERGES * (YIELDING_MERGE_ROWS / MIN_BUDGET_ROWS - 1));
            assertThat(cancelled.get()).isPositive();
            assertThat(failed.get()).isPositive();
            assertThat(poolThreads(engine)).isLessThanOrEqualTo(3);
        }
        finally {
            consumers.shutdownNow();
            engine.close();
            assertThat(engine.getPool().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            inputThreads.shutdownNow();
        }
        assertThat(poolThreads(engine)).as("pool threads after close").isZero();
    }

    @Test
    public void testFailureStopsSlowSiblingsPromptly()
            throws Exception
    {
        // one input fails at once while the others are blocked forever: the merge must fail and release everything
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2))) {
            RandomCase testCase = RandomCase.generate(new Random(5), 1, 50);
            List<NeverReadySource> stuck = new ArrayList<>();
            List<SortedPageSource> sources = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                NeverReadySource source = new NeverReadySource();
                stuck.add(source);
                sources.add(source);
            }
            sources.add(new FailingSource());
            MergedPageStream stream = engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), sources, Optional.empty(), OptionalLong.empty(), 0, Optional.of(MergeParallelism.fixed(2))));
            assertThatThrownBy(() -> Drain.all(stream)).hasMessageContaining("broken input");
            Drain.awaitTerminated(stream);
            assertThat(stream.getInfo().state()).isEqualTo(MergeState.FAILED);
            for (NeverReadySource source : stuck) {
                assertThat(source.closed).isTrue();
            }
            assertThat(engine.getPool().awaitQuiescence(10, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.getStats().getFailedMerges().getTotalCount()).isEqualTo(1);
        }
    }

    @Test
    public void testCancelWhileWaitingForSlowInputs()
            throws Exception
    {
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2))) {
            RandomCase testCase = RandomCase.generate(new Random(6), 1, 50);
            List<NeverReadySource> stuck = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                stuck.add(new NeverReadySource());
            }
            MergedPageStream stream = engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), List.copyOf(stuck), Optional.empty(), OptionalLong.empty(), 0, Optional.of(MergeParallelism.AUTO)));
            assertThat(stream.isBlocked()).isNotDone();
            stream.close();
            Drain.awaitTerminated(stream);
            assertThat(stream.getInfo().state()).isEqualTo(MergeState.CANCELLED);
            stuck.forEach(source -> assertThat(source.closed).isTrue());
            assertThat(engine.getPool().awaitQuiescence(10, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.getStats().getCancelledMerges().getTotalCount()).isEqualTo(1);
        }
    }

    @Test
    public void testMergeAfterCloseFailsAndClosesItsInputs()
    {
        MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2));
        engine.close();
        RandomCase testCase = RandomCase.generate(new Random(7), 1, 50);
        List<NeverReadySource> inputs = List.of(new NeverReadySource(), new NeverReadySource());
        assertThatThrownBy(() -> engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), List.copyOf(inputs), Optional.empty(), OptionalLong.empty(), 0, Optional.empty())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("The merge engine is closed: the node is shutting down");
        inputs.forEach(input -> assertThat(input.closed).isTrue());
    }

    @Test
    public void testMergeOverTimeoutFailsAndReleasesEverything()
            throws Exception
    {
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2).setTimeout(new Duration(1, TimeUnit.SECONDS)))) {
            RandomCase testCase = RandomCase.generate(new Random(8), 1, 50);
            List<NeverReadySource> stuck = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                stuck.add(new NeverReadySource());
            }
            MergedPageStream stream = engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), List.copyOf(stuck), Optional.empty(), OptionalLong.empty(), 0, Optional.of(MergeParallelism.fixed(2))));
            assertThatThrownBy(() -> Drain.all(stream))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(EXCEEDED_TIME_LIMIT.toErrorCode()))
                    .hasMessageContaining("exceeded merge.timeout (1.00s)");
            Drain.awaitTerminated(stream);
            assertThat(stream.getInfo().state()).isEqualTo(MergeState.FAILED);
            stuck.forEach(source -> assertThat(source.closed).isTrue());
            assertThat(stream.getInfo().bufferedBytes()).isZero();
            assertThat(engine.getPool().awaitQuiescence(10, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.getActiveMerges()).isZero();
        }
    }

    @Test
    public void testMergesQueuedAtCloseFailAndCloseTheirInputs()
            throws Exception
    {
        // one pool thread, held by merges of inputs that never become ready, and many more merges queued behind them
        MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(1));
        RandomCase testCase = RandomCase.generate(new Random(9), 1, 50);
        List<NeverReadySource> all = new ArrayList<>();
        List<MergedPageStream> streams = new ArrayList<>();
        for (int merge = 0; merge < 20; merge++) {
            List<NeverReadySource> inputs = List.of(new NeverReadySource(), new NeverReadySource(), new NeverReadySource());
            all.addAll(inputs);
            streams.add(engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), List.copyOf(inputs), Optional.empty(), OptionalLong.empty(), 0, Optional.empty())));
        }
        engine.close();
        assertThat(engine.getPool().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        for (MergedPageStream stream : streams) {
            Drain.awaitTerminated(stream);
            assertThat(stream.getInfo().state().isDone()).isTrue();
        }
        all.forEach(source -> assertThat(source.closed).as("every input closed").isTrue());
        assertThat(engine.getActiveMerges()).isZero();
    }

    @Test
    public void testMergeInfoAndStatsDescribeEachMerge()
            throws Exception
    {
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2))) {
            RandomCase testCase = RandomCase.generate(new Random(10), 6, 400);
            MergedPageStream stream = engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), inMemorySources(testCase), Optional.empty(), OptionalLong.empty(), 0, Optional.of(MergeParallelism.fixed(2))));
            long rows = Drain.all(stream).stream().mapToLong(Page::getPositionCount).sum();
            Drain.awaitTerminated(stream);
            MergeInfo info = stream.getInfo();
            assertThat(rows).isEqualTo(testCase.inputs().stream().mapToLong(List::size).sum());
            assertThat(info.outputRows()).isEqualTo(rows);
            assertThat(info.parallelism()).isEqualTo(2);
            assertThat(info.endNanos().orElseThrow()).isGreaterThanOrEqualTo(info.startNanos().orElseThrow());
            assertThat(engine.getStats().getRowsPerMerge().getAllTime().getMax()).isEqualTo((double) rows);
        }
    }

    @Test
    public void testReadingEverythingThenClosingIsAFinishedMerge()
            throws Exception
    {
        // closing the stream right after the last page races the merge's own end: it must count as finished
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2))) {
            int merges = 200;
            for (int merge = 0; merge < merges; merge++) {
                RandomCase testCase = RandomCase.generate(new Random(merge), 3, 20);
                MergedPageStream stream = engine.merge(new MergeRequest(testCase.types(), testCase.sortKeys(), inMemorySources(testCase), Optional.empty(), OptionalLong.empty(), 0, Optional.of(MergeParallelism.fixed(1 + merge % 3))));
                Drain.all(stream);
                stream.close();
            }
            assertThat(engine.getPool().awaitQuiescence(10, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.getStats().getCancelledMerges().getTotalCount()).isZero();
            assertThat(engine.getStats().getFinishedMerges().getTotalCount()).isEqualTo(merges);
        }
    }

    private static final int YIELDING_MERGES = 2;
    private static final int YIELDING_MERGE_ROWS = 3 * 1000;
    // YieldBudget.MIN_ROWS (package-private in the engine)
    private static final int MIN_BUDGET_ROWS = 256;

    /**
     * One merge task (parallelism 1) summing 3 in-memory inputs of 1,000 rows, all with key 0.
     */
    private static MergeRequest yieldingMerge()
    {
        List<Type> types = List.of(BIGINT, BIGINT);
        List<SortedPageSource> inputs = new ArrayList<>();
        for (int input = 0; input < 3; input++) {
            List<Object[]> rows = new ArrayList<>();
            for (int row = 0; row < YIELDING_MERGE_ROWS / 3; row++) {
                rows.add(new Object[] {0L, 1L});
            }
            inputs.add(TestingSource.inMemory(Rows.toPages(types, rows, 100, new Random(input)), UNUSED_EXECUTOR));
        }
        return new MergeRequest(types, List.of(SortKey.ascending(0)), inputs, Optional.of(CombineSpec.of(CombineStep.SINGLE, Aggregation.sum(1))), OptionalLong.empty(), 0, Optional.of(MergeParallelism.fixed(1)));
    }

    // in memory and never blocked: the executor is not used
    private static final ScheduledExecutorService UNUSED_EXECUTOR = Executors.newSingleThreadScheduledExecutor();

    private static List<SortedPageSource> inMemorySources(RandomCase testCase)
    {
        Random random = new Random(testCase.inputs().size());
        return testCase.inputs().stream()
                .<SortedPageSource>map(input -> TestingSource.inMemory(Rows.toPages(testCase.types(), input, 1 + random.nextInt(20), random), UNUSED_EXECUTOR))
                .toList();
    }

    private static long poolThreads(MergeEngine engine)
    {
        String prefix = engine.getPool().getThreadNamePrefix();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith(prefix))
                .count();
    }

    private static final class NeverReadySource
            implements SortedPageSource
    {
        private final CompletableFuture<?> never = new CompletableFuture<>();
        volatile boolean closed;

        @Override
        public CompletableFuture<?> isBlocked()
        {
            return never;
        }

        @Override
        public Page getNextPage()
        {
            return null;
        }

        @Override
        public boolean isFinished()
        {
            return false;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }

    private static final class FailingSource
            implements SortedPageSource
    {
        @Override
        public CompletableFuture<?> isBlocked()
        {
            return NOT_BLOCKED;
        }

        @Override
        public Page getNextPage()
        {
            throw new IllegalStateException("broken input");
        }

        @Override
        public boolean isFinished()
        {
            return false;
        }

        @Override
        public void close() {}
    }
}
