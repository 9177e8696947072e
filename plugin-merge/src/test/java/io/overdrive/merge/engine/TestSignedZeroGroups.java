package io.overdrive.merge.engine;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.PageListSource;
import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.combine.CombineStep;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.testing.Drain;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The merge groups real and double keys as Trino's GROUP BY, DISTINCT and count(DISTINCT) do (IS DISTINCT FROM): 0.0
 * and -0.0 coming from different sources are one group, every NaN is one group, NULL is its own group.
 */
@TestInstance(PER_CLASS)
class TestSignedZeroGroups
{
    private final MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2).setBatchSize(2));

    @AfterAll
    void tearDown()
            throws InterruptedException
    {
        engine.close();
        assertThat(engine.getPool().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void testDoubleKeys()
    {
        assertGroups(DOUBLE, new Object[] {-0.0, 0.0, -0.0}, new Object[] {Double.NaN, Double.longBitsToDouble(0x7ff8_0000_0000_0001L), Double.NaN});
    }

    @Test
    void testRealKeys()
    {
        assertGroups(REAL, new Object[] {-0.0f, 0.0f, -0.0f}, new Object[] {Float.NaN, Float.intBitsToFloat(0x7fc0_0001), Float.NaN});
    }

    /**
     * Three sources, each with a zero (of either sign) holding count 1, 2 and 4, a NaN holding 8, 16 and 32, and a NULL
     * holding 64, sorted as the shards sort them (ascending, nulls last).
     */
    private void assertGroups(Type type, Object[] zeros, Object[] nans)
    {
        for (MergeParallelism parallelism : List.of(MergeParallelism.fixed(1), MergeParallelism.AUTO)) {
            // GROUP BY key with count(*): the counts of one group add up
            List<Object[]> counted = merge(type, zeros, nans, true, parallelism);
            assertThat(counted).hasSize(3);
            assertThat(((Number) counted.get(0)[0]).doubleValue()).isZero();
            assertThat(counted.get(0)[1]).isEqualTo(7L);
            assertThat(((Number) counted.get(1)[0]).doubleValue()).isNaN();
            assertThat(counted.get(1)[1]).isEqualTo(56L);
            assertThat(counted.get(2)).containsExactly(null, 64L);
            // DISTINCT key (and the inner grouping of count(DISTINCT key)): no aggregates, three keys
            List<Object[]> distinct = merge(type, zeros, nans, false, parallelism);
            assertThat(distinct).hasSize(3);
        }
    }

    private List<Object[]> merge(Type type, Object[] zeros, Object[] nans, boolean count, MergeParallelism parallelism)
    {
        List<Type> types = count ? List.of(type, BIGINT) : List.of(type);
        List<PageListSource> sources = new ArrayList<>();
        for (int source = 0; source < 3; source++) {
            BlockBuilder keys = type.createBlockBuilder(null, 3);
            write(type, keys, zeros[source]);
            write(type, keys, nans[source]);
            write(type, keys, null);
            BlockBuilder counts = BIGINT.createBlockBuilder(null, 3);
            BIGINT.writeLong(counts, 1L << source);
            BIGINT.writeLong(counts, 8L << source);
            BIGINT.writeLong(counts, source == 0 ? 64 : 0);
            Block[] blocks = count ? new Block[] {keys.build(), counts.build()} : new Block[] {keys.build()};
            sources.add(new PageListSource(List.of(new Page(blocks))));
        }
        MergeRequest request = MergeRequest.builder(types, List.of(SortKey.ascending(0)))
                .sources(sources)
                .combine(count ? CombineSpec.of(CombineStep.FINAL, Aggregation.count(1)) : new CombineSpec(List.of(), CombineStep.FINAL))
                .parallelism(parallelism)
                .build();
        MergedPageStream stream = engine.merge(request);
        List<Object[]> rows = new ArrayList<>();
        for (Page page : Drain.all(stream)) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                Object[] row = new Object[types.size()];
                for (int channel = 0; channel < row.length; channel++) {
                    row[channel] = types.get(channel).getObjectValue(page.getBlock(channel), position);
                }
                rows.add(row);
            }
        }
        Drain.awaitTerminated(stream);
        return rows;
    }

    private static void write(Type type, BlockBuilder builder, Object value)
    {
        switch (value) {
            case null -> builder.appendNull();
            case Double number -> type.writeDouble(builder, number);
            case Float number -> type.writeLong(builder, Float.floatToRawIntBits(number));
            default -> throw new IllegalArgumentException(value.toString());
        }
    }
}
