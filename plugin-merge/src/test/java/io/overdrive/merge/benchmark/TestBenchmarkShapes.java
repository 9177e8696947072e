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
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark's shapes at a small scale: the engine (serial and parallel) and the serial baseline produce the
 * reference result, so the benchmark compares equal work.
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

    private static List<Type> outputTypes(MergeEngine engine)
    {
        return engine.outputTypes(MergeRequest.builder(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS).combine(BenchmarkData.COMBINE).build());
    }
}
