package io.overdrive.merge.benchmark;

import com.google.common.collect.Ordering;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import org.apache.druid.java.util.common.guava.ParallelMergeCombiningSequence;
import org.apache.druid.java.util.common.guava.Sequence;
import org.apache.druid.java.util.common.guava.Sequences;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BinaryOperator;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The Druid anchor: Druid's broker merge, {@code ParallelMergeCombiningSequence} from {@code druid-processing}, on
 * the benchmark's rows. Druid merges result rows (Java objects) whose type is both the input and the output of its
 * combining function, as a broker merges the partial results of its data servers; so every input row
 * {@code (key, a, b)} is turned, before the timed region, into the partial aggregate
 * {@code Row(key, count = 1, sum = a, max = b)}, and equal keys are folded into a new {@code Row} (count and sum
 * added, max taken). The settings are Druid's broker defaults ({@code DEFAULT_TASK_*}: yield after 16,384 rows,
 * batches of 4,096 rows, 100 ms target task time), no timeout, on a {@link ForkJoinPool} in async mode as the
 * broker's merge pool.
 */
public final class DruidMergeAnchor
        implements AutoCloseable
{
    public record Row(long key, long count, long sum, double max) {}

    private static final Ordering<Row> ORDER = new Ordering<>()
    {
        @Override
        public int compare(Row left, Row right)
        {
            return Long.compare(left.key(), right.key());
        }
    };

    private static final BinaryOperator<Row> COMBINE = (left, right) -> {
        // Druid starts each group with combine(null, first row)
        if (left == null) {
            return right;
        }
        return new Row(left.key(), left.count() + right.count(), left.sum() + right.sum(), Math.max(left.max(), right.max()));
    };

    private final ForkJoinPool pool;
    private final int parallelism;
    private volatile int lastParallelism;

    /**
     * @param poolSize the merge pool's parallelism (Druid's {@code druid.processing.merge.parallelism})
     * @param parallelism the query's merge parallelism (Druid's {@code parallelMergeParallelism}): 1 merges in one
     * task; more lets Druid choose min(floor(sqrt(k)), parallelism - busy threads - 1) layer-1 tasks plus one layer-2
     * task, and at least 3 is needed for two layer-1 tasks
     */
    public DruidMergeAnchor(int poolSize, int parallelism)
    {
        this.pool = new ForkJoinPool(poolSize, ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, true);
        this.parallelism = parallelism;
    }

    /**
     * The benchmark's pages (key bigint, a bigint, b double) as Druid partial-aggregate rows, one list per input.
     */
    public static List<List<Row>> toRows(List<List<Page>> inputs)
    {
        List<List<Row>> result = new ArrayList<>(inputs.size());
        for (List<Page> pages : inputs) {
            List<Row> rows = new ArrayList<>();
            for (Page page : pages) {
                Block keys = page.getBlock(0);
                Block a = page.getBlock(1);
                Block b = page.getBlock(2);
                for (int position = 0; position < page.getPositionCount(); position++) {
                    rows.add(new Row(BIGINT.getLong(keys, position), 1, BIGINT.getLong(a, position), DOUBLE.getDouble(b, position)));
                }
            }
            result.add(rows);
        }
        return result;
    }

    public Sequence<Row> merge(List<List<Row>> inputs)
    {
        List<Sequence<Row>> sequences = new ArrayList<>(inputs.size());
        for (List<Row> rows : inputs) {
            sequences.add(Sequences.simple(rows));
        }
        return new ParallelMergeCombiningSequence<>(
                pool,
                sequences,
                ORDER,
                COMBINE,
                false,
                0,
                0,
                parallelism,
                ParallelMergeCombiningSequence.DEFAULT_TASK_INITIAL_YIELD_NUM_ROWS,
                ParallelMergeCombiningSequence.DEFAULT_TASK_SMALL_BATCH_NUM_ROWS,
                ParallelMergeCombiningSequence.DEFAULT_TASK_TARGET_RUN_TIME_MILLIS,
                metrics -> lastParallelism = metrics.getParallelism());
    }

    /**
     * Merges and reads the output in the calling thread, as the broker's HTTP thread does; returns the row count.
     */
    public long mergeAndCount(List<List<Row>> inputs)
    {
        long[] count = new long[1];
        merge(inputs).forEach(_ -> count[0]++);
        return count[0];
    }

    /**
     * The number of layer-1 tasks Druid chose for the last merge read to the end (1: a single merge task).
     */
    public int lastParallelism()
    {
        return lastParallelism;
    }

    @Override
    public void close()
            throws InterruptedException
    {
        pool.shutdown();
        if (!pool.awaitTermination(10, SECONDS)) {
            throw new IllegalStateException("Druid merge pool did not terminate");
        }
    }
}
