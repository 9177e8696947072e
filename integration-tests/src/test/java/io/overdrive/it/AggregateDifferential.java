package io.overdrive.it;

import io.overdrive.it.harness.TrinoProcessCluster;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;

import static com.google.common.base.Preconditions.checkState;

/**
 * A randomized differential check of aggregation pushdown: random rows (nulls, NaN, infinities, the extremes of each
 * type, long decimals, non-ASCII strings) spread over the shards, every aggregate the connector pushes down (and the
 * ones it does not) with and without GROUP BY, run three ways: over the shards with pushdown on, with it off, and over
 * one local table holding all the rows. The results must agree.
 * <p>
 * What "agree" means where Trino itself depends on the order of the rows:
 * <ul>
 * <li>Sums and averages that are doubles or reals: NULL, NaN and the infinities must be the same; finite results may
 * differ by 1e-9 (1e-5 for real) of the sum of the absolute values added, the error bound of floating-point sums in
 * different orders. When the absolute values add up to a quarter of the type's range or more, Trino's own result
 * depends on the order (a partial sum may overflow to an infinity, and an infinity meet one of the other sign), so
 * any outcome is accepted for that group.</li>
 * <li>min and max of doubles and reals: equal as Trino compares them (0.0 equals -0.0: which of the two is returned
 * depends on the order).</li>
 * <li>{@code sum} of integers: Trino's sum(bigint) fails on an intermediate overflow, so on the local table it may
 * fail where the exact sum fits in a bigint (the order decides). The exact sum ({@code sum(CAST(x AS
 * decimal(38, 0)))} on the local table) is the reference: when it fits, pushdown must return it and the others must
 * return it or fail with an overflow; when it does not fit, all must fail.</li>
 * <li>Everything else is exact, failures included: where the local query fails, the shards' queries must fail.</li>
 * </ul>
 * Rows are generated from a seed (the system property {@code overdrive.shards.seed} overrides the fixed default), which
 * every failure names.
 */
final class AggregateDifferential
{
    static final long DEFAULT_SEED = 20261127L;

    private static final List<String> GROUP_NAMES = Arrays.asList(null, "a", "ä", "東京", "");

    private final long seed;
    private final List<Column> columns;
    private final List<String> rows = new ArrayList<>();
    private final List<Integer> shardOfRow = new ArrayList<>();
    private final List<String> mismatches = new ArrayList<>();
    private final Map<String, Outcome> scaleQueries = new LinkedHashMap<>();
    private int queries;
    private int failedQueries;

    enum Kind
    {
        INTEGRAL, FLOATING, DECIMAL, STRING
    }

    record Column(String name, String type, Kind kind, boolean summable, Function<Random, String> value)
    {
        String literal(Random random)
        {
            String text = value.apply(random);
            return text == null ? "CAST(NULL AS %s)".formatted(type) : "CAST('%s' AS %s)".formatted(text.replace("'", "''"), type);
        }

        boolean isReal()
        {
            return type.equals("real");
        }

        /** Whether avg of the column is pushed down: not of real, nor of decimals above 19 digits. */
        boolean averagePushedDown()
        {
            return !isReal() && !type.startsWith("decimal(38");
        }
    }

    AggregateDifferential(long seed, int rowCount, int shards)
    {
        this.seed = seed;
        this.columns = List.of(
                new Column("b", "bigint", Kind.INTEGRAL, true, random -> pick(random,
                        0.05, null, 0.04, Long.toString(Long.MAX_VALUE), 0.04, Long.toString(Long.MIN_VALUE), 0.05, "0",
                        0.10, Long.toString(1_700_000_000_000_000_000L + random.nextLong(1_000_000_000_000_000L)),
                        1.0, Long.toString(random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L)))),
                new Column("n", "bigint", Kind.INTEGRAL, true, random -> pick(random,
                        0.05, null, 1.0, Long.toString(random.nextLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L)))),
                // epoch nanoseconds: a few of them add up beyond bigint
                new Column("e", "bigint", Kind.INTEGRAL, true, random -> pick(random,
                        0.05, null, 1.0, Long.toString(1_700_000_000_000_000_000L + random.nextLong(1_000_000_000_000_000L)))),
                new Column("i", "integer", Kind.INTEGRAL, true, random -> pick(random,
                        0.05, null, 0.05, Integer.toString(Integer.MAX_VALUE), 0.05, Integer.toString(Integer.MIN_VALUE),
                        1.0, Integer.toString(random.nextInt()))),
                new Column("d", "double", Kind.FLOATING, true, random -> pick(random,
                        0.05, null, 0.05, "NaN", 0.02, "Infinity", 0.02, "-Infinity", 0.03, "-0.0", 0.03, "0.0",
                        0.02, Double.toString(Double.MIN_VALUE), 0.01, Double.toString(Double.MAX_VALUE), 0.01, Double.toString(-Double.MAX_VALUE),
                        0.02, Double.toString(random.nextBoolean() ? 1e300 : -1e300),
                        1.0, Double.toString(random.nextGaussian() * 1e6))),
                new Column("r", "real", Kind.FLOATING, true, random -> pick(random,
                        0.05, null, 0.05, "NaN", 0.02, "Infinity", 0.02, "-Infinity", 0.03, "-0.0",
                        0.02, Float.toString(Float.MIN_VALUE), 0.01, Float.toString(Float.MAX_VALUE), 0.01, Float.toString(-Float.MAX_VALUE),
                        1.0, Float.toString((float) (random.nextGaussian() * 1e4)))),
                // mostly NaN: some shards hold only NaN in a group, which the merge must not let win min or max
                new Column("dn", "double", Kind.FLOATING, true, random -> pick(random,
                        0.05, null, 0.9, "NaN", 1.0, Double.toString(random.nextGaussian()))),
                new Column("rn", "real", Kind.FLOATING, true, random -> pick(random,
                        0.05, null, 0.9, "NaN", 1.0, Float.toString((float) random.nextGaussian()))),
                new Column("s", "decimal(12,2)", Kind.DECIMAL, true, random -> pick(random,
                        0.05, null, 0.04, "9999999999.99", 0.04, "-9999999999.99",
                        1.0, new BigDecimal(BigInteger.valueOf(random.nextLong(-999_999_999_999L, 1_000_000_000_000L)), 2).toPlainString())),
                new Column("m", "decimal(19,4)", Kind.DECIMAL, true, random -> pick(random,
                        0.05, null, 0.04, "999999999999999.9999", 0.04, "-999999999999999.9999",
                        1.0, new BigDecimal(BigInteger.valueOf(random.nextLong()).remainder(BigInteger.TEN.pow(19)), 4).toPlainString())),
                // a long decimal: min and max are pushed down, sum and avg are not (a shard's sum could overflow)
                new Column("l", "decimal(38,10)", Kind.DECIMAL, true, random -> pick(random,
                        0.05, null, 0.04, "9999999999999999999999999999.9999999999", 0.04, "-9999999999999999999999999999.9999999999",
                        1.0, new BigDecimal(new BigInteger(126, random).remainder(BigInteger.TEN.pow(38)).multiply(BigInteger.valueOf(random.nextBoolean() ? 1 : -1)), 10).toPlainString())),
                new Column("v", "varchar", Kind.STRING, false, random -> pick(random,
                        0.05, null, 0.05, "", 1.0, randomString(random))));
        Random random = new Random(seed);
        for (int row = 0; row < rowCount; row++) {
            List<String> values = new ArrayList<>();
            String group = GROUP_NAMES.get(random.nextInt(GROUP_NAMES.size()));
            values.add(group == null ? "CAST(NULL AS varchar)" : "'" + group + "'");
            int key = random.nextInt(3);
            values.add(key == 0 ? "CAST(NULL AS bigint)" : "BIGINT '" + key + "'");
            for (Column column : columns) {
                values.add(column.literal(random));
            }
            rows.add("(" + String.join(", ", values) + ")");
            shardOfRow.add(1 + random.nextInt(shards));
        }
    }

    long seed()
    {
        return seed;
    }

    /** {@code CREATE TABLE} columns: the group keys g (varchar) and k (bigint), then the aggregated columns. */
    String columnDefinitions()
    {
        StringBuilder definitions = new StringBuilder("g varchar, k bigint");
        columns.forEach(column -> definitions.append(", ").append(column.name()).append(' ').append(column.type()));
        return definitions.toString();
    }

    /** The VALUES rows of one shard. */
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

    List<String> allRows()
    {
        return List.copyOf(rows);
    }

    /**
     * Runs every query three ways ({@code shardsTable} with pushdown on and off, {@code localTable}) and returns the
     * mismatches, each naming the seed.
     */
    List<String> run(TrinoProcessCluster coordinator, String shardsTable, String localTable)
            throws SQLException
    {
        try (Connection on = coordinator.connect();
                Connection off = coordinator.connect();
                Connection local = coordinator.connect()) {
            try (Statement statement = off.createStatement()) {
                statement.execute("SET SESSION shards.aggregation_pushdown = false");
            }
            for (boolean grouped : List.of(false, true)) {
                for (Column column : columns) {
                    // count, min, max and avg never fail: one query checks them (with count(*) in the first), where
                    // avg is pushed down with the others
                    boolean withAverage = column.summable() && column.averagePushedDown();
                    // so does the exact sum of a decimal of up to 19 digits (600 values cannot reach 38 digits)
                    boolean withSum = withAverage && column.kind() == Kind.DECIMAL;
                    String rows = column == columns.getFirst() ? "count(*), " : "";
                    compare(grouped, "%3$scount(%1$s), min(%1$s), max(%1$s)%2$s%4$s".formatted(column.name(), withAverage ? ", avg(%s)".formatted(column.name()) : "", rows,
                                    withSum ? ", sum(%s)".formatted(column.name()) : ""),
                            column.kind(), column, withAverage ? (rows.isEmpty() ? 3 : 4) : -1, on, off, local, shardsTable, localTable);
                    if (column.summable()) {
                        if (!withAverage) {
                            compare(grouped, "avg(%s)".formatted(column.name()), column.kind(), column, 0, on, off, local, shardsTable, localTable);
                        }
                        if (!withSum) {
                            compare(grouped, "sum(%s)".formatted(column.name()), column.kind(), column, 0, on, off, local, shardsTable, localTable);
                        }
                    }
                }
            }
        }
        return List.copyOf(mismatches);
    }

    int queries()
    {
        return queries;
    }

    /** How many of the queries failed (an overflow, expected or not). */
    int failedQueries()
    {
        return failedQueries;
    }

    /**
     * {@code approximateColumn}: the aggregate (index in {@code aggregates}) that is a sum or an average, compared
     * within the error bound of a floating-point sum where it is one; -1 for none.
     */
    private void compare(boolean grouped, String aggregates, Kind kind, Column column, int approximateColumn, Connection on, Connection off, Connection local, String shardsTable, String localTable)
    {
        String template = "SELECT %s%s FROM %%s%s".formatted(grouped ? "g, k, " : "", aggregates, grouped ? " GROUP BY g, k" : "");
        int keys = grouped ? 2 : 0;
        Outcome expected = run(local, template.formatted(localTable), keys);
        Outcome pushed = run(on, template.formatted(shardsTable), keys);
        Outcome pulled = run(off, template.formatted(shardsTable), keys);
        String description = "seed %s: %s".formatted(seed, template.formatted("<table>"));

        boolean sum = aggregates.startsWith("sum(");
        boolean average = aggregates.contains("avg(");
        if (sum && kind == Kind.INTEGRAL) {
            // the exact sum decides: Trino's own sum(bigint) may fail on an intermediate overflow, depending on order
            Outcome exact = run(local, "SELECT %ssum(CAST(%s AS decimal(38, 0))) FROM %s%s".formatted(grouped ? "g, k, " : "", column.name(), localTable, grouped ? " GROUP BY g, k" : ""), keys);
            checkState(exact.failure() == null, "%s: %s", description, exact.failure());
            boolean fits = exact.groups().values().stream().allMatch(values -> values.getFirst() == null || fitsBigint((BigDecimal) values.getFirst()));
            if (fits) {
                Map<List<Object>, List<Object>> exactValues = new LinkedHashMap<>();
                exact.groups().forEach((key, values) -> {
                    List<Object> value = new ArrayList<>();
                    value.add(values.getFirst() == null ? null : ((BigDecimal) values.getFirst()).longValueExact());
                    exactValues.put(key, value);
                });
                Outcome reference = new Outcome(exactValues, null);
                requireSame(description + " [pushdown on]", reference, pushed, null, -1, false);
                for (Map.Entry<String, Outcome> other : Map.of("pushdown off", pulled, "local table", expected).entrySet()) {
                    if (other.getValue().failure() == null) {
                        requireSame(description + " [" + other.getKey() + "]", reference, other.getValue(), null, -1, false);
                    }
                    else if (!other.getValue().failure().contains("overflow")) {
                        mismatches.add("%s [%s]: failed with %s".formatted(description, other.getKey(), other.getValue().failure()));
                    }
                }
            }
            else {
                for (Map.Entry<String, Outcome> outcome : Map.of("pushdown on", pushed, "pushdown off", pulled, "local table", expected).entrySet()) {
                    if (outcome.getValue().failure() == null || !outcome.getValue().failure().contains("overflow")) {
                        mismatches.add("%s [%s]: the exact sum is out of bigint's range, but the query returned %s".formatted(description, outcome.getKey(), outcome.getValue()));
                    }
                }
            }
            return;
        }

        Map<List<Object>, double[]> scales = null;
        if ((sum || average) && (kind == Kind.FLOATING || kind == Kind.INTEGRAL)) {
            // the sum of the absolute finite values and the count: the error bound of a floating-point sum or average
            // the same for a column's sum and avg: asked once
            Outcome scale = scaleQueries.computeIfAbsent("SELECT %ssum(abs(CAST(%2$s AS double))) FILTER (WHERE is_finite(CAST(%2$s AS double))), count(%2$s) FROM %3$s%4$s".formatted(
                    grouped ? "g, k, " : "", column.name(), localTable, grouped ? " GROUP BY g, k" : ""), sql -> run(local, sql, keys));
            checkState(scale.failure() == null, "%s: %s", description, scale.failure());
            scales = new LinkedHashMap<>();
            for (Map.Entry<List<Object>, List<Object>> group : scale.groups().entrySet()) {
                double absolute = group.getValue().get(0) == null ? 0 : (Double) group.getValue().get(0);
                long count = (Long) group.getValue().get(1);
                scales.put(group.getKey(), new double[] {average && count > 0 ? absolute / count : absolute, absolute});
            }
        }
        boolean real = column != null && column.isReal();
        requireSame(description + " [pushdown on]", expected, pushed, scales, approximateColumn, real);
        requireSame(description + " [pushdown off]", expected, pulled, scales, approximateColumn, real);
    }

    private void requireSame(String description, Outcome expected, Outcome actual, Map<List<Object>, double[]> scales, int approximateColumn, boolean real)
    {
        if (expected.failure() != null || actual.failure() != null) {
            if (expected.failure() == null || actual.failure() == null) {
                mismatches.add("%s: expected %s, got %s".formatted(description, expected, actual));
            }
            return;
        }
        if (!expected.groups().keySet().equals(actual.groups().keySet())) {
            mismatches.add("%s: groups %s, expected %s".formatted(description, actual.groups().keySet(), expected.groups().keySet()));
            return;
        }
        for (Map.Entry<List<Object>, List<Object>> group : expected.groups().entrySet()) {
            List<Object> actualValues = actual.groups().get(group.getKey());
            for (int i = 0; i < group.getValue().size(); i++) {
                Object want = group.getValue().get(i);
                Object got = actualValues.get(i);
                double[] scale = scales == null || i != approximateColumn ? null : scales.get(group.getKey());
                if (!same(want, got, scale, real)) {
                    mismatches.add("%s: group %s column %s: %s, expected %s".formatted(description, group.getKey(), i, got, want));
                }
            }
        }
    }

    /**
     * {@code scale}: for floating-point sums and averages, {the magnitude of the error bound, the sum of the absolute
     * finite values}; null where values must be equal as Trino compares them.
     */
    private static boolean same(Object expected, Object actual, double[] scale, boolean real)
    {
        if (expected == null || actual == null) {
            return expected == null && actual == null;
        }
        if (expected instanceof BigDecimal want && actual instanceof BigDecimal got) {
            return want.compareTo(got) == 0 && want.scale() == got.scale();
        }
        if ((expected instanceof Double || expected instanceof Float) && expected.getClass() == actual.getClass()) {
            double want = ((Number) expected).doubleValue();
            double got = ((Number) actual).doubleValue();
            if (Double.isNaN(want) || Double.isNaN(got)) {
                return (Double.isNaN(want) && Double.isNaN(got)) || (scale != null && orderDecidesOverflow(scale, real));
            }
            if (want == got) {
                // 0.0 equals -0.0, as in Trino's comparison
                return true;
            }
            if (scale == null) {
                return false;
            }
            if (Double.isInfinite(want) || Double.isInfinite(got)) {
                return orderDecidesOverflow(scale, real);
            }
            return Math.abs(want - got) <= (real ? 1e-5 : 1e-9) * scale[0] + Double.MIN_NORMAL;
        }
        return Objects.equals(expected, actual);
    }

    private static boolean orderDecidesOverflow(double[] scale, boolean real)
    {
        double absoluteSum = scale[1];
        return !(absoluteSum < (real ? Float.MAX_VALUE : Double.MAX_VALUE) / 4);
    }

    private static boolean fitsBigint(BigDecimal value)
    {
        return value.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0 && value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
    }

    private Outcome run(Connection connection, String sql, int keys)
    {
        queries++;
        try {
            List<List<Object>> rows = TrinoProcessCluster.query(connection, sql);
            Map<List<Object>, List<Object>> groups = new LinkedHashMap<>();
            for (List<Object> row : rows) {
                List<Object> previous = groups.put(new ArrayList<>(row.subList(0, keys)), new ArrayList<>(row.subList(keys, row.size())));
                checkState(previous == null, "group %s twice in %s", row.subList(0, keys), sql);
            }
            return new Outcome(groups, null);
        }
        catch (RuntimeException e) {
            failedQueries++;
            return new Outcome(Map.of(), String.valueOf(e.getMessage()));
        }
    }

    /** Rows by group key, or the failure's message. */
    record Outcome(Map<List<Object>, List<Object>> groups, String failure)
    {
        @Override
        public String toString()
        {
            return failure != null ? "failure: " + failure : groups.toString();
        }
    }

    private static String randomString(Random random)
    {
        String[] alphabet = {"a", "b", "Z", "ä", "ß", "東", "京", "😀", " ", "'"};
        StringBuilder text = new StringBuilder();
        int length = 1 + random.nextInt(6);
        for (int i = 0; i < length; i++) {
            text.append(alphabet[random.nextInt(alphabet.length)]);
        }
        return text.toString();
    }

    /**
     * Picks a value: pairs of (probability, value) tried in order, the last with probability 1.
     */
    private static String pick(Random random, Object... choices)
    {
        for (int i = 0; i < choices.length; i += 2) {
            double probability = (Double) choices[i];
            if (probability >= 1.0 || random.nextDouble() < probability) {
                return (String) choices[i + 1];
            }
        }
        throw new IllegalArgumentException("the last choice must have probability 1");
    }
}
