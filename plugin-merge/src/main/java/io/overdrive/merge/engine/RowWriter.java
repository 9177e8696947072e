package io.overdrive.merge.engine;

import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * The output side of a merge task: takes runs of rows from the cursor at the top of the merge heap, builds batches
 * of {@code batchSize} rows and hands them to the task's output queue. Subclasses copy rows (plain merge) or fold
 * rows with equal keys (combine). Rows that are input rows unchanged go to a {@link PageGatherer} (when there is
 * one) and are copied column by column when the batch is built; other rows are written to the page builder.
 */
abstract sealed class RowWriter
        permits PlainRowWriter, CombiningRowWriter
{
    protected final CursorOrder order;
    protected final PageBuilder pageBuilder;
    // null when every row is written to the page builder
    protected final PageGatherer gatherer;
    private final PageQueue output;
    private final int batchSize;
    private final long limit;
    private final MergeStats stats;
    private final boolean countsOutput;
    protected long rowsWritten;
    private CompletableFuture<?> paused;
    // set by consume: the run ended because the top cursor's next row no longer precedes the next cursor's row
    protected boolean stoppedAtNext;

    /**
     * {@code gatherer}: where rows copied from inputs go, or null to write every row to the page builder.
     */
    protected RowWriter(CursorOrder order, List<Type> outputTypes, PageQueue output, int batchSize, long limit, MergeStats stats, boolean countsOutput, PageGatherer gatherer)
    {
        this.order = requireNonNull(order, "order is null");
        this.pageBuilder = new PageBuilder(gatherer != null ? 16 : batchSize, outputTypes);
        this.gatherer = gatherer;
        this.output = requireNonNull(output, "output is null");
        this.batchSize = batchSize;
        this.limit = limit;
        this.stats = requireNonNull(stats, "stats is null");
        this.countsOutput = countsOutput;
    }

    /**
     * Consumes rows of {@code top}, the cursor with the smallest row, while they precede the row of {@code next} (the
     * second smallest cursor, null if there is none), at most {@code maxRows}. Returns the number of rows consumed;
     * {@link #stoppedAtNext()} then says whether {@code top}'s current row is known to follow {@code next}'s.
     */
    abstract int consume(MergeCursor top, MergeCursor next, int maxRows);

    final boolean stoppedAtNext()
    {
        return stoppedAtNext;
    }

    /**
     * End of all inputs: write what is pending and finish the output.
     */
    void finish()
    {
        flush();
        output.finish();
    }

    /**
     * The task is about to wait for input: hand over the rows built so far so the next layer can progress.
     */
    void flushPartial()
    {
        flush();
    }

    final boolean isLimitReached()
    {
        return rowsWritten >= limit;
    }

    final long remainingLimit()
    {
        return limit - rowsWritten;
    }

    /**
     * Pending while the output queue is full and the task should pause; null otherwise.
     */
    final CompletableFuture<?> pausedOutput()
    {
        if (paused != null && paused.isDone()) {
            paused = null;
        }
        return paused;
    }

    final int remainingBatchCapacity()
    {
        return batchSize - batchRows();
    }

    private int batchRows()
    {
        return gatherer == null ? pageBuilder.getPositionCount() : gatherer.rows();
    }

    /**
     * Records a row just written to the page builder (before it is declared) in the batch's order.
     */
    protected final void rowWritten()
    {
        if (gatherer != null) {
            gatherer.addWritten(pageBuilder.getPositionCount());
        }
    }

    /**
     * Called after rows were added: hands a full batch to the output.
     */
    protected final void flushIfFull()
    {
        if (batchRows() >= batchSize || pageBuilder.isFull() || (gatherer != null && gatherer.isFull())) {
            flush();
        }
    }

    private void flush()
    {
        Page page;
        if (gatherer == null) {
            if (pageBuilder.isEmpty()) {
                return;
            }
            page = pageBuilder.build();
            pageBuilder.reset();
        }
        else {
            if (gatherer.isEmpty()) {
                return;
            }
            Page written = null;
            if (!pageBuilder.isEmpty()) {
                written = pageBuilder.build();
                pageBuilder.reset();
            }
            page = gatherer.build(written);
        }
        if (countsOutput) {
            stats.rowsOut(page.getPositionCount());
        }
        CompletableFuture<?> future = output.offer(page);
        if (!future.isDone()) {
            paused = future;
        }
    }

    /**
     * Whether {@code top}'s row at {@code position} goes before {@code next}'s current row (see
     * {@link CursorOrder#precedes}).
     */
    protected final boolean precedes(MergeCursor top, int position, MergeCursor next)
    {
        return order.precedes(top, position, next, next.position);
    }
}
