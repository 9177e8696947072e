package io.overdrive.merge.engine;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.overdrive.merge.MergeInfo.MergeState;
import io.overdrive.merge.MergeInfo;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.SortedPageSource;
import io.overdrive.merge.pool.MergeTicket;
import io.overdrive.merge.pool.MergePool;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.stats.MergeStats.MergeOutcome;
import io.overdrive.merge.stats.MergeStats;
import io.airlift.units.Duration;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static io.overdrive.merge.MergeInfo.MergeState.CANCELLED;
import static io.overdrive.merge.MergeInfo.MergeState.FAILED;
import static io.overdrive.merge.MergeInfo.MergeState.FINISHED;
import static io.overdrive.merge.MergeInfo.MergeState.QUEUED;
import static io.overdrive.merge.MergeInfo.MergeState.RUNNING;
import static io.trino.spi.StandardErrorCode.EXCEEDED_TIME_LIMIT;
import static io.trino.spi.StandardErrorCode.SERVER_SHUTTING_DOWN;
import static java.util.Objects.requireNonNull;

/**
 * One merge, from ticket to its last task: Druid's two-layer design on the merge pool. When admitted it chooses
 * the number of layer-1 tasks p. With p = 1 a single task merges all inputs straight into the consumer's queue.
 * With p > 1, p layer-1 tasks each merge a contiguous slice of the inputs (combining into partial states) into a
 * bounded queue, and one layer-2 task merges those queues into the consumer's queue.
 *
 * <p>Stopping (cancel, failure, or the final task done early because of the limit) sets a flag every task checks
 * between runs, closes the queues (releasing their pages and waking their producers) and wakes waiting tasks; each
 * task then closes its own inputs and exits.
 */
public final class ParallelMerge
        implements MergedPageStream
{
    private static final Logger log = Logger.get(ParallelMerge.class);

    private final MergePlan plan;
    private final List<SortedPageSource> sources;
    private final MergePool pool;
    private final MergeStats stats;
    private final MergeTicket ticket;
    private final MergeParallelism parallelismSetting;
    private final int batchSize;
    private final int queueSize;
    private final long targetTaskNanos;
    private final Consumer<ParallelMerge> onEnded;

    private final AtomicLong bufferedBytes = new AtomicLong();
    private final PageQueue output;
    private final AtomicReference<MergeState> state = new AtomicReference<>(QUEUED);
    private final AtomicInteger liveTasks = new AtomicInteger();
    private volatile boolean stopping;
    private volatile List<MergeTask> tasks = List.of();
    private volatile List<PageQueue> queues = List.of();
    private volatile int parallelism;
    private volatile long startNanos = -1;
    private volatile boolean terminated;
    private volatile long endNanos = -1;
    private final CompletableFuture<Void> termination = new CompletableFuture<>();

    private ParallelMerge(
            MergePlan plan,
            List<SortedPageSource> sources,
            MergePool pool,
            MergeStats stats,
            MergeTicket ticket,
            MergeParallelism parallelismSetting,
            int batchSize,
            int queueSize,
            long targetTaskNanos,
            Consumer<ParallelMerge> onEnded)
    {
        this.plan = requireNonNull(plan, "plan is null");
        this.sources = ImmutableList.copyOf(sources);
        this.pool = requireNonNull(pool, "pool is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.ticket = requireNonNull(ticket, "ticket is null");
        this.parallelismSetting = requireNonNull(parallelismSetting, "parallelismSetting is null");
        this.batchSize = batchSize;
        this.queueSize = queueSize;
        this.targetTaskNanos = targetTaskNanos;
        this.onEnded = requireNonNull(onEnded, "onEnded is null");
        this.output = new PageQueue(queueSize, bufferedBytes);
    }

    /**
     * Queues a merge for ticket; its first task plans the merge when the pool admits it.
     */
    public static ParallelMerge submit(
            MergePlan plan,
            List<SortedPageSource> sources,
            MergePool pool,
            MergeStats stats,
            MergeTicket ticket,
            MergeParallelism parallelism,
            int batchSize,
            int queueSize,
            long targetTaskNanos,
            Consumer<ParallelMerge> onEnded)
    {
        ParallelMerge merge = new ParallelMerge(plan, sources, pool, stats, ticket, parallelism, batchSize, queueSize, targetTaskNanos, onEnded);
        stats.mergeQueued();
        // a closed pool fails the merge, which closes its inputs
        pool.submit(ticket, merge::start, merge::rejected);
        return merge;
    }

    private void start()
    {
        if (!state.compareAndSet(QUEUED, RUNNING)) {
            // cancelled or failed while queued; already cleaned up
            return;
        }
        long now = System.nanoTime();
        startNanos = now;
        int chosen = chooseParallelism();
        parallelism = chosen;
        stats.mergeStarted(now - ticket.arrivalNanos(), chosen);

        List<MergeTask> planned = new ArrayList<>();
        List<PageQueue> layerQueues = new ArrayList<>();
        try {
            if (chosen == 1) {
                planned.add(new MergeTask(this, "serial", sources, plan.serial(), output, batchSize, targetTaskNanos));
            }
            else {
                int inputs = sources.size();
                for (int part = 0; part < chosen; part++) {
                    // contiguous slices keep input order across layers, so equal keys stay in input order
                    List<SortedPageSource> slice = sources.subList(part * inputs / chosen, (part + 1) * inputs / chosen);
                    PageQueue queue = new PageQueue(queueSize, bufferedBytes);
                    layerQueues.add(queue);
                    planned.add(new MergeTask(this, "layer1-" + part, slice, plan.layer1(), queue, batchSize, targetTaskNanos));
                }
                planned.add(new MergeTask(this, "layer2", layerQueues, plan.layer2(), output, batchSize, targetTaskNanos));
            }
        }
        catch (Throwable t) {
            // no task runs: end the merge here
            state.set(FAILED);
            stopping = true;
            output.fail(t);
            sources.forEach(ParallelMerge::closeQuietly);
            ended(MergeOutcome.FAILED, true);
            return;
        }
        liveTasks.set(planned.size());
        queues = List.copyOf(layerQueues);
        tasks = List.copyOf(planned);

        if (chosen == 1) {
            // already on a pool thread in ticket order: run the first slice now
            planned.getFirst().run();
            return;
        }
        for (MergeTask task : planned) {
            schedule(task);
        }
    }

    private int chooseParallelism()
    {
        int inputs = sources.size();
        if (inputs <= 1) {
            return 1;
        }
        if (!parallelismSetting.isAuto()) {
            return Math.min(parallelismSetting.fixed().getAsInt(), inputs);
        }
        // as many layer-1 tasks as the pool has idle threads, at most sqrt(k) so the layer-2 merge stays light;
        // the layer-2 task shares the threads (it does little work once layer 1 has combined)
        int idle = pool.idleThreadsForPlanning();
        int fanIn = (int) Math.floor(Math.sqrt(inputs));
        return Math.max(1, Math.min(idle, fanIn));
    }

    void schedule(MergeTask task)
    {
        pool.submit(ticket, task, rejection -> {
            // the pool is closing: fail the merge, then let the task see it stopping and close its inputs here
            rejected(rejection);
            task.run();
        });
    }

    MergeStats stats()
    {
        return stats;
    }

    boolean isStopping()
    {
        return stopping;
    }

    void fail(Throwable failure)
    {
        if (state.compareAndSet(QUEUED, FAILED)) {
            output.fail(failure);
            endQueued(MergeOutcome.FAILED);
            return;
        }
        if (state.compareAndSet(RUNNING, FAILED)) {
            output.fail(failure);
            stopTasks();
            return;
        }
        log.debug(failure, "Merge already ended; ignoring a later failure");
    }

    private void rejected(RejectedExecutionException rejection)
    {
        fail(new TrinoException(SERVER_SHUTTING_DOWN, "The merge pool is closed: the node is shutting down", rejection));
    }

    /** {@code merge.timeout} has passed since the merge arrived: fail it unless it has ended, releasing everything. */
    public void timeOut(Duration timeout)
    {
        if (!state.get().isDone()) {
            fail(new TrinoException(EXCEEDED_TIME_LIMIT, "Merge of %s inputs exceeded merge.timeout (%s); it was stopped and its inputs closed".formatted(sources.size(), timeout)));
        }
    }

    private void cancel()
    {
        if (state.compareAndSet(QUEUED, CANCELLED)) {
            endQueued(MergeOutcome.CANCELLED);
            return;
        }
        // once the output is complete the merge is only winding down; that is not a cancellation. Checked and set with
        // the producer held off, so a merge that completes at that moment is either finished or cancelled, not both
        if (output.unlessProducerFinished(() -> state.compareAndSet(RUNNING, CANCELLED))) {
            stopTasks();
        }
    }

    private void endQueued(MergeOutcome outcome)
    {
        stopping = true;
        // no task exists yet, so no one else touches the sources
        for (SortedPageSource source : sources) {
            closeQuietly(source);
        }
        stats.mergeDequeued();
        ended(outcome, false);
    }

    private void ended(MergeOutcome outcome, boolean wasRunning)
    {
        long now = System.nanoTime();
        endNanos = now;
        terminated = true;
        long start = startNanos;
        long rows = output.rowsOffered();
        stats.mergeEnded(outcome, wasRunning, rows, start < 0 ? 0 : now - start);
        log.debug("Merge %s: %s inputs, parallelism %s, %s rows out, waited %sms, ran %sms",
                outcome, sources.size(), parallelism, rows, ((start < 0 ? now : start) - ticket.arrivalNanos()) / 1_000_000, start < 0 ? 0 : (now - start) / 1_000_000);
        onEnded.accept(this);
        termination.complete(null);
    }

    private void stopTasks()
    {
        stopping = true;
        for (PageQueue queue : queues) {
            queue.close();
        }
        for (MergeTask task : tasks) {
            task.wake();
        }
    }

    void taskExited(MergeTask task, boolean finished)
    {
        if (finished && task == tasks.getLast()) {
            // the final task is done (possibly early, at the limit): nothing more is needed from the other tasks
            stopTasks();
        }
        if (liveTasks.decrementAndGet() == 0) {
            allTasksExited();
        }
    }

    private void allTasksExited()
    {
        for (PageQueue queue : queues) {
            queue.close();
        }
        state.compareAndSet(RUNNING, FINISHED);
        MergeOutcome outcome = switch (state.get()) {
            case FAILED -> MergeOutcome.FAILED;
            case CANCELLED -> MergeOutcome.CANCELLED;
            default -> MergeOutcome.FINISHED;
        };
        ended(outcome, true);
    }

    private static void closeQuietly(SortedPageSource source)
    {
        try {
            source.close();
        }
        catch (Throwable t) {
            log.warn(t, "Failed to close a merge input");
        }
    }

    // consumer side

    @Override
    public List<Type> getTypes()
    {
        return plan.outputTypes();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return output.isBlocked();
    }

    @Override
    public Page getNextPage()
    {
        return output.getNextPage();
    }

    @Override
    public boolean isFinished()
    {
        return output.isFinished();
    }

    @Override
    public MergeInfo getInfo()
    {
        long start = startNanos;
        long end = endNanos;
        return new MergeInfo(
                state.get(),
                parallelism,
                ticket.arrivalNanos(),
                start < 0 ? OptionalLong.empty() : OptionalLong.of(start),
                end < 0 ? OptionalLong.empty() : OptionalLong.of(end),
                output.rowsOffered(),
                bufferedBytes.get(),
                terminated);
    }

    /**
     * Whether every task has exited (the merge holds no thread, task or input any more).
     */
    public boolean isTerminated()
    {
        return terminated;
    }

    /**
     * Completes when the merge is terminated (see {@link #isTerminated()}).
     */
    public CompletableFuture<Void> terminationFuture()
    {
        return termination;
    }

    @Override
    public String toString()
    {
        return "ParallelMerge[%s, tasks=%s, queues=%s, output=%s]".formatted(getInfo(), tasks, queues, output);
    }

    @Override
    public void close()
    {
        cancel();
        // release pages the consumer did not read
        output.close();
    }
}
