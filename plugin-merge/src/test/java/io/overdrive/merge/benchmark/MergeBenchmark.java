package io.overdrive.merge.benchmark;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.PageListSource;
import io.overdrive.merge.SortedPageSource;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.trino.spi.Page;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Merge + combine of k inputs × 75,000 rows: the serial priority-queue baseline against the engine with
 * parallelism 1, 2 and auto, on a pool of {@code merge.pool-size} = available processors. The consumer (the JMH
 * thread) reads the merged pages as a Trino operator would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseG1GC"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class MergeBenchmark
{
    @Param({"8", "32", "64"})
    public int inputs;

    @Param({"HEAVY", "LIGHT"})
    public BenchmarkData.Combining combining;

    @Param({"serial", "1", "2", "auto"})
    public String parallelism;

    @Param("75000")
    public int rowsPerInput;

    private List<List<Page>> data;
    private MergeEngine engine;
    private SerialPriorityQueueMerge serial;

    @Setup(Level.Trial)
    public void setUp()
    {
        data = BenchmarkData.generate(inputs, rowsPerInput, combining, 42);
        engine = new MergeEngine(new MergeConfig());
        serial = new SerialPriorityQueueMerge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, BenchmarkData.COMBINE, new MergeConfig().getBatchSize());
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    @Benchmark
    public long merge()
            throws ExecutionException, InterruptedException
    {
        if (parallelism.equals("serial")) {
            long[] rows = new long[1];
            serial.merge(data, page -> rows[0] += page.getPositionCount());
            return rows[0];
        }
        return runEngine(engine, data, MergeParallelism.parse(parallelism).orElseThrow());
    }

    static long runEngine(MergeEngine engine, List<List<Page>> data, MergeParallelism parallelism)
            throws ExecutionException, InterruptedException
    {
        List<SortedPageSource> sources = new ArrayList<>(data.size());
        for (List<Page> pages : data) {
            sources.add(new PageListSource(pages));
        }
        MergedPageStream stream = engine.merge(MergeRequest.builder(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS)
                .sources(sources)
                .combine(BenchmarkData.COMBINE)
                .parallelism(parallelism)
                .build());
        long rows = 0;
        while (true) {
            Page page = stream.getNextPage();
            if (page != null) {
                rows += page.getPositionCount();
                continue;
            }
            if (stream.isFinished()) {
                break;
            }
            stream.isBlocked().get();
        }
        stream.close();
        return rows;
    }
}
