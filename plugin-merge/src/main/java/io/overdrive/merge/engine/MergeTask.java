package io.overdrive.merge.engine;

import io.airlift.log.Logger;
import io.overdrive.merge.SortedPageSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * One merge task: a k-way merge of its inputs into its output queue, run in slices on the merge pool. A slice ends
 * when the row budget is spent (the task yields: it is queued again behind the work that is waiting), when an input
 * has no page yet or the output queue is full (the task registers a wakeup on the futures and leaves the thread; it
 * is queued again when one completes), or when the merge is done. A task never blocks a pool thread.
 *
 * <p>The merge heap holds cursors ordered by their current row; ties go to the lower input index, so the merge is
 * stable. Only the thread running a slice touches the task's state; slices are ordered by the pool's queue.
 */
final class MergeTask
        implements Runnable
{
    private static final Logger log = Logger.get(MergeTask.class);

    private enum Step { YIELD, RETRY, WAIT, FINISHED, STOPPED }

    private final ParallelMerge merge;
    private final String name;
    private final MergeCursor[] cursors;
    private final MergeCursor[] heap;
    private final CursorOrder order;
    private RowWriter writer;
    private final YieldBudget budget;
    private final boolean readsMergeInputs;

    private int heapSize;
    private boolean primed;
    // the top cursor whose page ran out and whose next page was not there yet
    private MergeCursor refill;
    private List<CompletableFuture<?>> waitFor;
    private long rowsThisSlice;
    private boolean exited;
    private volatile Wakeup pendingWakeup;

    MergeTask(ParallelMerge merge, String name, List<? extends SortedPageSource> inputs, TaskPlan plan, PageQueue output, int batchSize, long targetNanos)
    {
        this.merge = requireNonNull(merge, "merge is null");
        this.name = requireNonNull(name, "name is null");
        this.order = new CursorOrder(plan.comparator());
        this.cursors = new MergeCursor[inputs.size()];
        for (int i = 0; i < cursors.length; i++) {
            cursors[i] = new MergeCursor(i, inputs.get(i), plan.inputTypes(), plan.keyChannels(), order);
        }
        this.heap = new MergeCursor[cursors.length];
        this.writer = plan.createWriter(order, output, batchSize, merge.stats());
        this.budget = new YieldBudget(targetNanos);
        this.readsMergeInputs = plan.readsMergeInputs();
    }

    @Override
    public void run()
    {
        if (exited) {
            return;
        }
        pendingWakeup = null;
        if (merge.isStopping()) {
            exit(false);
            return;
        }
        long start = System.nanoTime();
        rowsThisSlice = 0;
        Step step;
        try {
            step = runSlice();
        }
        catch (Throwable t) {
            merge.fail(t);
            exit(false);
            return;
        }
        budget.record(rowsThisSlice, System.nanoTime() - start);
        switch (step) {
            case YIELD -> {
                merge.stats().taskYielded();
                merge.schedule(this);
            }
            case RETRY -> merge.schedule(this);
            case WAIT -> suspend(waitFor);
            case FINISHED -> exit(true);
            case STOPPED -> exit(false);
        }
    }

    private Step runSlice()
    {
        if (!primed) {
            Step step = prime();
            if (step != null) {
                return step;
            }
        }
        if (refill != null) {
            MergeCursor cursor = refill;
            MergeCursor.Load load = load(cursor);
            switch (load) {
                case LOADED -> siftDown(0);
                case FINISHED -> removeTop();
                case BLOCKED -> {
                    return waitForInput(cursor);
                }
                case NOT_READY -> {
                    return Step.RETRY;
                }
            }
            refill = null;
        }

        int rowBudget = budget.rows();
        while (true) {
            if (writer.isLimitReached() || heapSize == 0) {
                writer.finish();
                return Step.FINISHED;
            }
            CompletableFuture<?> paused = writer.pausedOutput();
            if (paused != null) {
                waitFor = List.of(paused);
                return Step.WAIT;
            }
            if (rowsThisSlice >= rowBudget) {
                return Step.YIELD;
            }
            if (merge.isStopping()) {
                return Step.STOPPED;
            }

            MergeCursor top = heap[0];
            int nextIndex = heapSize < 2 ? 0 : (heapSize == 2 || precedes(heap[1], heap[2]) ? 1 : 2);
            MergeCursor next = nextIndex == 0 ? null : heap[nextIndex];
            rowsThisSlice += writer.consume(top, next, (int) Math.min(Integer.MAX_VALUE, rowBudget - rowsThisSlice));

            if (top.hasRow()) {
                if (writer.stoppedAtNext()) {
                    // the first step of the sift is known: next moves up, top takes its place
                    heap[0] = next;
                    heap[nextIndex] = top;
                    siftDown(nextIndex);
                }
                else {
                    siftDown(0);
                }
                continue;
            }
            switch (load(top)) {
                case LOADED -> siftDown(0);
                case FINISHED -> removeTop();
                case BLOCKED -> {
                    refill = top;
                    return waitForInput(top);
                }
                case NOT_READY -> {
                    refill = top;
                    return Step.RETRY;
                }
            }
        }
    }

    /**
     * Loads the first page of every input; the heap is built once all have a row or ended.
     */
    private Step prime()
    {
        List<CompletableFuture<?>> blocked = null;
        boolean notReady = false;
        for (MergeCursor cursor : cursors) {
            if (cursor.hasRow() || cursor.isFinished()) {
                continue;
            }
            switch (load(cursor)) {
                case LOADED, FINISHED -> {}
                case BLOCKED -> {
                    if (blocked == null) {
                        blocked = new ArrayList<>();
                    }
                    blocked.add(cursor.blockedFuture());
                }
                case NOT_READY -> notReady = true;
            }
        }
        if (blocked != null) {
            // wake on the first input that has data (or fails), then look at all of them again
            waitFor = blocked;
            return Step.WAIT;
        }
        if (notReady) {
            return Step.RETRY;
        }
        for (MergeCursor cursor : cursors) {
            if (cursor.hasRow()) {
                heap[heapSize++] = cursor;
            }
        }
        for (int i = heapSize / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
        primed = true;
        return null;
    }

    private Step waitForInput(MergeCursor cursor)
    {
        writer.flushPartial();
        waitFor = List.of(cursor.blockedFuture());
        return Step.WAIT;
    }

    private MergeCursor.Load load(MergeCursor cursor)
    {
        MergeCursor.Load load = cursor.load();
        if (load == MergeCursor.Load.LOADED && readsMergeInputs) {
            merge.stats().rowsIn(cursor.positionCount);
        }
        return load;
    }

    private boolean precedes(MergeCursor left, MergeCursor right)
    {
        return order.precedes(left, left.position, right, right.position);
    }

    private void siftDown(int index)
    {
        MergeCursor cursor = heap[index];
        int half = heapSize >>> 1;
        while (index < half) {
            int child = 2 * index + 1;
            MergeCursor smaller = heap[child];
            int right = child + 1;
            if (right < heapSize && precedes(heap[right], smaller)) {
                child = right;
                smaller = heap[right];
            }
            if (!precedes(smaller, cursor)) {
                break;
            }
            heap[index] = smaller;
            index = child;
        }
        heap[index] = cursor;
    }

    private void removeTop()
    {
        heapSize--;
        heap[0] = heap[heapSize];
        heap[heapSize] = null;
        if (heapSize > 0) {
            siftDown(0);
        }
    }

    private void suspend(List<CompletableFuture<?>> futures)
    {
        waitFor = null;
        Wakeup wakeup = new Wakeup();
        // published before the callbacks, so a stop that comes now finds it (see ParallelMerge#stopTasks)
        pendingWakeup = wakeup;
        for (CompletableFuture<?> future : futures) {
            future.whenComplete((_, _) -> wakeup.fire());
        }
        if (merge.isStopping()) {
            wakeup.fire();
        }
    }

    /**
     * Makes a waiting task run soon (to see that the merge stops).
     */
    void wake()
    {
        Wakeup wakeup = pendingWakeup;
        if (wakeup != null) {
            wakeup.fire();
        }
    }

    private void exit(boolean finished)
    {
        exited = true;
        for (MergeCursor cursor : cursors) {
            try {
                cursor.close();
            }
            catch (Throwable t) {
                log.warn(t, "Failed to close an input of merge task %s", name);
            }
        }
        heapSize = 0;
        refill = null;
        // drop the batch being built and any group's page references
        writer = null;
        merge.taskExited(this, finished);
    }

    @Override
    public String toString()
    {
        // diagnostics only: read without synchronization
        return "%s[exited=%s, primed=%s, heap=%s, refill=%s, waiting=%s]".formatted(name, exited, primed, heapSize, refill != null, pendingWakeup != null && !pendingWakeup.fired.get());
    }

    private final class Wakeup
    {
        private final AtomicBoolean fired = new AtomicBoolean();

        void fire()
        {
            if (fired.compareAndSet(false, true)) {
                merge.schedule(MergeTask.this);
            }
        }
    }
}
