package io.overdrive.merge.engine;

import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class TestPageQueue
{
    @Test
    public void testBackpressureResumesAtHalf()
    {
        AtomicLong bytes = new AtomicLong();
        PageQueue queue = new PageQueue(4, bytes);
        assertThat(queue.isBlocked()).isNotDone();
        assertThat(queue.offer(page(1))).isDone();
        assertThat(queue.offer(page(2))).isDone();
        assertThat(queue.offer(page(3))).isDone();
        CompletableFuture<?> full = queue.offer(page(4));
        assertThat(full).isNotDone();
        assertThat(bytes.get()).isPositive();

        assertThat(queue.getNextPage().getPositionCount()).isEqualTo(1);
        assertThat(full).as("3 pages left, resumes at 2").isNotDone();
        assertThat(queue.getNextPage().getPositionCount()).isEqualTo(2);
        assertThat(full).isDone();
        assertThat(queue.getNextPage().getPositionCount()).isEqualTo(3);
        assertThat(queue.getNextPage().getPositionCount()).isEqualTo(4);
        assertThat(queue.getNextPage()).isNull();
        assertThat(bytes.get()).isZero();
        assertThat(queue.isFinished()).isFalse();

        CompletableFuture<?> empty = queue.isBlocked();
        assertThat(empty).isNotDone();
        queue.finish();
        assertThat(empty).isDone();
        assertThat(queue.isFinished()).isTrue();
    }

    @Test
    public void testCloseReleasesPagesAndWakesProducer()
    {
        AtomicLong bytes = new AtomicLong();
        PageQueue queue = new PageQueue(1, bytes);
        CompletableFuture<?> full = queue.offer(page(10));
        assertThat(full).isNotDone();
        queue.close();
        assertThat(full).isDone();
        assertThat(bytes.get()).isZero();
        assertThat(queue.getBufferedBytes()).isZero();
        assertThat(queue.offer(page(1))).as("dropped after close").isDone();
        assertThat(bytes.get()).isZero();
        assertThat(queue.isFinished()).isTrue();
    }

    @Test
    public void testFailureReachesConsumer()
    {
        PageQueue queue = new PageQueue(2, new AtomicLong());
        queue.offer(page(1));
        CompletableFuture<?> blocked = new PageQueue(2, new AtomicLong()).isBlocked();
        assertThat(blocked).isNotDone();
        queue.fail(new IllegalStateException("boom"));
        assertThat(queue.isBlocked()).isDone();
        assertThatThrownBy(queue::getNextPage).hasMessage("boom");
        assertThatThrownBy(queue::isFinished).hasMessage("boom");
    }

    private static Page page(int positions)
    {
        BlockBuilder builder = BIGINT.createBlockBuilder(null, positions);
        for (int i = 0; i < positions; i++) {
            BIGINT.writeLong(builder, i);
        }
        return new Page(builder.build());
    }
}
