package io.overdrive.merge.engine;

import io.overdrive.merge.combine.Accumulator;
import io.overdrive.merge.combine.CombinePlan;
import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.block.Block;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.type.Type;

import java.util.List;

/**
 * Merge with combine: rows arrive in key order, so a group is complete when a row with a different key shows up.
 * Runs of equal keys from one input are folded as a range; the group's key is a reference to its first row. Rows that
 * are groups of their own (little combining) are written in bulk, mostly as range copies.
 */
final class CombiningRowWriter
        extends RowWriter
{
    private final Accumulator[] accumulators;
    private final int[] accumulatorChannels;
    private final boolean finalOutput;
    private final int keyCount;
    private final boolean uniqueKeysPerInput;

    private Block[] groupKeys;
    private int groupPosition;
    private long groupNormalizedKey;

    /**
     * {@code uniqueKeysPerInput}: every key occurs at most once per input (layer-1 output), so equal neighbours need
     * not be looked for.
     */
    CombiningRowWriter(CursorOrder order, CombinePlan plan, int[] keyChannels, List<Type> outputTypes, PageQueue output, int batchSize, long limit, MergeStats stats, boolean countsOutput, boolean uniqueKeysPerInput)
    {
        super(order, outputTypes, output, batchSize, limit, stats, countsOutput, singleRowGatherer(plan, keyChannels, outputTypes, uniqueKeysPerInput));
        this.uniqueKeysPerInput = uniqueKeysPerInput;
        this.accumulators = plan.createAccumulators();
        this.finalOutput = plan.isFinalOutput();
        this.keyCount = order.keyCount();
        this.accumulatorChannels = new int[accumulators.length];
        int channel = keyCount;
        for (int i = 0; i < accumulators.length; i++) {
            accumulatorChannels[i] = channel;
            channel += plan.aggregations().get(i).outputTypes(finalOutput).size();
        }
    }

    /**
     * A gatherer when every output column of a one-row group is an input column or the constant 1, else null.
     */
    private static PageGatherer singleRowGatherer(CombinePlan plan, int[] keyChannels, List<Type> outputTypes, boolean uniqueKeysPerInput)
    {
        if (uniqueKeysPerInput && plan.writesSingleRowsUnchanged()) {
            // layer-1 output: a one-row group is written as it is
            return PageGatherer.identity(outputTypes);
        }
        int[] sources = new int[outputTypes.size()];
        int channel = 0;
        for (int keyChannel : keyChannels) {
            sources[channel++] = keyChannel;
        }
        for (Accumulator accumulator : plan.createAccumulators()) {
            int[] accumulatorSources = accumulator.singleRowSources(plan.isFinalOutput());
            if (accumulatorSources == null) {
                return null;
            }
            for (int source : accumulatorSources) {
                sources[channel++] = source == Accumulator.ONE ? PageGatherer.ONE : source;
            }
        }
        return new PageGatherer(outputTypes, sources);
    }

    @Override
    int consume(MergeCursor top, MergeCursor next, int maxRows)
    {
        int start = top.position;
        int stop = Math.min(top.positionCount, start + maxRows);
        stoppedAtNext = false;
        int position = start;
        // whether the row at position is known to differ from the open group (it ended a run of equal rows)
        boolean differs = false;
        while (position < stop) {
            if (!differs && groupKeys != null && order.compare(groupKeys, groupPosition, groupNormalizedKey, top, position) == 0) {
                // equal to the open group: fold the run of equal rows (each equal to the one before)
                int end = position + 1;
                while (end < stop && order.compare(top, end - 1, top, end) == 0) {
                    end++;
                }
                for (Accumulator accumulator : accumulators) {
                    accumulator.add(top.blocks, position, end);
                }
                position = end;
                differs = true;
                continue;
            }
            differs = false;
            // a new key: only the first row of the turn is known to be the smallest of all
            if (position > start && next != null && !precedes(top, position, next)) {
                stoppedAtNext = true;
                break;
            }
            if (groupKeys != null) {
                writeGroup();
                if (isLimitReached() || pausedOutput() != null) {
                    break;
                }
            }
            // with little combining most rows are groups of one: write runs of them in bulk
            int end = singleRowGroupsEnd(top, position, stop, next);
            if (end > position) {
                writeSingleRowGroups(top, position, end);
                position = end;
                if (isLimitReached() || pausedOutput() != null) {
                    break;
                }
                continue;
            }
            groupKeys = top.keys;
            groupPosition = position;
            groupNormalizedKey = order.isNormalized() ? top.normalized[position] : 0;
            for (Accumulator accumulator : accumulators) {
                accumulator.reset();
            }
        }
        top.position = position;
        return position - start;
    }

    /**
     * The end of the rows from {@code position} (which has no open group before it) that are complete one-row groups:
     * each differs from the row after it in this cursor and comes strictly before {@code next}'s row, so no other
     * cursor holds its key. The last row before {@code stop} is left to the group path (the page or the slice may end
     * inside its group). Capped by the batch and the limit.
     */
    private int singleRowGroupsEnd(MergeCursor top, int position, int stop, MergeCursor next)
    {
        long cap = Math.min(remainingBatchCapacity(), remainingLimit());
        int end = (int) Math.min(uniqueKeysPerInput ? stop : stop - 1, position + cap);
        return order.distinctRunEnd(top, position, end, next, !uniqueKeysPerInput);
    }

    private void writeSingleRowGroups(MergeCursor top, int from, int to)
    {
        int length = to - from;
        if (gatherer != null) {
            gatherer.add(top.blocks, from, length);
            rowsWritten += length;
            flushIfFull();
            return;
        }
        for (int i = 0; i < keyCount; i++) {
            pageBuilder.getBlockBuilder(i).appendRange((ValueBlock) top.keys[i], from, length);
        }
        for (int i = 0; i < accumulators.length; i++) {
            accumulators[i].writeSingleRows(top.blocks, from, to, pageBuilder, accumulatorChannels[i], finalOutput);
        }
        pageBuilder.declarePositions(length);
        rowsWritten += length;
        flushIfFull();
    }

    @Override
    void finish()
    {
        if (groupKeys != null && !isLimitReached()) {
            writeGroup();
        }
        super.finish();
    }

    private void writeGroup()
    {
        for (int i = 0; i < keyCount; i++) {
            pageBuilder.getBlockBuilder(i).append((ValueBlock) groupKeys[i], groupPosition);
        }
        for (int i = 0; i < accumulators.length; i++) {
            if (finalOutput) {
                accumulators[i].writeFinal(pageBuilder, accumulatorChannels[i]);
            }
            else {
                accumulators[i].writeState(pageBuilder, accumulatorChannels[i]);
            }
        }
        rowWritten();
        pageBuilder.declarePosition();
        groupKeys = null;
        rowsWritten++;
        flushIfFull();
    }
}
