package io.overdrive.it;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static java.util.stream.Collectors.joining;

/**
 * Random rows of every column type a shards catalog serves beyond the aggregated numbers of
 * {@link AggregateDifferential}: {@code real} and {@code double} signed zeros and NaN, {@code timestamp(p) with time
 * zone} across zones and precisions (the repeated hour at the end of daylight saving time included),
 * {@code timestamp(12)}, {@code varbinary}, {@code uuid}, {@code char(n)} padding, decimals at the precision
 * boundaries (18, 19, 38), and arrays, maps and rows (nested, with NULLs). Rows are generated from the same seed.
 * <p>
 * Each column has a <em>fingerprint</em>: a varchar that shows everything Trino keeps of a value (the sign of a zero,
 * a timestamp's zone and every digit, the bytes), so that two results compare exactly through JDBC; and a
 * <em>key</em> fingerprint for group keys and min/max, where Trino itself may return either of two equal values (0.0
 * or -0.0; one instant in two zones).
 */
final class TypesDifferential
{
    private static final List<String> ZONES = List.of("UTC", "America/New_York", "Asia/Kolkata", "+05:30", "-08:00", "Europe/Berlin", "Pacific/Chatham");
    // the second pair is 01:30 in New York twice (EDT, then EST)
    private static final List<String> INSTANTS = List.of(
            "1969-12-31 23:59:59.999999999999", "2020-11-01 05:30:00.123456789012", "2020-11-01 06:30:00.123456789012",
            "2024-02-29 12:00:00.000000000001", "1900-01-01 00:00:00.5", "2038-01-19 03:14:08");
    private static final List<String> UUIDS = List.of("00000000-0000-0000-0000-000000000000", "12151fd2-7586-11e9-8f9e-2a86e4085a59",
            "ffffffff-ffff-ffff-ffff-ffffffffffff", "7fffffff-0000-4000-8000-000000000001");

    private final List<Column> columns;
    private final List<String> rows = new ArrayList<>();
    private final List<Integer> shardOfRow = new ArrayList<>();

    /**
     * {@code mergeable}: TopN keys, group keys and min/max of the column are pushed down.
     */
    record Column(String name, String type, boolean mergeable, String fingerprint, String key, Function<Random, String> value)
    {
        String fingerprintOf(String expression)
        {
            return fingerprint.formatted(expression);
        }

        String keyOf(String expression)
        {
            return key.formatted(expression);
        }
    }

    TypesDifferential(long seed, int rowCount, int shards)
    {
        String varchar = "CAST(%s AS varchar)";
        String zoned = "CAST(%s AS varchar)";
        String utc = "CAST(%s AT TIME ZONE 'UTC' AS varchar)";
        this.columns = List.of(
                new Column("dz", "double", true, varchar, "CAST(%s + 0e0 AS varchar)", random -> pick(random, "CAST(NULL AS double)", "-0e0", "0e0", "nan()", "-infinity()", "1.5e0", "-2.25e0")),
                new Column("rz", "real", true, varchar, "CAST(%s + REAL '0' AS varchar)", random -> pick(random, "CAST(NULL AS real)", "REAL '-0.0'", "REAL '0.0'", "CAST(nan() AS real)", "REAL '1.5'", "REAL '-2.25'")),
                new Column("t0", "timestamp(0) with time zone", true, zoned, utc, random -> zoned(random, 0)),
                new Column("t3", "timestamp(3) with time zone", true, zoned, utc, random -> zoned(random, 3)),
                new Column("t12", "timestamp(12) with time zone", true, zoned, utc, random -> zoned(random, 12)),
                new Column("ts12", "timestamp(12)", true, varchar, varchar, random -> random.nextInt(8) == 0 ? "CAST(NULL AS timestamp(12))"
                        : "TIMESTAMP '%s'".formatted(INSTANTS.get(random.nextInt(INSTANTS.size())))),
                new Column("vb", "varbinary", true, "to_hex(%s)", "to_hex(%s)", TypesDifferential::bytes),
                new Column("u", "uuid", true, varchar, varchar, random -> random.nextInt(8) == 0 ? "CAST(NULL AS uuid)" : "UUID '%s'".formatted(UUIDS.get(random.nextInt(UUIDS.size())))),
                // 'a' and 'a  ' are one char(5) value
                new Column("c", "char(5)", true, "concat('[', CAST(%s AS varchar), ']')", "concat('[', CAST(%s AS varchar), ']')",
                        random -> "CAST(%s AS char(5))".formatted(pick(random, "NULL", "'a'", "'a  '", "''", "'abcde'", "' b'", "'ä'"))),
                new Column("d18", "decimal(18,2)", true, varchar, varchar, random -> decimal(random, "9999999999999999.99", 18, 2)),
                new Column("d19", "decimal(19,0)", true, varchar, varchar, random -> decimal(random, "9999999999999999999", 19, 0)),
                new Column("d38", "decimal(38,38)", true, varchar, varchar, random -> decimal(random, "0.99999999999999999999999999999999999999", 38, 38)),
                new Column("a", "array(double)", false, "json_format(CAST(transform(%s, x -> CAST(x AS varchar)) AS json))", "",
                        random -> random.nextInt(8) == 0 ? "CAST(NULL AS array(double))" : "CAST(ARRAY[%s] AS array(double))".formatted(String.join(", ",
                                List.of(pick(random, "NULL", "-0e0", "0e0", "nan()", "1e300"), pick(random, "NULL", "-0e0", "2.5e0")).subList(0, random.nextInt(3))))),
                new Column("m", "map(varchar, array(timestamp(3) with time zone))", false,
                        "json_format(CAST(transform_values(%s, (k, v) -> transform(v, x -> CAST(x AS varchar))) AS json))", "", TypesDifferential::map),
                new Column("r", "row(x double, y varchar, t timestamp(6) with time zone, u array(uuid), b varbinary)", false,
                        "if(%1$s IS NULL, 'null', concat_ws('|', coalesce(CAST(%1$s.x AS varchar), 'null'), coalesce(%1$s.y, 'null'), coalesce(CAST(%1$s.t AS varchar), 'null'), "
                                + "coalesce(json_format(CAST(CAST(%1$s.u AS array(varchar)) AS json)), 'null'), coalesce(to_hex(%1$s.b), 'null')))",
                        "", TypesDifferential::row),
                new Column("mk", "map(array(bigint), row(v varbinary))", false,
                        "json_format(CAST(transform_values(map_from_entries(transform(map_entries(%s), e -> ROW(json_format(CAST(e[1] AS json)), e[2]))), (k, v) -> to_hex(v.v)) AS json))", "",
                        random -> random.nextInt(5) == 0 ? "CAST(NULL AS map(array(bigint), row(v varbinary)))"
                                : "MAP(ARRAY[ARRAY[BIGINT '1', BIGINT '-1'], ARRAY[BIGINT '%s']], ARRAY[CAST(ROW(%s) AS row(v varbinary)), NULL])".formatted(random.nextInt(3), bytes(random))));
        Random random = new Random(seed);
        for (int row = 0; row < rowCount; row++) {
            List<String> values = new ArrayList<>();
            values.add("BIGINT '%s'".formatted(row));
            for (Column column : columns) {
                values.add(column.value().apply(random));
            }
            rows.add("(" + String.join(", ", values) + ")");
            shardOfRow.add(1 + random.nextInt(shards));
        }
    }

    List<Column> columns()
    {
        return columns;
    }

    List<Column> mergeableColumns()
    {
        return columns.stream().filter(Column::mergeable).toList();
    }

    /** {@code CREATE TABLE} columns: id, then one column of each type. */
    String columnDefinitions()
    {
        return "id bigint, " + columns.stream().map(column -> column.name() + " " + column.type()).collect(joining(", "));
    }

    /** Every column's fingerprint, by id. */
    String fingerprints()
    {
        return "id, " + columns.stream().map(column -> column.fingerprintOf(column.name())).collect(joining(", "));
    }

    List<String> rowsOf(int shard)
    {
        List<String> values = new ArrayList<>();
        for (int row = 0; row < rows.size(); row++) {
            if (shardOfRow.get(row) == shard) {
                values.add(rows.get(row));
            }
        }
        return values;
    }

    private static String zoned(Random random, int precision)
    {
        if (random.nextInt(8) == 0) {
            return "CAST(NULL AS timestamp(%s) with time zone)".formatted(precision);
        }
        return "CAST(TIMESTAMP '%s UTC' AT TIME ZONE '%s' AS timestamp(%s) with time zone)".formatted(
                INSTANTS.get(random.nextInt(INSTANTS.size())), ZONES.get(random.nextInt(ZONES.size())), precision);
    }

    private static String bytes(Random random)
    {
        if (random.nextInt(8) == 0) {
            return "CAST(NULL AS varbinary)";
        }
        byte[] bytes = new byte[random.nextInt(5)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (random.nextBoolean() ? random.nextInt(3) : random.nextInt(256) - 128);
        }
        return "X'%s'".formatted(HexFormat.of().formatHex(bytes));
    }

    private static String decimal(Random random, String max, int precision, int scale)
    {
        String type = "decimal(%s,%s)".formatted(precision, scale);
        return "CAST(%s AS %s)".formatted(pick(random, "NULL", "'" + max + "'", "'-" + max + "'", "'0'", "'0.01'", "'-0.01'"), type);
    }

    private static String map(Random random)
    {
        if (random.nextInt(6) == 0) {
            return "CAST(NULL AS map(varchar, array(timestamp(3) with time zone)))";
        }
        List<String> keys = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (String key : List.of("k", "ä", "z", "")) {
            if (random.nextBoolean()) {
                keys.add("'" + key + "'");
                values.add(random.nextInt(4) == 0 ? "NULL" : "ARRAY[%s, NULL]".formatted(zoned(random, 3)));
            }
        }
        return "CAST(MAP(ARRAY[%s], ARRAY[%s]) AS map(varchar, array(timestamp(3) with time zone)))".formatted(String.join(", ", keys), String.join(", ", values));
    }

    private static String row(Random random)
    {
        String type = "row(x double, y varchar, t timestamp(6) with time zone, u array(uuid), b varbinary)";
        if (random.nextInt(6) == 0) {
            return "CAST(NULL AS %s)".formatted(type);
        }
        return "CAST(ROW(%s, %s, %s, %s, %s) AS %s)".formatted(
                pick(random, "CAST(NULL AS double)", "-0e0", "0e0", "nan()", "3.25e0"),
                pick(random, "CAST(NULL AS varchar)", "'x'", "'東京'", "''"),
                zoned(random, 6),
                random.nextInt(4) == 0 ? "CAST(NULL AS array(uuid))" : "ARRAY[UUID '%s', NULL]".formatted(UUIDS.get(random.nextInt(UUIDS.size()))),
                bytes(random),
                type);
    }

    private static String pick(Random random, String... choices)
    {
        return choices[random.nextInt(choices.length)];
    }
}
