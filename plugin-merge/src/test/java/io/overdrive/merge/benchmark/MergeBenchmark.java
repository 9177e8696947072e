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
 * Merge + combine of k inputs × 75,000 rows, on the same data in the same run: the serial priority-queue baseline
 * ({@code serial}), the engine with parallelism 1, 2 and auto on a pool of {@code merge.pool-size} = available
 * processors ({@code engine-1}, {@code engine-2}, {@code engine-auto}), and two anchors: Trino's own
 * {@code MergeSortedPages} ({@code trino}: merge only, no combining, in the JMH thread; see
 * {@link TrinoMergeSortedPagesAnchor}) and Druid's {@code ParallelMergeCombiningSequence} with parallelism 1
 * ({@code druid-1}, on a pool of available processors) and parallel ({@code druid-parallel}, on a pool of
 * max(3, available processors) threads with the query parallelism set to the pool size, the least that lets Druid
 * run two layer-1 tasks; see {@link DruidMergeAnchor}). The consumer (the JMH thread) reads the merged output as a
 * Trino operator (or Druid's broker thread) would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseG1GC"})
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
public class MergeBenchmark
{
    @Param({"8", "32", "64"})
    public int inputs;

    @Param({"HEAVY", "LIGHT"})
    public BenchmarkData.Combining combining;

    @Param({"serial", "engine-1", "engine-2", "engine-auto", "trino", "druid-1", "druid-parallel"})
    public String implementation;

    @Param("75000")
    public int rowsPerInput;

    private List<List<Page>> data;
    private MergeEngine engine;
    private SerialPriorityQueueMerge serial;
    private TrinoMergeSortedPagesAnchor trino;
    private DruidMergeAnchor druid;
    private List<List<DruidMergeAnchor.Row>> druidRows;

    @Setup(Level.Trial)
    public void setUp()
    {
        data = BenchmarkData.generate(inputs, rowsPerInput, combining, 42);
        engine = new MergeEngine(new MergeConfig());
        serial = new SerialPriorityQueueMerge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, BenchmarkData.COMBINE, new MergeConfig().getBatchSize());
        trino = new TrinoMergeSortedPagesAnchor(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS);
        int processors = Runtime.getRuntime().availableProcessors();
        switch (implementation) {
            case "druid-1" -> druid = new DruidMergeAnchor(processors, 1);
            case "druid-parallel" -> druid = new DruidMergeAnchor(Math.max(3, processors), Math.max(3, processors));
            default -> {}
        }
        if (druid != null) {
            druidRows = DruidMergeAnchor.toRows(data);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
            throws InterruptedException
    {
        engine.close();
        if (druid != null) {
            // what Druid chose (its own computation from the pool's load and sqrt(k)), for the report
            System.out.printf("%n%s, k = %d: Druid's last merge ran %d layer-1 task(s)%n", implementation, inputs, druid.lastParallelism());
            druid.close();
        }
    }

    @Benchmark
    public long merge()
            throws ExecutionException, InterruptedException
    {
        long[] rows = new long[1];
        switch (implementation) {
            case "serial" -> serial.merge(data, page -> rows[0] += page.getPositionCount());
            case "trino" -> trino.merge(data, page -> rows[0] += page.getPositionCount());
            case "druid-1", "druid-parallel" -> rows[0] = druid.mergeAndCount(druidRows);
            default -> rows[0] = runEngine(engine, data, MergeParallelism.parse(implementation.substring("engine-".length())).orElseThrow());
        }
        return rows[0];
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
