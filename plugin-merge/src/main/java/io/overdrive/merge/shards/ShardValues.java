package io.overdrive.merge.shards;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.client.Row;
import io.trino.client.RowField;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.MapBlockBuilder;
import io.trino.spi.block.RowBlockBuilder;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SliceUtf8.countCodePoints;
import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.Chars.truncateToLengthAndTrimSpaces;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.UuidType.trinoUuidToJavaUuid;

/**
 * The column types a shards catalog reads, how each value travels over Trino's client protocol (JSON) and is decoded
 * back into Trino's representation, and how values are written into SQL literals for the shards.
 * <p>
 * Most values travel as the shard's JSON encoding of the column. Two forms are rewritten by the SQL the shard runs
 * ({@link #wire}) so that they decode exactly: a map travels as its entries ({@code map_entries}: keys of any type, in
 * the map's order), and a {@code timestamp with time zone} as {@code ROW(the value at UTC, the value)}: the instant
 * from a text without daylight-saving ambiguity, the zone from the value's own text.
 */
final class ShardValues
{
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final String LAMBDA_VARIABLE = "overdrive_value_";
    private static final long[] POWERS_OF_TEN = {
            1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
            10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L};

    private ShardValues() {}

    /**
     * Whether values of {@code type} can be read from the shards (a column of another type is served, but reading it
     * fails, naming the column and its type).
     */
    static boolean isReadable(Type type)
    {
        return switch (type) {
            case BigintType _, IntegerType _, SmallintType _, TinyintType _, DoubleType _, RealType _, BooleanType _,
                 VarcharType _, CharType _, DecimalType _, DateType _, TimestampType _, TimestampWithTimeZoneType _,
                 VarbinaryType _, UuidType _, TimeType _ -> true;
            case ArrayType array -> isReadable(array.getElementType());
            case MapType map -> isReadable(map.getKeyType()) && isReadable(map.getValueType());
            case RowType row -> row.getFieldTypes().stream().allMatch(ShardValues::isReadable);
            default -> isJson(type);
        };
    }

    /**
     * Whether the merge orders, groups and compares values of {@code type} exactly as Trino does, so that TopN keys,
     * group keys and {@code min}/{@code max} of the type may be pushed down. Arrays, maps and rows are not: Trino
     * sorts, groups and aggregates them over the shards' rows.
     */
    static boolean isMergeable(Type type)
    {
        return type.isOrderable() && hasLiterals(type);
    }

    /**
     * Whether a filter on a column of {@code type} can be sent to the shards: its values have exact SQL literals.
     */
    static boolean hasLiterals(Type type)
    {
        return switch (type) {
            case BigintType _, IntegerType _, SmallintType _, TinyintType _, DoubleType _, RealType _, BooleanType _,
                 VarcharType _, CharType _, DecimalType _, DateType _, TimestampType _, TimestampWithTimeZoneType _,
                 VarbinaryType _, UuidType _ -> true;
            default -> false;
        };
    }

    private static boolean isJson(Type type)
    {
        return type.getBaseName().equals("json");
    }

    /**
     * The SQL expression a shard selects for {@code expression} of {@code type}: the expression itself, or its
     * rewritten form for the values that carry a map or a {@code timestamp with time zone} (see the class comment).
     */
    static String wire(Type type, String expression)
    {
        return wire(type, expression, 0);
    }

    private static String wire(Type type, String expression, int depth)
    {
        if (!isRewritten(type)) {
            return expression;
        }
        String variable = LAMBDA_VARIABLE + depth;
        return switch (type) {
            case TimestampWithTimeZoneType _ -> "ROW(%1$s AT TIME ZONE 'UTC', %1$s)".formatted(expression);
            case ArrayType array -> "transform(%s, %s -> %s)".formatted(expression, variable, wire(array.getElementType(), variable, depth + 1));
            case MapType map -> isRewritten(map.getKeyType()) || isRewritten(map.getValueType())
                    ? "transform(map_entries(%s), %s -> ROW(%s, %s))".formatted(expression, variable,
                    wire(map.getKeyType(), variable + "[1]", depth + 1), wire(map.getValueType(), variable + "[2]", depth + 1))
                    : "map_entries(%s)".formatted(expression);
            case RowType row -> {
                List<String> fields = new ArrayList<>();
                for (int field = 0; field < row.getFields().size(); field++) {
                    fields.add(wire(row.getFields().get(field).getType(), "%s[%s]".formatted(expression, field + 1), depth + 1));
                }
                yield "CASE WHEN %s IS NULL THEN NULL ELSE ROW(%s) END".formatted(expression, String.join(", ", fields));
            }
            default -> throw new IllegalArgumentException("Not rewritten: " + type);
        };
    }

    private static boolean isRewritten(Type type)
    {
        return switch (type) {
            case TimestampWithTimeZoneType _, MapType _ -> true;
            case ArrayType array -> isRewritten(array.getElementType());
            case RowType row -> row.getFieldTypes().stream().anyMatch(ShardValues::isRewritten);
            default -> false;
        };
    }

    /**
     * Appends one value of the {@linkplain #wire wire form} as the client decoded it: numbers as Java numbers,
     * varbinary as bytes, arrays as lists, rows as {@link Row}s, the rest as strings.
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
            case TimestampType timestamp -> {
                EpochTime instant = parseInstant(value.toString(), false);
                long epochMicros = Math.multiplyExact(instant.epochSecond(), 1_000_000L) + instant.picosOfSecond() / 1_000_000;
                if (timestamp.isShort()) {
                    type.writeLong(out, epochMicros);
                }
                else {
                    type.writeObject(out, new LongTimestamp(epochMicros, (int) (instant.picosOfSecond() % 1_000_000)));
                }
            }
            case TimestampWithTimeZoneType timestamp -> {
                // ROW(the value at UTC, the value): the instant from the first, the zone from the second; both NULL
                // for a NULL
                List<RowField> fields = ((Row) value).getFields();
                if (fields.get(0).getValue() == null) {
                    out.appendNull();
                    return;
                }
                EpochTime instant = parseInstant(fields.get(0).getValue().toString(), true);
                String text = fields.get(1).getValue().toString();
                TimeZoneKey zone = TimeZoneKey.getTimeZoneKey(text.substring(text.lastIndexOf(' ') + 1));
                long epochMillis = Math.multiplyExact(instant.epochSecond(), 1_000L) + instant.picosOfSecond() / 1_000_000_000;
                if (timestamp.isShort()) {
                    type.writeLong(out, packDateTimeWithZone(epochMillis, zone));
                }
                else {
                    type.writeObject(out, LongTimestampWithTimeZone.fromEpochMillisAndFraction(epochMillis, (int) (instant.picosOfSecond() % 1_000_000_000), zone));
                }
            }
            case TimeType _ -> {
                String text = value.toString();
                int dot = text.indexOf('.');
                long seconds = LocalTime.parse(dot < 0 ? text : text.substring(0, dot), TIME).toSecondOfDay();
                type.writeLong(out, seconds * 1_000_000_000_000L + (dot < 0 ? 0 : picos(text.substring(dot + 1))));
            }
            case VarbinaryType _ -> type.writeSlice(out, Slices.wrappedBuffer((byte[]) value));
            case UuidType _ -> type.writeSlice(out, javaUuidToTrinoUuid(UUID.fromString(value.toString())));
            case ArrayType array -> ((ArrayBlockBuilder) out).buildEntry(elements -> {
                for (Object element : (List<?>) value) {
                    append(array.getElementType(), elements, element);
                }
            });
            case MapType map -> ((MapBlockBuilder) out).buildEntry((keys, values) -> {
                // the map's entries, in order (see wire)
                for (Object entry : (List<?>) value) {
                    List<RowField> fields = ((Row) entry).getFields();
                    append(map.getKeyType(), keys, fields.get(0).getValue());
                    append(map.getValueType(), values, fields.get(1).getValue());
                }
            });
            case RowType row -> ((RowBlockBuilder) out).buildEntry(fieldBuilders -> {
                List<RowField> fields = ((Row) value).getFields();
                for (int field = 0; field < fieldBuilders.size(); field++) {
                    append(row.getFields().get(field).getType(), fieldBuilders.get(field), fields.get(field).getValue());
                }
            });
            default -> {
                if (!isJson(type)) {
                    throw new IllegalArgumentException("Unsupported type: " + type);
                }
                type.writeSlice(out, utf8Slice(value.toString()));
            }
        }
    }

    /**
     * Seconds since the epoch and the fraction in picoseconds of a {@code uuuu-MM-dd HH:mm:ss[.f...]} text (up to 12
     * digits), followed by {@code " UTC"} when {@code utc}.
     */
    private static EpochTime parseInstant(String text, boolean utc)
    {
        if (utc) {
            checkArgument(text.endsWith(" UTC"), "not a UTC timestamp: %s", text);
            text = text.substring(0, text.length() - " UTC".length());
        }
        int dot = text.indexOf('.', text.lastIndexOf(':'));
        LocalDateTime seconds = LocalDateTime.parse(dot < 0 ? text : text.substring(0, dot), DATE_TIME);
        return new EpochTime(seconds.toEpochSecond(ZoneOffset.UTC), dot < 0 ? 0 : picos(text.substring(dot + 1)));
    }

    // a fraction of a second (up to 12 digits) in picoseconds
    private static long picos(String digits)
    {
        checkArgument(digits.length() <= 12 && digits.chars().allMatch(Character::isDigit), "bad fraction of a second: %s", digits);
        return Long.parseLong(digits) * POWERS_OF_TEN[12 - digits.length()];
    }

    private record EpochTime(long epochSecond, long picosOfSecond) {}

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
     * A SQL literal of {@code type} for a value in Trino's native representation (as in a {@code TupleDomain}); only
     * for the types where {@link #hasLiterals} holds.
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
            case TimestampType timestamp -> timestamp.isShort()
                    ? formatUtc(Math.floorDiv((Long) value, 1_000_000L), Math.floorMod((Long) value, 1_000_000L) * 1_000_000L)
                    : formatUtc(Math.floorDiv(((LongTimestamp) value).getEpochMicros(), 1_000_000L),
                    Math.floorMod(((LongTimestamp) value).getEpochMicros(), 1_000_000L) * 1_000_000L + ((LongTimestamp) value).getPicosOfMicro());
            // the instant at UTC: timestamps with time zone compare by their instant
            case TimestampWithTimeZoneType timestamp -> {
                long epochMillis = timestamp.isShort() ? unpackMillisUtc((Long) value) : ((LongTimestampWithTimeZone) value).getEpochMillis();
                long picosOfMilli = timestamp.isShort() ? 0 : ((LongTimestampWithTimeZone) value).getPicosOfMilli();
                yield formatUtc(Math.floorDiv(epochMillis, 1_000L), Math.floorMod(epochMillis, 1_000L) * 1_000_000_000L + picosOfMilli) + " UTC";
            }
            case VarbinaryType _ -> null;
            case UuidType _ -> trinoUuidToJavaUuid((Slice) value).toString();
            default -> throw new IllegalArgumentException("Unsupported type: " + type);
        };
        if (type instanceof VarbinaryType) {
            return "X'%s'".formatted(HexFormat.of().formatHex(((Slice) value).getBytes()));
        }
        // CAST from a string literal is exact for every supported type (NaN and Infinity included), as long as the
        // type holds the value: a varchar(n) or char(n) domain may hold longer strings (a comparison with a longer
        // constant), which a CAST to the column's type would truncate
        return "CAST(%s AS %s)".formatted(stringLiteral(text), literalType(type, value).getDisplayName());
    }

    // uuuu-MM-dd HH:mm:ss.ffffffffffff (all 12 digits: exact whatever the precision of the type it is cast to)
    private static String formatUtc(long epochSecond, long picosOfSecond)
    {
        LocalDateTime time = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
        return "%s.%012d".formatted(time.format(DATE_TIME), picosOfSecond);
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
