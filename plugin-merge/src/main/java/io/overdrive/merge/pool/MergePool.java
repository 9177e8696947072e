package io.overdrive.merge.pool;

import io.airlift.log.Logger;
import org.weakref.jmx.Managed;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The node's merge pool: a fork-join pool whose work is admitted through one priority queue ordered by merge
 * priority, then merge arrival (FIFO), then task submission. A fork-join pool's own queues cannot order work by
 * priority, so at most {@code poolSize} drain loops run on the pool; each takes the first queued task, runs it (a
 * task runs for about the target task time and never blocks), and takes the next. Under a backlog this serves the
 * oldest merge of the highest priority first, which keeps merge completion times short and predictable.
 */
public final class MergePool
        implements AutoCloseable
{
    private static final Logger log = Logger.get(MergePool.class);

    // compared, not negated: -Integer.MIN_VALUE is Integer.MIN_VALUE
    private static final Comparator<Entry> PRIORITY_ORDER = (first, second) -> Integer.compare(second.ticket().priority(), first.ticket().priority());
    private static final Comparator<Entry> FIFO_ORDER = PRIORITY_ORDER
            .thenComparingLong(entry -> entry.ticket().arrival())
            .thenComparingLong(Entry::sequence);

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

    public MergePool(int poolSize, boolean fifo)
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
    public MergeTicket arrive(int priority)
    {
        return new MergeTicket(priority, fifo ? arrivals.incrementAndGet() : 0, System.nanoTime());
    }

    /**
     * Queues a task; it runs on the pool when it is the first in admission order and a pool thread is free. A task the
     * pool cannot run (it is closed, or closes before the task's turn) is handed to {@code onRejected} instead, on the
     * calling or the closing thread, so that its owner can fail and release what the task holds.
     */
    public void submit(MergeTicket ticket, Runnable task, Consumer<RejectedExecutionException> onRejected)
    {
        requireNonNull(ticket, "ticket is null");
        requireNonNull(task, "task is null");
        requireNonNull(onRejected, "onRejected is null");
        Entry entry;
        boolean closedAlready;
        boolean startDrainer = false;
        synchronized (this) {
            entry = new Entry(ticket, fifo ? submissions++ : 0, task, onRejected);
            closedAlready = closed;
            if (!closed) {
                queue.add(entry);
                if (drainers < poolSize) {
                    drainers++;
                    startDrainer = true;
                }
            }
        }
        if (closedAlready) {
            reject(entry, new RejectedExecutionException("The merge pool is closed"));
            return;
        }
        if (startDrainer) {
            try {
                pool.execute(this::drain);
            }
            catch (RejectedExecutionException e) {
                boolean mine;
                synchronized (this) {
                    drainers--;
                    // unless close() or a drainer took it already
                    mine = queue.remove(entry);
                }
                if (mine) {
                    reject(entry, e);
                }
            }
        }
    }

    private static void reject(Entry entry, RejectedExecutionException rejection)
    {
        try {
            entry.onRejected().accept(rejection);
        }
        catch (Throwable t) {
            log.error(t, "Failed to release a merge task the pool rejected");
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

    /**
     * Stops the pool. Tasks still queued are not run: each is handed to its rejection handler, which fails its merge
     * and closes its inputs.
     */
    @Override
    public void close()
    {
        List<Entry> dropped;
        synchronized (this) {
            closed = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
        }
        RejectedExecutionException rejection = new RejectedExecutionException("The merge pool is closed");
        dropped.forEach(entry -> reject(entry, rejection));
        pool.shutdownNow();
    }

    public boolean awaitTermination(long timeout, TimeUnit unit)
            throws InterruptedException
    {
        return pool.awaitTermination(timeout, unit);
    }

    private record Entry(MergeTicket ticket, long sequence, Runnable task, Consumer<RejectedExecutionException> onRejected) {}
}
