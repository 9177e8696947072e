package io.overdrive.merge.admission;

import io.airlift.log.Logger;
import org.weakref.jmx.Managed;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The node's merge pool: a fork-join pool whose work is admitted through one priority queue ordered by merge
 * priority, then merge arrival (FIFO), then task submission. A fork-join pool's own queues cannot order work by
 * priority, so at most {@code poolSize} drain loops run on the pool; each takes the first queued task, runs it (a
 * task runs for about the target task time and never blocks), and takes the next. Under a backlog this serves the
 * oldest merge of the highest priority first, which keeps merge completion times short and predictable.
 */
public final class MergeScheduler
        implements AutoCloseable
{
    private static final Logger log = Logger.get(MergeScheduler.class);

    private static final Comparator<Entry> FIFO_ORDER = Comparator
            .comparingInt((Entry entry) -> -entry.admission().priority())
            .thenComparingLong(entry -> entry.admission().arrival())
            .thenComparingLong(Entry::sequence);
    // merge.fifo=false: equal priorities are unordered (the queue's heap order decides, as in a PriorityBlockingQueue)
    private static final Comparator<Entry> PRIORITY_ORDER = Comparator.comparingInt((Entry entry) -> -entry.admission().priority());

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final ForkJoinPool pool;
    private final String threadNamePrefix;
    private final int poolSize;
    private final boolean fifo;
    private final AtomicLong arrivals = new AtomicLong();

    // guarded by this
    private final PriorityQueue<Entry> queue;
    private long submissions;
    private int drainers;
    private boolean closed;

    private final AtomicInteger runningTasks = new AtomicInteger();

    public MergeScheduler(int poolSize, boolean fifo)
    {
        checkArgument(poolSize > 0, "poolSize must be positive");
        this.poolSize = poolSize;
        this.fifo = fifo;
        this.queue = new PriorityQueue<>(fifo ? FIFO_ORDER : PRIORITY_ORDER);
        AtomicInteger threadIds = new AtomicInteger();
        this.threadNamePrefix = "overdrive-merge-" + POOLS.incrementAndGet() + "-";
        this.pool = new ForkJoinPool(
                poolSize,
                pool -> {
                    ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
                    thread.setName(threadNamePrefix + threadIds.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                },
                (thread, failure) -> log.error(failure, "Uncaught failure in %s", thread.getName()),
                true);
    }

    /**
     * Registers a merge's arrival; its tasks are ordered by the returned admission.
     */
    public Admission arrive(int priority)
    {
        return new Admission(priority, fifo ? arrivals.incrementAndGet() : 0, System.nanoTime());
    }

    /**
     * Queues a task; it runs on the pool when it is the first in admission order and a pool thread is free.
     */
    public void submit(Admission admission, Runnable task)
    {
        requireNonNull(admission, "admission is null");
        requireNonNull(task, "task is null");
        boolean startDrainer = false;
        synchronized (this) {
            if (closed) {
                return;
            }
            queue.add(new Entry(admission, fifo ? submissions++ : 0, task));
            if (drainers < poolSize) {
                drainers++;
                startDrainer = true;
            }
        }
        if (startDrainer) {
            try {
                pool.execute(this::drain);
            }
            catch (RejectedExecutionException e) {
                synchronized (this) {
                    drainers--;
                }
                if (!pool.isShutdown()) {
                    throw e;
                }
            }
        }
    }

    private void drain()
    {
        while (true) {
            Entry entry;
            synchronized (this) {
                entry = queue.poll();
                if (entry == null) {
                    drainers--;
                    return;
                }
            }
            runningTasks.incrementAndGet();
            try {
                entry.task().run();
            }
            catch (Throwable t) {
                // tasks handle their own failures; this is a bug, keep the drain loop alive
                log.error(t, "Merge task failed unexpectedly");
            }
            finally {
                runningTasks.decrementAndGet();
            }
        }
    }

    public int getPoolSize()
    {
        return poolSize;
    }

    /**
     * Names of this pool's threads start with this ({@code overdrive-merge-<pool>-}).
     */
    public String getThreadNamePrefix()
    {
        return threadNamePrefix;
    }

    public boolean isFifo()
    {
        return fifo;
    }

    @Managed(description = "Merge tasks running on the pool")
    public int getRunningTasks()
    {
        return runningTasks.get();
    }

    @Managed(description = "Merge tasks waiting for a pool thread")
    public synchronized int getQueuedTasks()
    {
        return queue.size();
    }

    @Managed(description = "Threads of the merge pool")
    public int getConfiguredPoolSize()
    {
        return poolSize;
    }

    @Managed(description = "Threads the fork-join pool has started")
    public int getPoolThreads()
    {
        return pool.getPoolSize();
    }

    @Managed(description = "Fork-join pool threads that are not idle")
    public int getActivePoolThreads()
    {
        return pool.getActiveThreadCount();
    }

    /**
     * Threads not needed by running or queued tasks, counting the calling task's own thread as free (it is about to
     * be replaced by the tasks it plans).
     */
    public int idleThreadsForPlanning()
    {
        int busy;
        synchronized (this) {
            busy = runningTasks.get() + queue.size();
        }
        if (isPoolThread()) {
            busy--;
        }
        return Math.max(0, poolSize - busy);
    }

    public boolean isPoolThread()
    {
        return Thread.currentThread() instanceof ForkJoinWorkerThread worker && worker.getPool() == pool;
    }

    /**
     * Whether no task is queued or running (used by tests and shutdown).
     */
    public boolean isQuiescent()
    {
        synchronized (this) {
            return queue.isEmpty() && drainers == 0 && runningTasks.get() == 0;
        }
    }

    public boolean awaitQuiescence(long timeout, TimeUnit unit)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!isQuiescent()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            // test and shutdown helper only; merge tasks never wait
            Thread.sleep(1);
        }
        return true;
    }

    @Override
    public void close()
    {
        synchronized (this) {
            closed = true;
            queue.clear();
        }
        pool.shutdownNow();
    }

    public boolean awaitTermination(long timeout, TimeUnit unit)
            throws InterruptedException
    {
        return pool.awaitTermination(timeout, unit);
    }

    private record Entry(Admission admission, long sequence, Runnable task) {}
}
