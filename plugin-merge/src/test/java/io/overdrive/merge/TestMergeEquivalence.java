package io.overdrive.merge;

import io.airlift.units.Duration;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.testing.Drain;
import io.overdrive.merge.testing.RandomCase;
import io.overdrive.merge.testing.ReferenceMerge;
import io.overdrive.merge.testing.Rows;
import io.overdrive.merge.testing.TestingSource;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Randomized equivalence of the engine with {@link ReferenceMerge}: random k (1..128), input sizes (including empty
 * inputs), duplicate and null keys, every supported type, sort orders, all combine steps, limits, parallelism, batch
 * and queue sizes, and inputs that are sometimes not ready (their futures completed later by another thread).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public class TestMergeEquivalence
{
    private final List<MergeEngine> engines = new ArrayList<>();
    private ScheduledExecutorService executor;

    @BeforeAll
    public void setUp()
    {
        executor = Executors.newScheduledThreadPool(2);
        engines.add(engine(1, 4096, 16, new Duration(10, MILLISECONDS)));
        engines.add(engine(2, 64, 2, new Duration(500, MICROSECONDS)));
        engines.add(engine(3, 7, 1, new Duration(100, MICROSECONDS)));
        engines.add(engine(4, 1, 3, new Duration(1, MILLISECONDS)));
        engines.add(engine(2, 1024, 4, new Duration(2, MILLISECONDS)));
    }

    @AfterAll
    public void tearDown()
            throws InterruptedException
    {
        for (MergeEngine engine : engines) {
            engine.close();
            assertThat(engine.getPool().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        executor.shutdownNow();
    }

    private static MergeEngine engine(int poolSize, int batchSize, int queueSize, Duration targetTaskTime)
    {
        return new MergeEngine(new MergeConfig()
                .setPoolSize(poolSize)
                .setBatchSize(batchSize)
                .setQueueSize(queueSize)
                .setTargetTaskTime(targetTaskTime));
    }

    @Test
    public void testRandomMerges()
            throws InterruptedException
    {
        runCases(400, 128, 120, 20240611L);
    }

    @Test
    public void testLargerRandomMerges()
            throws InterruptedException
    {
        // fewer inputs but more rows per input: tasks run several slices and queues fill (whether a slice ends on its
        // row budget depends on timing here; TestMergeStress forces yields)
        runCases(20, 16, 8000, 77L);
    }

    @Test
    @Tag("long")
    public void testManyRandomMerges()
            throws InterruptedException
    {
        runCases(5000, 128, 300, System.nanoTime());
    }

    private void runCases(int cases, int maxInputs, int maxRows, long seed)
            throws InterruptedException
    {
        Random random = new Random(seed);
        for (int i = 0; i < cases; i++) {
            long caseSeed = random.nextLong();
            try {
                runCase(new Random(caseSeed), maxInputs, maxRows);
            }
            catch (AssertionError | RuntimeException e) {
                throw new AssertionError("case %s failed (seed %s, case seed %s)".formatted(i, seed, caseSeed), e);
            }
        }
        for (MergeEngine engine : engines) {
            assertThat(engine.getPool().awaitQuiescence(10, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.getActiveMerges()).isZero();
            assertThat(engine.getStats().getRunningMerges()).isZero();
            assertThat(engine.getStats().getQueuedMerges()).isZero();
        }
    }

    private void runCase(Random random, int maxInputs, int maxRows)
    {
        RandomCase testCase = RandomCase.generate(random, 1 + random.nextInt(maxInputs), 1 + random.nextInt(maxRows));
        runCase(random, testCase);
    }

    void runCase(Random random, RandomCase testCase)
    {
        MergeEngine engine = engines.get(random.nextInt(engines.size()));
        boolean async = random.nextInt(3) == 0;
        List<TestingSource> sources = new ArrayList<>();
        for (List<Object[]> input : testCase.inputs()) {
            List<Page> pages = Rows.toPages(testCase.types(), input, 1 + random.nextInt(50), random);
            sources.add(new TestingSource(pages, executor, async ? 0.3 : 0, async ? 200 : 0, random.nextLong(), -1, TestingSource.Failure.NONE));
        }
        MergeParallelism parallelism = switch (random.nextInt(5)) {
            case 0 -> MergeParallelism.fixed(1);
            case 1 -> MergeParallelism.fixed(2);
            case 2 -> MergeParallelism.fixed(1 + random.nextInt(12));
            default -> MergeParallelism.AUTO;
        };
        MergeRequest request = new MergeRequest(
                testCase.types(),
                testCase.sortKeys(),
                List.copyOf(sources),
                testCase.combine(),
                testCase.limit(),
                random.nextInt(3),
                Optional.of(parallelism));

        List<Object[]> expected = ReferenceMerge.merge(testCase.types(), testCase.sortKeys(), testCase.inputs(), testCase.combine(), testCase.limit());
        MergedPageStream stream = engine.merge(request);
        List<Type> outputTypes = stream.getTypes();
        List<Object[]> actual = Rows.read(outputTypes, Drain.all(stream));
        stream.close();
        Drain.awaitTerminated(stream);
        assertThat(stream.getInfo().state()).isEqualTo(MergeInfo.MergeState.FINISHED);
        assertThat(stream.getInfo().bufferedBytes()).isZero();

        Rows.assertSameRows(actual, expected, testCase);
        for (TestingSource source : sources) {
            assertThat(source.closeCount()).as("every input is closed exactly once").isEqualTo(1);
        }
    }
}
