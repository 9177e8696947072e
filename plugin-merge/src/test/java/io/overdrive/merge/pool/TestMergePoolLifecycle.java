package io.overdrive.merge.pool;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the pool does with work it cannot run: every task is either run or handed to its rejection handler, never
 * dropped; and priorities order the queue over the whole int range.
 */
class TestMergePoolLifecycle
{
    @Test
    void queuedTasksAreRejectedWhenThePoolCloses()
            throws Exception
    {
        MergePool pool = new MergePool(1, true);
        CountDownLatch release = occupyTheOnlyThread(pool);

        List<String> ran = new CopyOnWriteArrayList<>();
        List<String> rejected = new CopyOnWriteArrayList<>();
        for (int task = 0; task < 5; task++) {
            String name = "task-" + task;
            pool.submit(pool.arrive(0), () -> ran.add(name), rejection -> rejected.add(name + ": " + rejection.getMessage()));
        }
        assertThat(pool.getQueuedTasks()).isEqualTo(5);
        pool.close();
        release.countDown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).isEmpty();
        assertThat(rejected).hasSize(5).allSatisfy(line -> assertThat(line).endsWith("The merge pool is closed"));
    }

    @Test
    void taskSubmittedAfterCloseIsRejectedNotDropped()
    {
        MergePool pool = new MergePool(2, true);
        pool.close();
        AtomicReference<RejectedExecutionException> rejection = new AtomicReference<>();
        List<String> ran = new ArrayList<>();
        pool.submit(pool.arrive(0), () -> ran.add("ran"), rejection::set);
        assertThat(ran).isEmpty();
        assertThat(rejection.get()).hasMessage("The merge pool is closed");
    }

    @Test
    void extremePrioritiesKeepTheirOrder()
            throws Exception
    {
        MergePool pool = new MergePool(1, true);
        try {
            CountDownLatch release = occupyTheOnlyThread(pool);
            List<Integer> order = new CopyOnWriteArrayList<>();
            // negating Integer.MIN_VALUE overflows: it must still come last, not first
            for (int priority : new int[] {Integer.MIN_VALUE, 0, Integer.MAX_VALUE, -1, 1}) {
                pool.submit(pool.arrive(priority), () -> order.add(priority), _ -> {});
            }
            release.countDown();
            assertThat(pool.awaitQuiescence(10, TimeUnit.SECONDS)).isTrue();
            assertThat(order).containsExactly(Integer.MAX_VALUE, 1, 0, -1, Integer.MIN_VALUE);
        }
        finally {
            pool.close();
        }
    }

    // a task holds the pool's one thread until the returned latch is released, so what is submitted next queues
    private static CountDownLatch occupyTheOnlyThread(MergePool pool)
            throws InterruptedException
    {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        pool.submit(pool.arrive(0), () -> {
            running.countDown();
            awaitQuietly(release);
        }, _ -> {});
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    private static void awaitQuietly(CountDownLatch latch)
    {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
