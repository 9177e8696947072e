package io.overdrive.merge.testing;

import io.airlift.slice.Slices;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Canonical Java values of the supported types, independent of the engine: Long (bigint, integer, date, short
 * timestamp micros), Double, BigDecimal (decimal), String (varchar), BigInteger (long timestamp as epoch picos).
 * All are Comparable in SQL order for the values the tests generate (no NaN, no -0.0, no surrogate characters).
 */
public final class Values
{
    private static final BigInteger PICOS_PER_MICRO = BigInteger.valueOf(1_000_000);

    private Values() {}

    public static Object read(Type type, Block block, int position)
    {
        if (block.isNull(position)) {
            return null;
        }
        return switch (type) {
            case BigintType _, IntegerType _, DateType _ -> type.getLong(block, position);
            case DoubleType _ -> type.getDouble(block, position);
            case DecimalType decimal when decimal.isShort() -> BigDecimal.valueOf(type.getLong(block, position), decimal.getScale());
            case DecimalType decimal -> new BigDecimal(((Int128) type.getObject(block, position)).toBigInteger(), decimal.getScale());
            case VarcharType _ -> type.getSlice(block, position).toStringUtf8();
            case TimestampType timestamp when timestamp.isShort() -> type.getLong(block, position);
            case TimestampType _ -> {
                LongTimestamp value = (LongTimestamp) type.getObject(block, position);
                yield BigInteger.valueOf(value.getEpochMicros()).multiply(PICOS_PER_MICRO).add(BigInteger.valueOf(value.getPicosOfMicro()));
            }
            default -> throw new IllegalArgumentException("unsupported type " + type);
        };
    }

    public static void write(Type type, BlockBuilder builder, Object value)
    {
        if (value == null) {
            builder.appendNull();
            return;
        }
        switch (type) {
            case BigintType _, IntegerType _, DateType _ -> type.writeLong(builder, (Long) value);
            case DoubleType _ -> type.writeDouble(builder, (Double) value);
            case DecimalType decimal when decimal.isShort() -> type.writeLong(builder, ((BigDecimal) value).setScale(decimal.getScale()).unscaledValue().longValueExact());
            case DecimalType decimal -> type.writeObject(builder, Int128.valueOf(((BigDecimal) value).setScale(decimal.getScale()).unscaledValue()));
            case VarcharType _ -> type.writeSlice(builder, Slices.utf8Slice((String) value));
            case TimestampType timestamp when timestamp.isShort() -> type.writeLong(builder, (Long) value);
            case TimestampType _ -> {
                BigInteger[] parts = ((BigInteger) value).divideAndRemainder(PICOS_PER_MICRO);
                long micros = parts[0].longValueExact();
                long picos = parts[1].longValueExact();
                if (picos < 0) {
                    micros--;
                    picos += 1_000_000;
                }
                type.writeObject(builder, new LongTimestamp(micros, (int) picos));
            }
            default -> throw new IllegalArgumentException("unsupported type " + type);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static int compare(Object left, Object right)
    {
        return ((Comparable) left).compareTo(right);
    }

    /**
     * Equality for result checks: decimals compare by value whatever their scale.
     */
    public static boolean same(Object left, Object right)
    {
        if (left == null || right == null) {
            return left == right;
        }
        if (left instanceof BigDecimal l && right instanceof BigDecimal r) {
            return l.compareTo(r) == 0;
        }
        return left.equals(right);
    }
}
