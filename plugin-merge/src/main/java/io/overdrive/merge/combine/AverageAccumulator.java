package io.overdrive.merge.combine;

import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Type;

import java.math.BigDecimal;
import java.math.RoundingMode;

import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * avg as a (sum, count) state; the final value is sum / count: a double for integer and double inputs, a decimal of
 * the input's scale rounded half up for decimals, null when no value was counted.
 */
final class AverageAccumulator
        implements Accumulator
{
    private final SumAccumulator sum;
    private final CountAccumulator count;
    private final Type finalType;

    AverageAccumulator(SumAccumulator sum, CountAccumulator count, Type finalType)
    {
        this.sum = requireNonNull(sum, "sum is null");
        this.count = requireNonNull(count, "count is null");
        this.finalType = requireNonNull(finalType, "finalType is null");
    }

    @Override
    public void reset()
    {
        sum.reset();
        count.reset();
    }

    @Override
    public void add(Block[] page, int from, int to)
    {
        sum.add(page, from, to);
        count.add(page, from, to);
    }

    @Override
    public void writeState(PageBuilder output, int channel)
    {
        sum.writeState(output, channel);
        count.writeState(output, channel + 1);
    }

    @Override
    public void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
    {
        if (finalValues) {
            Accumulator.super.writeSingleRows(page, from, to, output, channel, true);
            return;
        }
        sum.writeSingleRows(page, from, to, output, channel, false);
        count.writeSingleRows(page, from, to, output, channel + 1, false);
    }

    @Override
    public void writeFinal(PageBuilder output, int channel)
    {
        BlockBuilder builder = output.getBlockBuilder(channel);
        long rows = count.count();
        if (rows == 0 || !sum.hasValue) {
            builder.appendNull();
            return;
        }
        switch (sum) {
            case SumAccumulator.LongSum longSum -> DOUBLE.writeDouble(builder, (double) longSum.sum() / rows);
            case SumAccumulator.DoubleSum doubleSum -> DOUBLE.writeDouble(builder, doubleSum.sum() / rows);
            case SumAccumulator.DecimalSum decimalSum -> {
                DecimalType type = (DecimalType) finalType;
                BigDecimal average = decimalSum.toBigDecimal().divide(BigDecimal.valueOf(rows), type.getScale(), RoundingMode.HALF_UP);
                if (type.isShort()) {
                    type.writeLong(builder, average.unscaledValue().longValueExact());
                }
                else {
                    type.writeObject(builder, Int128.valueOf(average.unscaledValue()));
                }
            }
        }
    }
}
