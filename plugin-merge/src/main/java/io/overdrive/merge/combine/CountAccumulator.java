package io.overdrive.merge.combine;

import io.trino.spi.PageBuilder;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ValueBlock;

import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;

/**
 * count(*), count(x) (non-null values) and the fold of count states (their sum; a null state counts as 0).
 */
final class CountAccumulator
        implements Accumulator
{
    enum Mode { ROWS, NON_NULL, STATES }

    private final Mode mode;
    private final int channel;
    private long count;

    CountAccumulator(Mode mode, int channel)
    {
        this.mode = mode;
        this.channel = channel;
    }

    long count()
    {
        return count;
    }

    @Override
    public void reset()
    {
        count = 0;
    }

    @Override
    public void add(Block[] page, int from, int to)
    {
        switch (mode) {
            case ROWS -> count += to - from;
            case NON_NULL -> {
                Block block = page[channel];
                if (!block.mayHaveNull()) {
                    count += to - from;
                    return;
                }
                for (int position = from; position < to; position++) {
                    if (!block.isNull(position)) {
                        count++;
                    }
                }
            }
            case STATES -> {
                Block block = page[channel];
                long sum = count;
                try {
                    for (int position = from; position < to; position++) {
                        if (!block.isNull(position)) {
                            sum = Math.addExact(sum, BIGINT.getLong(block, position));
                        }
                    }
                }
                catch (ArithmeticException e) {
                    // as sum does: the query fails with Trino's error for a value out of range, not an internal error
                    throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "bigint addition overflow in count", e);
                }
                count = sum;
            }
        }
    }

    @Override
    public int[] singleRowSources(boolean finalValues)
    {
        // count(x) depends on nulls and a null count state counts as 0: computed
        return mode == Mode.ROWS ? new int[] {ONE} : null;
    }

    @Override
    public void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
    {
        BlockBuilder builder = output.getBlockBuilder(channel);
        switch (mode) {
            case ROWS -> {
                for (int position = from; position < to; position++) {
                    BIGINT.writeLong(builder, 1);
                }
            }
            case NON_NULL -> {
                Block block = page[this.channel];
                for (int position = from; position < to; position++) {
                    BIGINT.writeLong(builder, block.isNull(position) ? 0 : 1);
                }
            }
            case STATES -> {
                Block block = page[this.channel];
                if (!block.mayHaveNull() && block instanceof ValueBlock values) {
                    builder.appendRange(values, from, to - from);
                    return;
                }
                for (int position = from; position < to; position++) {
                    BIGINT.writeLong(builder, block.isNull(position) ? 0 : BIGINT.getLong(block, position));
                }
            }
        }
    }

    @Override
    public void writeState(PageBuilder output, int channel)
    {
        BIGINT.writeLong(output.getBlockBuilder(channel), count);
    }

    @Override
    public void writeFinal(PageBuilder output, int channel)
    {
        BIGINT.writeLong(output.getBlockBuilder(channel), count);
    }
}
