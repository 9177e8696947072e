package io.overdrive.merge.pool;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.PageListSource;
import io.overdrive.merge.SortKey;
import io.overdrive.merge.SortedPageSource;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.combine.CombineStep;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.testing.Drain;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under a backlog, equal-priority merges start in arrival order with merge.fifo=true, and a higher priority goes
 * first.
 */
public class TestMergePoolOrder
{
    @Test
    public void testEqualPriorityMergesStartInArrivalOrder()
            throws Exception
    {
        for (int poolSize : new int[] {1, 2}) {
            try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(poolSize).setFifo(true))) {
                List<MergedPageStream> backlog = submitBacklog(engine, poolSize, 0);
                // A pool thread takes the first queued merge and then records its start, so a merge can record its
                // start before an earlier one only while that earlier one is held by another pool thread between
                // the two steps: at most poolSize - 1 earlier merges can record a later start.
                for (int later = 0; later < backlog.size(); later++) {
                    long started = startNanos(backlog.get(later));
                    long overtaken = backlog.subList(0, later).stream()
                            .filter(earlier -> startNanos(earlier) > started)
                            .count();
                    assertThat(overtaken)
                            .as("earlier merges that started after merge %s with pool size %s: %s", later, poolSize, startOrder(backlog))
                            .isLessThanOrEqualTo(poolSize - 1);
                }
                assertThat(engine.getStats().getStartedMerges().getTotalCount()).isEqualTo(backlog.size() + poolSize);
            }
        }
    }

    @Test
    public void testHigherPriorityGoesFirst()
            throws Exception
    {
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(1).setFifo(true))) {
            CountDownLatch release = new CountDownLatch(1);
            MergedPageStream blocker = occupyPool(engine, release);
            List<MergedPageStream> low = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                low.add(engine.merge(smallMerge(0)));
            }
            MergedPageStream high = engine.merge(smallMerge(10));
            release.countDown();
            Drain.all(blocker);
            Drain.all(high);
            for (MergedPageStream stream : low) {
                Drain.all(stream);
                assertThat(stream.getInfo().startNanos().orElseThrow()).isGreaterThan(high.getInfo().startNanos().orElseThrow());
            }
        }
    }

    @Test
    public void testUnorderedAdmissionStartsEveryMerge()
            throws Exception
    {
        // merge.fifo=false gives no order guarantee; every merge still starts and completes
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(1).setFifo(false))) {
            List<MergedPageStream> backlog = submitBacklog(engine, 1, 0);
            assertThat(backlog).allSatisfy(stream -> assertThat(stream.getInfo().startNanos()).isPresent());
        }
    }

    /**
     * Occupies the pool with a merge that cannot finish until released, queues 30 merges behind it, releases it
     * and waits for all.
     */
    private static List<MergedPageStream> submitBacklog(MergeEngine engine, int poolSize, int priority)
            throws Exception
    {
        CountDownLatch release = new CountDownLatch(1);
        List<MergedPageStream> blockers = new ArrayList<>();
        for (int i = 0; i < poolSize; i++) {
            blockers.add(occupyPool(engine, release));
        }
        List<MergedPageStream> backlog = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            backlog.add(engine.merge(smallMerge(priority)));
        }
        assertThat(engine.getStats().getQueuedMerges()).isEqualTo(30);
        assertThat(backlog).allSatisfy(stream -> assertThat(stream.getInfo().startNanos()).isEmpty());
        release.countDown();
        for (MergedPageStream stream : blockers) {
            Drain.all(stream);
        }
        for (MergedPageStream stream : backlog) {
            Drain.all(stream);
        }
        return backlog;
    }

    /**
     * A merge whose single task keeps a pool thread busy (its input spins in getNextPage until released, standing in
     * for a long merge; tests only) so that later merges queue.
     */
    private static MergedPageStream occupyPool(MergeEngine engine, CountDownLatch release)
            throws InterruptedException
    {
        CountDownLatch running = new CountDownLatch(1);
        PageListSource data = new PageListSource(List.of(page(0, 1000)));
        SortedPageSource busy = new SortedPageSource()
        {
            @Override
            public CompletableFuture<?> isBlocked()
            {
                return NOT_BLOCKED;
            }

            @Override
            public Page getNextPage()
            {
                running.countDown();
                try {
                    release.await();
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return data.getNextPage();
            }

            @Override
            public boolean isFinished()
            {
                return data.isFinished();
            }

            @Override
            public void close() {}
        };
        MergedPageStream stream = engine.merge(MergeRequest.builder(List.of(BIGINT), List.of(SortKey.ascending(0)))
                .source(busy)
                .parallelism(MergeParallelism.fixed(1))
                .build());
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        return stream;
    }

    private static long startNanos(MergedPageStream stream)
    {
        return stream.getInfo().startNanos().orElseThrow();
    }

    /**
     * Arrival indexes in the order the merges recorded their start.
     */
    private static List<Integer> startOrder(List<MergedPageStream> backlog)
    {
        return IntStream.range(0, backlog.size()).boxed()
                .sorted(Comparator.comparingLong(index -> startNanos(backlog.get(index))))
                .toList();
    }

    private static MergeRequest smallMerge(int priority)
    {
        List<SortedPageSource> sources = IntStream.range(0, 4)
                .mapToObj(i -> (SortedPageSource) new PageListSource(List.of(page(i, 200))))
                .toList();
        return MergeRequest.builder(List.of(BIGINT), List.of(SortKey.ascending(0)))
                .sources(sources)
                .combine(CombineSpec.of(CombineStep.SINGLE, Aggregation.countRows()))
                .priority(priority)
                .build();
    }

    private static Page page(int offset, int rows)
    {
        BlockBuilder builder = BIGINT.createBlockBuilder(null, rows);
        for (int i = 0; i < rows; i++) {
            BIGINT.writeLong(builder, offset + i);
        }
        return new Page(builder.build());
    }
}
