package io.overdrive.merge.combine;

import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;

/**
 * The running value of one aggregation for the group being folded. A merge task owns its accumulators and reuses
 * them for every group.
 */
public interface Accumulator
{
    /** In {@link #singleRowSources}: the output of a one-row group is the constant 1 (a bigint count). */
    int ONE = -1;

    /** Starts a new group. */
    void reset();

    /** Folds positions {@code [from, to)} of a page (all channels), all of which belong to the current group. */
    void add(Block[] page, int from, int to);

    /** Appends the partial state (one or two columns) to {@code output} starting at {@code channel}. */
    void writeState(PageBuilder output, int channel);

    /** Appends the final value to column {@code channel} of {@code output}. */
    void writeFinal(PageBuilder output, int channel);

    /**
     * For each output column (state or final), where a one-row group's value comes from: the input channel holding it
     * unchanged (same type, null stays null) or {@link #ONE}; null if it has to be computed. Lets the merge copy
     * one-row groups column by column.
     */
    default int[] singleRowSources(boolean finalValues)
    {
        return null;
    }

    /**
     * Appends the states (or final values) of one-row groups: one output value per position in {@code [from, to)}.
     * Clobbers the current group. Implementations copy ranges where the value is the input value.
     */
    default void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
    {
        for (int position = from; position < to; position++) {
            reset();
            add(page, position, position + 1);
            if (finalValues) {
                writeFinal(output, channel);
            }
            else {
                writeState(output, channel);
            }
        }
    }
}
