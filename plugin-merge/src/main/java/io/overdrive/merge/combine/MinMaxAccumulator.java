package io.overdrive.merge.combine;

import io.overdrive.merge.ordering.KeyComparator;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ValueBlock;

import static java.util.Objects.requireNonNull;

/**
 * min/max of non-null values (null when there is none). Keeps a reference to the winning block position instead of
 * copying values: pages are immutable and stay alive until the group is written.
 */
final class MinMaxAccumulator
        implements Accumulator
{
    private final int channel;
    private final KeyComparator comparator;
    private final boolean max;
    private Block best;
    private int bestPosition;

    MinMaxAccumulator(int channel, KeyComparator comparator, boolean max)
    {
        this.channel = channel;
        this.comparator = requireNonNull(comparator, "comparator is null");
        this.max = max;
    }

    @Override
    public void reset()
    {
        best = null;
    }

    @Override
    public void add(Block[] page, int from, int to)
    {
        Block block = page[channel];
        for (int position = from; position < to; position++) {
            if (block.isNull(position)) {
                continue;
            }
            if (best == null) {
                best = block;
                bestPosition = position;
                continue;
            }
            int result = comparator.compare(block, position, best, bestPosition);
            if (max ? result > 0 : result < 0) {
                best = block;
                bestPosition = position;
            }
        }
    }

    @Override
    public void writeState(PageBuilder output, int channel)
    {
        BlockBuilder builder = output.getBlockBuilder(channel);
        if (best == null) {
            builder.appendNull();
        }
        else {
            builder.append(best.getUnderlyingValueBlock(), best.getUnderlyingValuePosition(bestPosition));
        }
    }

    @Override
    public void writeFinal(PageBuilder output, int channel)
    {
        writeState(output, channel);
    }

    @Override
    public int[] singleRowSources(boolean finalValues)
    {
        return new int[] {channel};
    }

    @Override
    public void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
    {
        // the min/max of one value is the value (null stays null)
        if (page[this.channel] instanceof ValueBlock values) {
            output.getBlockBuilder(channel).appendRange(values, from, to - from);
            return;
        }
        Accumulator.super.writeSingleRows(page, from, to, output, channel, finalValues);
    }
}
