package io.overdrive.merge.shards;

import io.airlift.slice.Slices;
import io.trino.client.Row;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.SqlMap;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.MapType;
import io.trino.spi.type.SqlTimestampWithTimeZone;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static io.trino.spi.type.DateTimeEncoding.unpackZoneKey;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.RowType.anonymousRow;
import static io.trino.spi.type.RowType.field;
import static io.trino.spi.type.RowType.rowType;
import static io.trino.spi.type.TimeType.createTimeType;
import static io.trino.spi.type.TimestampType.createTimestampType;
import static io.trino.spi.type.TimestampWithTimeZoneType.createTimestampWithTimeZoneType;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Values of every served type decode exactly from what Trino's client gives for their wire form, and the SQL a shard
 * runs selects that wire form.
 */
class TestShardValues
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();
    private static final ShardsColumnHandle STAMP = new ShardsColumnHandle("ts", createTimestampWithTimeZoneType(12));
    private static final ShardsColumnHandle BYTES = new ShardsColumnHandle("b", VARBINARY);
    private static final ShardsColumnHandle TAGS = new ShardsColumnHandle("m", new MapType(VARCHAR, new ArrayType(createTimestampWithTimeZoneType(3)), TYPE_OPERATORS));
    private static final ShardsColumnHandle POINT = new ShardsColumnHandle("p", rowType(field("x", DOUBLE), field("at", createTimestampWithTimeZoneType(6))));
    private static final ShardsColumnHandle LIST = new ShardsColumnHandle("l", new ArrayType(new ArrayType(INTEGER)));

    @Test
    void testTimestampWithTimeZoneKeepsItsInstantZoneAndPrecision()
    {
        // 01:30 in New York happens twice on 2020-11-01 (EDT, then EST): the instant comes from the text at UTC
        Object edt = Row.builder().addUnnamedField("2020-11-01 05:30:00.123456789012 UTC").addUnnamedField("2020-11-01 01:30:00.123456789012 America/New_York").build();
        Object est = Row.builder().addUnnamedField("2020-11-01 06:30:00.123456789012 UTC").addUnnamedField("2020-11-01 01:30:00.123456789012 America/New_York").build();
        Object nullValue = Row.builder().addUnnamedField(null).addUnnamedField(null).build();
        Block block = decode(STAMP.type(), edt, est, nullValue);
        LongTimestampWithTimeZone first = (LongTimestampWithTimeZone) STAMP.type().getObject(block, 0);
        LongTimestampWithTimeZone second = (LongTimestampWithTimeZone) STAMP.type().getObject(block, 1);
        assertThat(second.getEpochMillis() - first.getEpochMillis()).isEqualTo(3_600_000L);
        assertThat(first.getPicosOfMilli()).isEqualTo(456_789_012);
        assertThat(TimeZoneKey.getTimeZoneKey(first.getTimeZoneKey()).getId()).isEqualTo("America/New_York");
        assertThat(STAMP.type().getObjectValue(block, 0)).hasToString("2020-11-01 01:30:00.123456789012 America/New_York");
        assertThat(block.isNull(2)).isTrue();

        // a short one, with a fixed offset, before 1970
        Type millis = createTimestampWithTimeZoneType(3);
        Block offset = decode(millis, Row.builder().addUnnamedField("1969-12-31 18:29:59.999 UTC").addUnnamedField("1969-12-31 23:59:59.999 +05:30").build());
        long packed = millis.getLong(offset, 0);
        assertThat(unpackMillisUtc(packed)).isEqualTo(-19_800_001L);
        assertThat(unpackZoneKey(packed).getId()).isEqualTo("+05:30");
        assertThat(millis.getObjectValue(offset, 0)).hasToString("1969-12-31 23:59:59.999 +05:30");
    }

    @Test
    void testScalarsOfTheNewTypes()
    {
        Block timestamps = decode(createTimestampType(12), "1969-12-31 23:59:59.999999999999", "2020-01-02 03:04:05");
        assertThat(createTimestampType(12).getObject(timestamps, 0)).isEqualTo(new LongTimestamp(-1, 999_999));
        assertThat(createTimestampType(12).getObjectValue(timestamps, 1)).hasToString("2020-01-02 03:04:05.000000000000");
        assertThat(createTimeType(9).getObjectValue(decode(createTimeType(9), "23:59:59.123456789"), 0)).hasToString("23:59:59.123456789");

        byte[] bytes = {0, (byte) 0xff, 'a', 0};
        assertThat(VARBINARY.getSlice(decode(VARBINARY, bytes, new byte[0]), 0).getBytes()).isEqualTo(bytes);
        UUID uuid = java.util.UUID.fromString("12151fd2-7586-11e9-8f9e-2a86e4085a59");
        assertThat(UUID.getSlice(decode(UUID, uuid.toString()), 0)).isEqualTo(javaUuidToTrinoUuid(uuid));
        assertThat(createDecimalType(38, 0).getObjectValue(decode(createDecimalType(38, 0), "-99999999999999999999999999999999999999"), 0))
                .hasToString("-99999999999999999999999999999999999999");
        assertThat(createCharType(5).getObjectValue(decode(createCharType(5), "ab   "), 0)).isEqualTo("ab   ");
        assertThat(Double.doubleToRawLongBits(DOUBLE.getDouble(decode(DOUBLE, -0.0), 0))).isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(Float.floatToRawIntBits(REAL.getFloat(decode(REAL, -0.0f), 0))).isEqualTo(Float.floatToRawIntBits(-0.0f));
    }

    @Test
    void testNestedValuesWithNulls()
    {
        // a map travels as its entries, in the map's order; its timestamps with time zone as (UTC, value)
        Object instant = Row.builder().addUnnamedField("2021-06-01 10:00:00.000 UTC").addUnnamedField("2021-06-01 12:00:00.000 Europe/Berlin").build();
        Object entries = Arrays.asList(
                Row.builder().addUnnamedField("z").addUnnamedField(Arrays.asList(instant, Row.builder().addUnnamedField(null).addUnnamedField(null).build())).build(),
                Row.builder().addUnnamedField("a").addUnnamedField(null).build());
        Block maps = decode(TAGS.type(), entries, List.of(), null);
        @SuppressWarnings("unchecked")
        Map<String, List<SqlTimestampWithTimeZone>> map = (Map<String, List<SqlTimestampWithTimeZone>>) TAGS.type().getObjectValue(maps, 0);
        assertThat(map.keySet()).containsExactlyInAnyOrder("z", "a");
        SqlMap sqlMap = (SqlMap) TAGS.type().getObject(maps, 0);
        assertThat(VARCHAR.getSlice(sqlMap.getRawKeyBlock(), sqlMap.getRawOffset()).toStringUtf8()).as("the first key, in the map's order").isEqualTo("z");
        assertThat(map.get("z")).extracting(String::valueOf).containsExactly("2021-06-01 12:00:00.000 Europe/Berlin", "null");
        assertThat(map.get("a")).isNull();
        assertThat((Map<?, ?>) TAGS.type().getObjectValue(maps, 1)).isEmpty();
        assertThat(maps.isNull(2)).isTrue();

        Block rows = decode(POINT.type(), Row.builder().addUnnamedField(-0.0).addUnnamedField(null).build(), null);
        assertThat(POINT.type().getObjectValue(rows, 0)).isEqualTo(Arrays.asList(-0.0, null));
        assertThat(rows.isNull(1)).isTrue();

        Block lists = decode(LIST.type(), Arrays.asList(Arrays.asList(1, null), null, List.of()));
        assertThat(LIST.type().getObjectValue(lists, 0)).isEqualTo(Arrays.asList(Arrays.asList(1, null), null, List.of()));

        // a map with keys the client cannot decode as JSON object keys (an array)
        Type keyedByArray = new MapType(new ArrayType(BIGINT), BOOLEAN, TYPE_OPERATORS);
        Block keyed = decode(keyedByArray, List.of(Row.builder().addUnnamedField(List.of(1L, 2L)).addUnnamedField(true).build()));
        assertThat(keyedByArray.getObjectValue(keyed, 0)).isEqualTo(Map.of(List.of(1L, 2L), true));
    }

    @Test
    void testShardsSelectTheWireForm()
    {
        ShardsTableHandle table = new ShardsTableHandle(new io.trino.spi.connector.SchemaTableName("s", "t"), List.of(STAMP, BYTES, TAGS, POINT, LIST));
        assertThat(ShardSql.select("c", table, List.of(STAMP, BYTES, TAGS, POINT, LIST))).isEqualTo("SELECT "
                + "ROW(\"ts\" AT TIME ZONE 'UTC', \"ts\"), "
                + "\"b\", "
                + "transform(map_entries(\"m\"), overdrive_value_0 -> ROW(overdrive_value_0[1], transform(overdrive_value_0[2], overdrive_value_1 -> ROW(overdrive_value_1 AT TIME ZONE 'UTC', overdrive_value_1)))), "
                + "CASE WHEN \"p\" IS NULL THEN NULL ELSE ROW(\"p\"[1], ROW(\"p\"[2] AT TIME ZONE 'UTC', \"p\"[2])) END, "
                + "\"l\" "
                + "FROM \"c\".\"s\".\"t\"");
        assertThat(ShardValues.wire(new MapType(BIGINT, VARCHAR, TYPE_OPERATORS), "\"m\"")).isEqualTo("map_entries(\"m\")");
        assertThat(ShardValues.wire(anonymousRow(BIGINT, VARCHAR), "\"r\"")).isEqualTo("\"r\"");
    }

    @Test
    void testWhatIsPushedDown()
    {
        // compared, grouped and aggregated by the merge exactly as Trino does
        for (Type type : List.of(BIGINT, DOUBLE, REAL, createDecimalType(38, 2), createCharType(3), createTimestampType(12), createTimestampWithTimeZoneType(0),
                createTimestampWithTimeZoneType(12), VARBINARY, UUID)) {
            assertThat(ShardValues.isMergeable(type)).as(type.toString()).isTrue();
            assertThat(ShardValues.hasLiterals(type)).as(type.toString()).isTrue();
        }
        // read, but Trino sorts, groups, aggregates and filters them
        for (Type type : List.of(TAGS.type(), POINT.type(), LIST.type(), createTimeType(3))) {
            assertThat(ShardValues.isReadable(type)).as(type.toString()).isTrue();
            assertThat(ShardValues.isMergeable(type)).as(type.toString()).isFalse();
            assertThat(ShardValues.hasLiterals(type)).as(type.toString()).isFalse();
        }
    }

    @Test
    void testLiteralsOfTheNewTypes()
    {
        assertThat(ShardValues.literal(VARBINARY, Slices.wrappedBuffer(HexFormat.of().parseHex("00ff27")))).isEqualTo("X'00ff27'");
        assertThat(ShardValues.literal(VARBINARY, Slices.EMPTY_SLICE)).isEqualTo("X''");
        assertThat(ShardValues.literal(UUID, javaUuidToTrinoUuid(java.util.UUID.fromString("12151fd2-7586-11e9-8f9e-2a86e4085a59"))))
                .isEqualTo("CAST('12151fd2-7586-11e9-8f9e-2a86e4085a59' AS uuid)");
        // timestamps with time zone compare by their instant: written at UTC
        assertThat(ShardValues.literal(createTimestampWithTimeZoneType(3), packDateTimeWithZone(-1L, TimeZoneKey.getTimeZoneKey("Asia/Tokyo"))))
                .isEqualTo("CAST('1969-12-31 23:59:59.999000000000 UTC' AS timestamp(3) with time zone)");
        assertThat(ShardValues.literal(createTimestampWithTimeZoneType(12), LongTimestampWithTimeZone.fromEpochMillisAndFraction(1_000L, 123_456_789, TimeZoneKey.UTC_KEY)))
                .isEqualTo("CAST('1970-01-01 00:00:01.000123456789 UTC' AS timestamp(12) with time zone)");
        assertThat(ShardValues.literal(createTimestampType(12), new LongTimestamp(-1, 1))).isEqualTo("CAST('1969-12-31 23:59:59.999999000001' AS timestamp(12))");
        // arrays, maps and rows have no literals: only IS [NOT] NULL is sent
        assertThat(ShardSql.where(TupleDomain.withColumnDomains(Map.of(LIST, Domain.notNull(LIST.type()))))).contains("\"l\" IS NOT NULL");
    }

    private static Block decode(Type type, Object... values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.length);
        for (Object value : values) {
            ShardValues.append(type, builder, value);
        }
        return builder.build();
    }
}
