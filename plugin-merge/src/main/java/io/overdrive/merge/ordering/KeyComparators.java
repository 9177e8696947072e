package io.overdrive.merge.ordering;

import io.trino.spi.block.Block;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import io.trino.spi.type.VarcharType;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.function.InvocationConvention.InvocationArgumentConvention.BLOCK_POSITION_NOT_NULL;
import static io.trino.spi.function.InvocationConvention.InvocationReturnConvention.FAIL_ON_NULL;
import static io.trino.spi.function.InvocationConvention.simpleConvention;
import static java.util.Objects.requireNonNull;

/**
 * Builds {@link KeyComparator}s: direct comparisons for the common types (bigint, integer, date, short decimal, short
 * timestamp, double, varchar), and Trino's own comparison operator for every other orderable type (long decimal,
 * long timestamp, ...).
 */
public final class KeyComparators
{
    private static final MethodType COMPARISON_TYPE = MethodType.methodType(long.class, Block.class, int.class, Block.class, int.class);

    private KeyComparators() {}

    public static KeyComparator create(Type type, SortOrder sortOrder, TypeOperators typeOperators)
    {
        requireNonNull(type, "type is null");
        requireNonNull(sortOrder, "sortOrder is null");
        checkArgument(type.isOrderable(), "Type %s is not orderable and cannot be a sort key", type);
        if (isNaturalLong(type)) {
            return new LongComparator(type, sortOrder);
        }
        if (type instanceof DoubleType) {
            return new DoubleComparator(sortOrder);
        }
        if (type instanceof VarcharType) {
            return new VarcharComparator(sortOrder);
        }
        return new OperatorComparator(type, sortOrder, typeOperators);
    }

    /**
     * Types stored as a long (or int) whose signed numeric order is the SQL order.
     */
    private static boolean isNaturalLong(Type type)
    {
        return type instanceof BigintType
                || type instanceof IntegerType
                || type instanceof SmallintType
                || type instanceof TinyintType
                || type instanceof DateType
                || (type instanceof DecimalType decimal && decimal.isShort())
                || (type instanceof TimestampType timestamp && timestamp.isShort());
    }

    static final class LongComparator
            extends KeyComparator
    {
        private final Type type;

        LongComparator(Type type, SortOrder sortOrder)
        {
            super(sortOrder);
            this.type = type;
        }

        @Override
        protected int compareNotNull(Block left, int leftPosition, Block right, int rightPosition)
        {
            return Long.compare(type.getLong(left, leftPosition), type.getLong(right, rightPosition));
        }

        @Override
        public boolean hasNormalizedKey()
        {
            return true;
        }

        @Override
        public boolean isNormalizedKeyExact()
        {
            return true;
        }

        @Override
        protected long normalizeNotNull(Block block, int position)
        {
            return type.getLong(block, position);
        }
    }

    /**
     * Trino's double order: 0.0 equals -0.0, NaN sorts with the nulls (largest when nulls are last).
     */
    static final class DoubleComparator
            extends KeyComparator
    {
        private final int nanLeft;

        DoubleComparator(SortOrder sortOrder)
        {
            super(sortOrder);
            // the ascending comparison puts NaN where the nulls go; KeyComparator then applies the direction
            this.nanLeft = sortOrder.isNullsFirst() ? -1 : 1;
        }

        @Override
        protected int compareNotNull(Block left, int leftPosition, Block right, int rightPosition)
        {
            double leftValue = DoubleType.DOUBLE.getDouble(left, leftPosition);
            double rightValue = DoubleType.DOUBLE.getDouble(right, rightPosition);
            if (leftValue == rightValue) {
                return 0;
            }
            boolean leftNaN = Double.isNaN(leftValue);
            boolean rightNaN = Double.isNaN(rightValue);
            if (leftNaN | rightNaN) {
                if (leftNaN && rightNaN) {
                    return 0;
                }
                return leftNaN ? nanLeft : -nanLeft;
            }
            return leftValue < rightValue ? -1 : 1;
        }

        @Override
        public boolean hasNormalizedKey()
        {
            return true;
        }

        @Override
        public boolean isNormalizedKeyExact()
        {
            return true;
        }

        @Override
        protected long normalizeNotNull(Block block, int position)
        {
            double value = DoubleType.DOUBLE.getDouble(block, position);
            if (Double.isNaN(value)) {
                // NaN sorts with the nulls; the comparator separates the two on a tie
                return nanLeft < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            if (value == 0) {
                // -0.0 equals 0.0
                value = 0;
            }
            long bits = Double.doubleToRawLongBits(value);
            // negative doubles order backwards as raw bits: flip all but the sign bit
            return bits ^ ((bits >> 63) & Long.MAX_VALUE);
        }
    }

    /**
     * UTF-8 byte order, which is code point order, compared in place without copying the strings.
     */
    static final class VarcharComparator
            extends KeyComparator
    {
        VarcharComparator(SortOrder sortOrder)
        {
            super(sortOrder);
        }

        @Override
        protected int compareNotNull(Block left, int leftPosition, Block right, int rightPosition)
        {
            VariableWidthBlock leftBlock = (VariableWidthBlock) left.getUnderlyingValueBlock();
            VariableWidthBlock rightBlock = (VariableWidthBlock) right.getUnderlyingValueBlock();
            int leftIndex = left.getUnderlyingValuePosition(leftPosition);
            int rightIndex = right.getUnderlyingValuePosition(rightPosition);
            return leftBlock.getRawSlice().compareTo(
                    leftBlock.getRawSliceOffset(leftIndex),
                    leftBlock.getSliceLength(leftIndex),
                    rightBlock.getRawSlice(),
                    rightBlock.getRawSliceOffset(rightIndex),
                    rightBlock.getSliceLength(rightIndex));
        }

        @Override
        public boolean hasNormalizedKey()
        {
            return true;
        }

        @Override
        protected long normalizeNotNull(Block block, int position)
        {
            // the first 8 bytes, big-endian and zero-padded, as an unsigned number shifted into signed order
            VariableWidthBlock valueBlock = (VariableWidthBlock) block.getUnderlyingValueBlock();
            int index = block.getUnderlyingValuePosition(position);
            var slice = valueBlock.getRawSlice();
            int offset = valueBlock.getRawSliceOffset(index);
            int length = Math.min(8, valueBlock.getSliceLength(index));
            long prefix = 0;
            for (int i = 0; i < length; i++) {
                prefix = (prefix << 8) | (slice.getByte(offset + i) & 0xFF);
            }
            prefix <<= 8 * (8 - length);
            return prefix ^ Long.MIN_VALUE;
        }
    }

    /**
     * Any other orderable type, through the type's comparison operator.
     */
    static final class OperatorComparator
            extends KeyComparator
    {
        private final MethodHandle comparison;

        OperatorComparator(Type type, SortOrder sortOrder, TypeOperators typeOperators)
        {
            super(sortOrder);
            var convention = simpleConvention(FAIL_ON_NULL, BLOCK_POSITION_NOT_NULL, BLOCK_POSITION_NOT_NULL);
            MethodHandle handle = sortOrder.isNullsFirst()
                    ? typeOperators.getComparisonUnorderedFirstOperator(type, convention)
                    : typeOperators.getComparisonUnorderedLastOperator(type, convention);
            this.comparison = handle.asType(COMPARISON_TYPE);
        }

        @Override
        protected int compareNotNull(Block left, int leftPosition, Block right, int rightPosition)
        {
            try {
                long result = (long) comparison.invokeExact(left, leftPosition, right, rightPosition);
                return Long.signum(result);
            }
            catch (Throwable t) {
                if (t instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (t instanceof Error error) {
                    throw error;
                }
                throw new RuntimeException(t);
            }
        }
    }
}
