package io.overdrive.merge.combine;

import io.trino.spi.PageBuilder;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Int128Math;
import io.trino.spi.type.Type;

import java.math.BigDecimal;
import java.math.BigInteger;

import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * Null-aware sums (the sum of no non-null value is null), one subclass per value representation.
 */
abstract sealed class SumAccumulator
        implements Accumulator
{
    protected final int channel;
    protected boolean hasValue;

    SumAccumulator(int channel)
    {
        this.channel = channel;
    }

    @Override
    public final void reset()
    {
        hasValue = false;
        clear();
    }

    protected abstract void clear();

    /** The sum as a number for the average; only called when {@link #hasValue}. */
    abstract BigDecimal toBigDecimal();

    /** The final value: the state, unless a subclass says otherwise. */
    @Override
    public void writeFinal(PageBuilder output, int channel)
    {
        writeState(output, channel);
    }

    /**
     * {@code bigintResult}: the sum's states are decimal(38, 0) and its final value is a bigint (sums of integers
     * carried without overflow); the final value fails as Trino's sum(bigint) does when it is out of bigint's range.
     */
    static SumAccumulator create(SumKind kind, Type inputType, int channel, boolean bigintResult)
    {
        return switch (kind) {
            case LONG -> new LongSum(inputType, channel);
            case DOUBLE -> new DoubleSum(channel);
            case DECIMAL -> new DecimalSum((DecimalType) inputType, channel, bigintResult);
        };
    }

    static final class LongSum
            extends SumAccumulator
    {
        private final Type inputType;
        private long sum;

        LongSum(Type inputType, int channel)
        {
            super(channel);
            this.inputType = requireNonNull(inputType, "inputType is null");
        }

        long sum()
        {
            return sum;
        }

        @Override
        protected void clear()
        {
            sum = 0;
        }

        @Override
        public void add(Block[] page, int from, int to)
        {
            Block block = page[channel];
            long total = sum;
            boolean any = hasValue;
            try {
                for (int position = from; position < to; position++) {
                    if (!block.isNull(position)) {
                        total = Math.addExact(total, inputType.getLong(block, position));
                        any = true;
                    }
                }
            }
            catch (ArithmeticException e) {
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "bigint addition overflow in sum", e);
            }
            sum = total;
            hasValue = any;
        }

        @Override
        BigDecimal toBigDecimal()
        {
            return BigDecimal.valueOf(sum);
        }

        @Override
        public int[] singleRowSources(boolean finalValues)
        {
            return inputType == BIGINT ? new int[] {channel} : null;
        }

        @Override
        public void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
        {
            Block block = page[this.channel];
            BlockBuilder builder = output.getBlockBuilder(channel);
            if (inputType == BIGINT && block instanceof ValueBlock values) {
                // the sum of one bigint is itself (null stays null)
                builder.appendRange(values, from, to - from);
                return;
            }
            for (int position = from; position < to; position++) {
                if (block.isNull(position)) {
                    builder.appendNull();
                }
                else {
                    BIGINT.writeLong(builder, inputType.getLong(block, position));
                }
            }
        }

        @Override
        public void writeState(PageBuilder output, int channel)
        {
            BlockBuilder builder = output.getBlockBuilder(channel);
            if (hasValue) {
                BIGINT.writeLong(builder, sum);
            }
            else {
                builder.appendNull();
            }
        }
    }

    static final class DoubleSum
            extends SumAccumulator
    {
        private double sum;

        DoubleSum(int channel)
        {
            super(channel);
        }

        double sum()
        {
            return sum;
        }

        @Override
        protected void clear()
        {
            sum = 0;
        }

        @Override
        public void add(Block[] page, int from, int to)
        {
            Block block = page[channel];
            double total = sum;
            boolean any = hasValue;
            for (int position = from; position < to; position++) {
                if (!block.isNull(position)) {
                    total += DOUBLE.getDouble(block, position);
                    any = true;
                }
            }
            sum = total;
            hasValue = any;
        }

        @Override
        BigDecimal toBigDecimal()
        {
            return new BigDecimal(sum);
        }

        @Override
        public int[] singleRowSources(boolean finalValues)
        {
            return new int[] {channel};
        }

        @Override
        public void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
        {
            if (page[this.channel] instanceof ValueBlock values) {
                output.getBlockBuilder(channel).appendRange(values, from, to - from);
                return;
            }
            super.writeSingleRows(page, from, to, output, channel, finalValues);
        }

        @Override
        public void writeState(PageBuilder output, int channel)
        {
            BlockBuilder builder = output.getBlockBuilder(channel);
            if (hasValue) {
                DOUBLE.writeDouble(builder, sum);
            }
            else {
                builder.appendNull();
            }
        }
    }

    /**
     * Sums short or long decimals exactly, as Trino's sum(decimal) and avg(decimal) do: in 128 bits plus a count of
     * 128-bit overflows, so that an intermediate sum beyond 38 digits is no error; only a final sum beyond 38 digits
     * is. The state type is decimal(38, s).
     */
    static final class DecimalSum
            extends SumAccumulator
    {
        private static final BigInteger TWO_TO_128 = BigInteger.ONE.shiftLeft(128);
        private static final BigInteger MIN_BIGINT = BigInteger.valueOf(Long.MIN_VALUE);
        private static final BigInteger MAX_BIGINT = BigInteger.valueOf(Long.MAX_VALUE);

        private final DecimalType inputType;
        private final DecimalType stateType;
        private final boolean bigintResult;
        private final long[] sum = new long[2];
        // how many times the 128-bit sum wrapped around (negative: downwards)
        private long overflows;

        DecimalSum(DecimalType inputType, int channel, boolean bigintResult)
        {
            super(channel);
            this.inputType = requireNonNull(inputType, "inputType is null");
            this.stateType = DecimalType.createDecimalType(Decimals.MAX_PRECISION, inputType.getScale());
            this.bigintResult = bigintResult;
        }

        @Override
        protected void clear()
        {
            sum[0] = 0;
            sum[1] = 0;
            overflows = 0;
        }

        @Override
        public void add(Block[] page, int from, int to)
        {
            Block block = page[channel];
            for (int position = from; position < to; position++) {
                if (block.isNull(position)) {
                    continue;
                }
                long high;
                long low;
                if (inputType.isShort()) {
                    low = inputType.getLong(block, position);
                    high = low >> 63;
                }
                else {
                    Int128 value = (Int128) inputType.getObject(block, position);
                    high = value.getHigh();
                    low = value.getLow();
                }
                overflows += Int128Math.addWithOverflow(sum[0], sum[1], high, low, sum, 0);
                hasValue = true;
            }
        }

        Int128 sum()
        {
            return Int128.valueOf(sum[0], sum[1]);
        }

        int scale()
        {
            return inputType.getScale();
        }

        /** The exact sum, unscaled. */
        BigInteger unscaledSum()
        {
            BigInteger value = sum().toBigInteger();
            return overflows == 0 ? value : value.add(TWO_TO_128.multiply(BigInteger.valueOf(overflows)));
        }

        @Override
        BigDecimal toBigDecimal()
        {
            return new BigDecimal(unscaledSum(), inputType.getScale());
        }

        @Override
        public int[] singleRowSources(boolean finalValues)
        {
            if (finalValues && bigintResult) {
                return null;
            }
            return inputType.equals(stateType) ? new int[] {channel} : null;
        }

        @Override
        public void writeSingleRows(Block[] page, int from, int to, PageBuilder output, int channel, boolean finalValues)
        {
            if (!(finalValues && bigintResult) && inputType.equals(stateType) && page[this.channel] instanceof ValueBlock values) {
                output.getBlockBuilder(channel).appendRange(values, from, to - from);
                return;
            }
            super.writeSingleRows(page, from, to, output, channel, finalValues);
        }

        @Override
        public void writeState(PageBuilder output, int channel)
        {
            BlockBuilder builder = output.getBlockBuilder(channel);
            if (!hasValue) {
                builder.appendNull();
                return;
            }
            if (overflows != 0) {
                // a decimal(38, s) state cannot carry it; a shard's sum of at most 2^63 values of up to 19 digits
                // cannot get here, so only sums of over 2^63 values can
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow: a partial sum exceeds 128 bits");
            }
            stateType.writeObject(builder, sum());
        }

        @Override
        public void writeFinal(PageBuilder output, int channel)
        {
            BlockBuilder builder = output.getBlockBuilder(channel);
            if (!hasValue) {
                builder.appendNull();
                return;
            }
            if (bigintResult) {
                BigInteger value = unscaledSum();
                if (value.compareTo(MIN_BIGINT) < 0 || value.compareTo(MAX_BIGINT) > 0) {
                    throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "bigint addition overflow in sum");
                }
                BIGINT.writeLong(builder, value.longValue());
                return;
            }
            if (overflows != 0 || Decimals.overflows(sum[0], sum[1])) {
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow");
            }
            stateType.writeObject(builder, sum());
        }
    }
}
