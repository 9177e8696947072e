package io.overdrive.merge.engine;

import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.type.Type;

import java.util.List;

/**
 * Plain ordered merge: records each run of rows that a cursor contributes; the batch is copied column by column.
 */
final class PlainRowWriter
        extends RowWriter
{
    PlainRowWriter(CursorOrder order, List<Type> types, PageQueue output, int batchSize, long limit, MergeStats stats, boolean countsOutput)
    {
        super(order, types, output, batchSize, limit, stats, countsOutput, PageGatherer.identity(types));
    }

    @Override
    int consume(MergeCursor top, MergeCursor next, int maxRows)
    {
        int start = top.position;
        long cap = Math.min(Math.min(maxRows, remainingBatchCapacity()), remainingLimit());
        int stop = (int) Math.min(top.positionCount, start + cap);
        stoppedAtNext = false;
        if (stop <= start) {
            return 0;
        }
        int end;
        if (next == null) {
            end = stop;
        }
        else {
            // the first row is the smallest of all (heap invariant); extend the run while rows still precede next
            end = order.precedingRunEnd(top, start + 1, stop, next);
            stoppedAtNext = end < stop;
        }
        int length = end - start;
        gatherer.add(top.blocks, start, length);
        rowsWritten += length;
        top.position = end;
        flushIfFull();
        return length;
    }
}
