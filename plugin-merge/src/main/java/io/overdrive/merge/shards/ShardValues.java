package io.overdrive.merge.shards;

import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;

import static io.airlift.slice.SliceUtf8.countCodePoints;
import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.Chars.truncateToLengthAndTrimSpaces;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static java.time.temporal.ChronoField.NANO_OF_SECOND;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The column types a shards catalog serves, how their values arrive over Trino's client protocol (JSON) and how they
 * are written back into SQL literals for the shards. Columns of other types are not exposed.
 */
final class ShardValues
{
    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .toFormatter();

    private ShardValues() {}

    static boolean isSupported(Type type)
    {
        return type instanceof BigintType || type instanceof IntegerType || type instanceof SmallintType || type instanceof TinyintType
                || type instanceof DoubleType || type instanceof RealType || type instanceof BooleanType
                || type instanceof VarcharType || type instanceof CharType || type instanceof DecimalType || type instanceof DateType
                || (type instanceof TimestampType timestamp && timestamp.isShort());
    }

    /**
     * Appends one value as the client decoded it (numbers as Java numbers, the rest as strings).
     */
    static void append(Type type, BlockBuilder out, Object value)
    {
        if (value == null) {
            out.appendNull();
            return;
        }
        switch (type) {
            case BigintType _, IntegerType _, SmallintType _, TinyintType _ -> type.writeLong(out, ((Number) value).longValue());
            case DoubleType _ -> DOUBLE.writeDouble(out, value instanceof Number number ? number.doubleValue() : Double.parseDouble(value.toString()));
            case RealType _ -> REAL.writeFloat(out, value instanceof Number number ? number.floatValue() : Float.parseFloat(value.toString()));
            case BooleanType _ -> type.writeBoolean(out, (Boolean) value);
            case VarcharType _ -> type.writeSlice(out, utf8Slice(value.toString()));
            case CharType charType -> type.writeSlice(out, truncateToLengthAndTrimSpaces(utf8Slice(value.toString()), charType));
            case DecimalType decimal -> {
                BigDecimal parsed = new BigDecimal(value.toString());
                if (decimal.isShort()) {
                    type.writeLong(out, Decimals.encodeShortScaledValue(parsed, decimal.getScale()));
                }
                else {
                    type.writeObject(out, Decimals.encodeScaledValue(parsed, decimal.getScale()));
                }
            }
            case DateType _ -> DATE.writeLong(out, LocalDate.parse(value.toString()).toEpochDay());
            case TimestampType _ -> {
                LocalDateTime time = LocalDateTime.parse(value.toString(), TIMESTAMP);
                long micros = SECONDS.toMicros(time.toEpochSecond(ZoneOffset.UTC)) + time.getNano() / 1_000;
                type.writeLong(out, micros);
            }
            default -> throw new IllegalArgumentException("Unsupported type: " + type);
        }
    }

    /**
     * A value of the planning queries' answers (varchar, double, bigint) as a Java object; null for SQL null.
     */
    static Object read(Type type, Block block, int position)
    {
        if (block.isNull(position)) {
            return null;
        }
        return switch (type) {
            case VarcharType varchar -> varchar.getSlice(block, position).toStringUtf8();
            case DoubleType _ -> DOUBLE.getDouble(block, position);
            case BigintType _ -> BIGINT.getLong(block, position);
            default -> throw new IllegalArgumentException("Unsupported type: " + type);
        };
    }

    /**
     * A SQL literal of {@code type} for a value in Trino's native representation (as in a {@code TupleDomain}).
     */
    static String literal(Type type, Object value)
    {
        String text = switch (type) {
            case BigintType _, IntegerType _, SmallintType _, TinyintType _ -> Long.toString((Long) value);
            case DoubleType _ -> Double.toString((Double) value);
            case RealType _ -> Float.toString(Float.intBitsToFloat(((Long) value).intValue()));
            case BooleanType _ -> value.toString();
            case VarcharType _, CharType _ -> ((Slice) value).toStringUtf8();
            case DecimalType decimal -> decimal.isShort()
                    ? Decimals.toString((Long) value, decimal.getScale())
                    : Decimals.toString((Int128) value, decimal.getScale());
            case DateType _ -> LocalDate.ofEpochDay((Long) value).toString();
            case TimestampType _ -> {
                long micros = (Long) value;
                LocalDateTime time = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L) * 1_000, ZoneOffset.UTC);
                yield time.format(TIMESTAMP);
            }
            default -> throw new IllegalArgumentException("Unsupported type: " + type);
        };
        // CAST from a string literal is exact for every supported type (NaN and Infinity included), as long as the
        // type holds the value: a varchar(n) or char(n) domain may hold longer strings (a comparison with a longer
        // constant), which a CAST to the column's type would truncate
        return "CAST(%s AS %s)".formatted(stringLiteral(text), literalType(type, value).getDisplayName());
    }

    private static Type literalType(Type type, Object value)
    {
        return switch (type) {
            case VarcharType varchar when !varchar.isUnbounded() && countCodePoints((Slice) value) > varchar.getBoundedLength() -> VarcharType.VARCHAR;
            case CharType charType when countCodePoints((Slice) value) > charType.getLength() -> CharType.createCharType(countCodePoints((Slice) value));
            default -> type;
        };
    }

    static String stringLiteral(String text)
    {
        return "'" + text.replace("'", "''") + "'";
    }

    static String quoted(String identifier)
    {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
