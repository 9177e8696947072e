package io.overdrive.merge.benchmark;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.PageListSource;
import io.overdrive.merge.SortedPageSource;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.testing.Drain;
import io.overdrive.merge.testing.ReferenceMerge;
import io.overdrive.merge.testing.Rows;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark's shapes at a small scale: the engine (serial and parallel), the serial baseline and Druid's
 * anchor produce the reference result, and Trino's anchor the reference merge without combining, so the benchmark
 * compares equal work.
 */
public class TestBenchmarkShapes
{
    @Test
    public void testEngineAndBaselineMatchReference()
            throws Exception
    {
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2).setBatchSize(1000).setQueueSize(2))) {
            for (BenchmarkData.Combining combining : BenchmarkData.Combining.values()) {
                List<List<Page>> data = BenchmarkData.generate(16, 5_000, combining, 3);
                List<List<Object[]>> inputs = data.stream().map(pages -> Rows.read(BenchmarkData.TYPES, pages)).toList();
                List<Object[]> expected = ReferenceMerge.merge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, inputs, Optional.of(BenchmarkData.COMBINE), OptionalLong.empty());
                if (combining == BenchmarkData.Combining.HEAVY) {
                    assertThat(expected).hasSizeLessThanOrEqualTo(1_000);
                }
                else {
                    assertThat(expected).hasSize(80_000);
                }

                List<Page> baseline = new ArrayList<>();
                new SerialPriorityQueueMerge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, BenchmarkData.COMBINE, 1000).merge(data, baseline::add);
                Rows.assertSameRows(Rows.read(outputTypes(engine), baseline), expected, "baseline " + combining);

                for (MergeParallelism parallelism : List.of(MergeParallelism.fixed(1), MergeParallelism.fixed(2), MergeParallelism.fixed(4), MergeParallelism.AUTO)) {
                    List<SortedPageSource> sources = data.stream().map(pages -> (SortedPageSource) new PageListSource(pages)).toList();
                    MergedPageStream stream = engine.merge(MergeRequest.builder(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS)
                            .sources(sources)
                            .combine(BenchmarkData.COMBINE)
                            .parallelism(parallelism)
                            .build());
                    Rows.assertSameRows(Rows.read(stream.getTypes(), Drain.all(stream)), expected, combining + " " + parallelism);
                    stream.close();
                }
            }
        }
    }

    @Test
    public void testAnchorsDoTheSameWork()
            throws Exception
    {
        TrinoMergeSortedPagesAnchor trino = new TrinoMergeSortedPagesAnchor(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS);
        try (DruidMergeAnchor druidSerial = new DruidMergeAnchor(2, 1);
                DruidMergeAnchor druidParallel = new DruidMergeAnchor(3, 3)) {
            for (BenchmarkData.Combining combining : BenchmarkData.Combining.values()) {
                List<List<Page>> data = BenchmarkData.generate(16, 5_000, combining, 3);
                List<List<Object[]>> inputs = data.stream().map(pages -> Rows.read(BenchmarkData.TYPES, pages)).toList();

                // Trino merges without combining: every input row once, in key order
                List<Object[]> merged = ReferenceMerge.merge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, inputs, Optional.empty(), OptionalLong.empty());
                List<Page> trinoPages = new ArrayList<>();
                trino.merge(data, trinoPages::add);
                List<Object[]> trinoRows = Rows.read(BenchmarkData.TYPES, trinoPages);
                assertThat(trinoRows).hasSize(80_000);
                assertThat(trinoRows.stream().map(row -> row[0]).toList()).isEqualTo(merged.stream().map(row -> row[0]).toList());
                // equal keys may come in another input order than the reference's: compare as sorted by every column
                Rows.assertSameRows(sortedByAllColumns(trinoRows), sortedByAllColumns(merged), "trino " + combining);

                // Druid merges and combines: the engine's result, (key, count(*), sum(a), max(b)) per key
                List<Object[]> combined = ReferenceMerge.merge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, inputs, Optional.of(BenchmarkData.COMBINE), OptionalLong.empty());
                List<List<DruidMergeAnchor.Row>> druidInputs = DruidMergeAnchor.toRows(data);
                for (DruidMergeAnchor druid : List.of(druidSerial, druidParallel)) {
                    List<Object[]> druidRows = druid.merge(druidInputs).toList().stream()
                            .map(row -> new Object[] {row.key(), row.count(), row.sum(), row.max()})
                            .toList();
                    Rows.assertSameRows(druidRows, combined, "druid " + combining);
                    assertThat(druid.mergeAndCount(druidInputs)).isEqualTo(combined.size());
                    // parallelism 1 runs one merge task; a pool of 3 lets Druid run several layer-1 tasks
                    if (druid == druidSerial) {
                        assertThat(druid.lastParallelism()).isEqualTo(1);
                    }
                    else {
                        assertThat(druid.lastParallelism()).isGreaterThan(1);
                    }
                }
            }
        }
    }

    private static List<Object[]> sortedByAllColumns(List<Object[]> rows)
    {
        return rows.stream()
                .sorted(Comparator.<Object[]>comparingLong(row -> (Long) row[0])
                        .thenComparingLong(row -> (Long) row[1])
                        .thenComparingDouble(row -> (Double) row[2]))
                .toList();
    }

    private static List<Type> outputTypes(MergeEngine engine)
    {
        return engine.outputTypes(MergeRequest.builder(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS).combine(BenchmarkData.COMBINE).build());
    }
}
