package io.overdrive.merge.benchmark;

import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.combine.CombineStep;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;

/**
 * The benchmark's inputs, after Druid's broker benchmark: k sorted inputs of {@code rowsPerInput} rows (key bigint,
 * a bigint, b double), combined as {@code count(*), sum(a), max(b)} per key. Heavy combining draws keys from 1,000
 * values (each input repeats a key ~75 times); light combining draws them from 2^62 values (almost every row is its
 * own group).
 */
public final class BenchmarkData
{
    public static final List<Type> TYPES = List.of(BIGINT, BIGINT, DOUBLE);
    public static final List<SortKey> SORT_KEYS = List.of(SortKey.ascending(0));
    public static final CombineSpec COMBINE = CombineSpec.of(CombineStep.SINGLE, Aggregation.countRows(), Aggregation.sum(1), Aggregation.max(2));
    public static final int PAGE_ROWS = 4096;

    public enum Combining
    {
        HEAVY(1_000), LIGHT(1L << 62);

        private final long distinctKeys;

        Combining(long distinctKeys)
        {
            this.distinctKeys = distinctKeys;
        }

        public long distinctKeys()
        {
            return distinctKeys;
        }
    }

    private BenchmarkData() {}

    public static List<List<Page>> generate(int inputs, int rowsPerInput, Combining combining, long seed)
    {
        Random random = new Random(seed);
        List<List<Page>> result = new ArrayList<>(inputs);
        for (int input = 0; input < inputs; input++) {
            long[] keys = new long[rowsPerInput];
            for (int i = 0; i < rowsPerInput; i++) {
                keys[i] = random.nextLong(combining.distinctKeys());
            }
            Arrays.sort(keys);
            List<Page> pages = new ArrayList<>();
            PageBuilder builder = new PageBuilder(PAGE_ROWS, TYPES);
            for (int i = 0; i < rowsPerInput; i++) {
                BIGINT.writeLong(builder.getBlockBuilder(0), keys[i]);
                BIGINT.writeLong(builder.getBlockBuilder(1), random.nextInt(1000));
                DOUBLE.writeDouble(builder.getBlockBuilder(2), random.nextDouble());
                builder.declarePosition();
                if (builder.getPositionCount() == PAGE_ROWS) {
                    pages.add(builder.build());
                    builder.reset();
                }
            }
            if (!builder.isEmpty()) {
                pages.add(builder.build());
            }
            result.add(pages);
        }
        return result;
    }
}
