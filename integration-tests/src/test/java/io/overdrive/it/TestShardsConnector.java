package io.overdrive.it;

import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ShardClusters;
import io.overdrive.it.harness.ShardClusters.ShardRange;
import io.overdrive.it.harness.SlowProxy;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The {@code overdrive_shards} connector against three real Trino shard clusters, each holding a key range of TPC-H
 * {@code orders} and {@code lineitem} in its memory catalog, and a coordinator with shards catalogs: every result
 * equals the same query over the local TPC-H table (the union of the shards' data); EXPLAIN shows the pushdowns; a
 * shard down, a slow replica, a column type mismatch and a cancelled query behave as documented. On the same shards,
 * the harness of the shards tests and benchmark: the shard clusters (single-node Trino servers with the stock
 * {@code memory} and {@code tpch} connectors), a TPC-H table split over them by key range, and the slow/refusing TCP
 * proxy in front of a shard, through which Trino's client protocol (JDBC) still works.
 */
@TestInstance(PER_CLASS)
class TestShardsConnector
{
    private static final String SHARDS = "shards.shard";
    private static final String LOCAL = "tpch.tiny";
    private static final String STATS = "io.overdrive.merge.shards:type=ShardsStats,name=";

    // NaN only on shard 1 and in group b, 1.0 on shard 2; epoch nanoseconds whose sum is beyond bigint; decimal(38, 0)
    // values whose sum on shard 1 is beyond 38 digits while the total is not; strings longer than varchar(3)/char(3)
    private static final String EDGE_COLUMNS = "id bigint, k varchar, d double, r real, e bigint, x decimal(38,0), code varchar(3), ch char(3)";
    private static final String NANOS = "BIGINT '1700000000000000000'";
    private static final String BIG = "CAST('90000000000000000000000000000000000000' AS decimal(38,0))";
    private static final Map<Integer, List<String>> EDGE_ROWS = Map.of(
            1, List.of(
                    "(1, 'a', nan(), CAST(nan() AS real), %s, %s, 'abc', 'abc')".formatted(NANOS, BIG),
                    "(2, 'a', nan(), CAST(nan() AS real), %s, %s, 'ab', 'ab')".formatted(NANOS, BIG)),
            2, List.of(
                    "(3, 'a', 1.0E0, REAL '1.0', %s, -%s, 'abd', 'abd')".formatted(NANOS, BIG),
                    "(4, 'b', nan(), CAST(nan() AS real), %s, -%s, NULL, NULL)".formatted(NANOS, BIG)),
            3, List.of(
                    "(5, 'b', nan(), CAST(nan() AS real), %s, CAST(1 AS decimal(38,0)), 'xyz', 'xyz')".formatted(NANOS),
                    "(6, 'c', -infinity(), CAST(-infinity() AS real), %s, NULL, 'ä', 'ä')".formatted(NANOS)));

    // the tables loadEverywhere spread over the shards: columns, and rows by shard
    private final Map<String, Map.Entry<String, Map<Integer, List<String>>>> localTables = new LinkedHashMap<>();
    private AggregateDifferential differential;
    private TypesDifferential types;
    private ShardClusters shards;
    private SlowProxy slowReplica;
    private TrinoProcessCluster coordinator;
    private String deadShard;
    private List<ShardRange> orderRanges;

    @BeforeAll
    void setUp()
            throws Exception
    {
        ProjectLayout layout = ProjectLayout.fromSystemProperty();
        log("starting 3 shard clusters");
        shards = ShardClusters.builder(layout, TestingHdfs.workDirectory().resolve("shards")).shards(3).heapSize("1g").start();
        // shard 1's first replica answers only after the test (10 minutes late): the hedge to its second replica, the
        // same shard directly, always wins; its second replica is the same shard, directly
        slowReplica = SlowProxy.start(shards.httpUri(1));
        slowReplica.setDelay(Duration.ofMinutes(10));
        deadShard = "http://127.0.0.1:%s/memory/shard".formatted(closedPort());
        String twoLive = shards.uris(List.of(1, 2), "memory", "shard");

        // the coordinator starts while the shards load their tables: its catalogs only name the shards
        log("starting the coordinator");
        CompletableFuture<TrinoProcessCluster> coordinatorStart = CompletableFuture.supplyAsync(() -> TrinoProcessCluster.builder(layout, TestingHdfs.workDirectory().resolve("shards-coordinator"))
                .workers(0)
                .heapSize("1500m")
                .coordinatorProperty("node-scheduler.include-coordinator", "true")
                .catalog("tpch", "tpch", Map.of())
                // the local copies of the tables spread over the shards: the reference results
                .catalog("memory", "memory", Map.of())
                .catalog("shards", "overdrive_shards", Map.of("shards.uris", shards.uris(shards.numbers(), "memory", "shard")))
                .catalog("shards_fail", "overdrive_shards", Map.of("shards.uris", twoLive + "," + deadShard, "shards.connect-timeout", "2s"))
                .catalog("shards_partial", "overdrive_shards", Map.of(
                        "shards.uris", twoLive + "," + deadShard,
                        "shards.connect-timeout", "2s",
                        "shards.failure-policy", "PARTIAL"))
                .catalog("shards_hedged", "overdrive_shards", Map.of(
                        "shards.uris", slowReplica.uri("memory", "shard") + "," + shards.uris(List.of(2, 3), "memory", "shard"),
                        "shards.replicas.1", shards.uri(1, "memory", "shard"),
                        "shards.hedge-delay", "200ms"))
                .catalog("shards_big", "overdrive_shards", Map.of("shards.uris", shards.uris(shards.numbers(), "tpch", "sf100")))
                .start());
        try {
            orderRanges = shards.loadSplit("tpch.tiny.orders", "orderkey", "memory.shard.orders");
            shards.loadSplit("tpch.tiny.lineitem", "orderkey", "memory.shard.lineitem");
            // the same table, but shard 3 has another type for one column
            shards.execute(1, "CREATE TABLE memory.shard.typed AS SELECT 1 AS id, BIGINT '5' AS amount");
            shards.execute(2, "CREATE TABLE memory.shard.typed AS SELECT 2 AS id, BIGINT '6' AS amount");
            shards.execute(3, "CREATE TABLE memory.shard.typed AS SELECT 3 AS id, VARCHAR '7' AS amount");

            // aggregation edge cases spread over the shards, and random rows (with a copy of all rows on the coordinator)
            loadEverywhere("edge", EDGE_COLUMNS, EDGE_ROWS);
            differential = new AggregateDifferential(Long.getLong("overdrive.shards.seed", AggregateDifferential.DEFAULT_SEED), 600, shards.size());
            Map<Integer, List<String>> randomRows = new LinkedHashMap<>();
            shards.numbers().forEach(shard -> randomRows.put(shard, differential.rowsOf(shard)));
            loadEverywhere("mixed", differential.columnDefinitions(), randomRows);
            // random rows of every other served type
            types = new TypesDifferential(differential.seed(), 240, shards.size());
            Map<Integer, List<String>> typedRows = new LinkedHashMap<>();
            shards.numbers().forEach(shard -> typedRows.put(shard, types.rowsOf(shard)));
            loadEverywhere("types", types.columnDefinitions(), typedRows);
        }
        finally {
            // started even where loading failed, so that tearDown stops it
            coordinator = coordinatorStart.join();
        }
        coordinator.execute("CREATE SCHEMA memory.local");
        for (Map.Entry<String, Map.Entry<String, Map<Integer, List<String>>>> table : localTables.entrySet()) {
            coordinator.execute("CREATE TABLE memory.local.%s (%s)".formatted(table.getKey(), table.getValue().getKey()));
            insert(coordinator::execute, "memory.local." + table.getKey(), table.getValue().getValue().values().stream().flatMap(List::stream).toList());
        }
        log("ready");
    }

    /**
     * Creates {@code memory.shard.<table>} on every shard with that shard's rows (VALUES tuples), and remembers them
     * for the coordinator's {@code memory.local.<table>}, which holds all of them.
     */
    private void loadEverywhere(String table, String columns, Map<Integer, List<String>> rowsByShard)
    {
        ShardClusters.onEach(shards.numbers(), shard -> {
            shards.execute(shard, "CREATE TABLE memory.shard.%s (%s)".formatted(table, columns));
            insert(sql -> shards.execute(shard, sql), "memory.shard." + table, rowsByShard.getOrDefault(shard, List.of()));
            return null;
        });
        localTables.put(table, Map.entry(columns, rowsByShard));
    }

    private static void insert(ToLongFunction<String> execute, String table, List<String> rows)
    {
        for (int from = 0; from < rows.size(); from += 100) {
            List<String> chunk = rows.subList(from, Math.min(rows.size(), from + 100));
            long inserted = execute.applyAsLong("INSERT INTO %s VALUES %s".formatted(table, String.join(", ", chunk)));
            assertThat(inserted).as("rows inserted into %s", table).isEqualTo(chunk.size());
        }
    }

    @AfterAll
    void tearDown()
    {
        if (coordinator != null) {
            coordinator.close();
        }
        if (slowReplica != null) {
            slowReplica.close();
        }
        if (shards != null) {
            shards.close();
        }
    }

    @Test
    void resultsEqualTheUnionOfTheShardsData()
    {
        assertThat(orderRanges).hasSize(3).allSatisfy(range -> assertThat(range.rows()).isPositive());
        assertSameRows("SELECT * FROM %s.orders");
        assertSameRows("SELECT orderkey, custkey FROM %s.orders WHERE orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-03-31' AND orderstatus IN ('F', 'P')");
        assertSameRows("SELECT orderkey, comment FROM %s.orders WHERE comment LIKE '%%special%%' AND totalprice > 100000");
        // low-cardinality group by, every pushed-down function
        assertSameRows("SELECT orderstatus, count(*), count(orderpriority), round(sum(totalprice), 2), round(avg(totalprice), 4), min(orderdate), max(orderdate), min(clerk), max(totalprice), sum(shippriority), avg(custkey) FROM %s.orders GROUP BY orderstatus");
        // high cardinality, and two group keys
        assertSameRows("SELECT custkey, count(*), round(sum(totalprice), 2), max(orderkey) FROM %s.orders GROUP BY custkey");
        assertSameRows("SELECT orderkey, count(*), sum(quantity), min(shipdate) FROM %s.lineitem GROUP BY orderkey");
        assertSameRows("SELECT orderpriority, shippriority, count(*), min(custkey) FROM %s.orders GROUP BY orderpriority, shippriority");
        // global aggregations, also over no rows
        assertSameRows("SELECT count(*), min(shipdate), max(shipdate), round(sum(extendedprice), 2), round(avg(discount), 6) FROM %s.lineitem WHERE returnflag = 'R'");
        assertSameRows("SELECT count(*), max(orderkey), sum(totalprice) FROM %s.orders WHERE orderkey < 0");
        assertSameRows("SELECT custkey, count(*) FROM %s.orders WHERE orderkey < 0 GROUP BY custkey");
        // what is not pushed down still runs, over the shards' rows
        assertSameRows("SELECT count(DISTINCT custkey), approx_distinct(clerk) FROM %s.orders");
        assertSameRows("SELECT custkey, count(*) FROM %s.orders GROUP BY custkey HAVING count(*) > 20");
        // joins with a local table
        assertSameRows("SELECT c.mktsegment, count(*), round(sum(o.totalprice), 2) FROM %s.orders o JOIN tpch.tiny.customer c ON o.custkey = c.custkey GROUP BY c.mktsegment");
        assertSameRows("SELECT o.orderkey, l.linenumber FROM %1$s.orders o JOIN %1$s.lineitem l ON o.orderkey = l.orderkey WHERE o.orderdate = DATE '1996-01-02'");
        assertThat(coordinator.query("SELECT count(*) FROM (SELECT * FROM shards.shard.orders LIMIT 100)")).containsExactly(List.of(100L));
    }

    @Test
    void pushedDownMinAndMaxOrderNaNAsTrinoDoes()
    {
        // shard 1 holds only NaN, shard 2 holds 1.0: Trino's max is 1.0 (NaN is the result only when all values are)
        assertSameEverywhere("SELECT max(d), min(d), max(r), min(r) FROM %s.edge");
        assertSameEverywhere("SELECT k, max(d), min(d), max(r), min(r) FROM %s.edge GROUP BY k");
        assertSameEverywhere("SELECT max(d) FROM %s.edge WHERE id <= 3");
        assertThat(coordinator.query("SELECT max(d), max(r) FROM shards.shard.edge WHERE id <= 3")).containsExactly(List.of(1.0, 1.0f));
    }

    @Test
    void pushedDownSumsAndAveragesFailOnlyWhereTrinoFails()
            throws SQLException
    {
        // six epoch nanoseconds add up beyond bigint: Trino's avg (a double sum) does not fail, its sum does
        assertSameEverywhere("SELECT avg(e) FROM %s.edge");
        assertSameEverywhere("SELECT k, avg(e) FROM %s.edge GROUP BY k");
        assertThat(coordinator.query("SELECT avg(e) FROM shards.shard.edge")).containsExactly(List.of(1.7e18));
        assertThat(explain("SELECT avg(e) FROM shards.shard.edge")).contains("[avg(e)]").doesNotContain("Aggregate[");
        for (String table : List.of("memory.local", SHARDS)) {
            assertThatThrownBy(() -> coordinator.query("SELECT sum(e) FROM %s.edge".formatted(table))).hasMessageContaining("overflow");
        }
        // shard 1's decimal(38, 0) sum is beyond 38 digits, the total is not: Trino tolerates the intermediate overflow
        assertSameEverywhere("SELECT sum(x), avg(x) FROM %s.edge");
        assertSameEverywhere("SELECT k, sum(x), avg(x) FROM %s.edge GROUP BY k");
        assertThat(coordinator.query("SELECT sum(x) FROM shards.shard.edge")).containsExactly(List.of(BigDecimal.ONE));
    }

    @Test
    void filterLiteralsLongerThanTheColumnAreNotTruncated()
    {
        // one statement: each branch is a scan with its own filter pushed down, tagged by its number
        List<String> branches = new ArrayList<>();
        for (String column : List.of("code", "ch")) {
            for (String predicate : List.of("= 'abcd'", "< 'abcd'", "<= 'abcd'", "> 'abcd'", "IN ('abcd', 'xyz')", "BETWEEN 'ab' AND 'abcd'", "= 'abc'", "= 'ä'")) {
                branches.add("SELECT %s AS branch, id FROM %%1$s.edge WHERE %s %s".formatted(branches.size(), column, predicate));
            }
        }
        assertSameEverywhere(String.join(" UNION ALL ", branches));
    }

    @Test
    void randomizedAggregatesEqualTrinosOnTheUnionOfTheShards()
            throws SQLException
    {
        // the pushdowns the comparison relies on (and the aggregates a shard's sum could overflow, which are not)
        for (String aggregate : List.of("max(d)", "min(r)", "avg(b)", "sum(b)", "sum(m)", "avg(s)", "max(l)", "min(v)", "count(i)")) {
            assertThat(explain("SELECT g, k, %s FROM shards.shard.mixed GROUP BY g, k".formatted(aggregate))).as(aggregate).contains("[" + aggregate + "]").doesNotContain("Aggregate[");
        }
        for (String aggregate : List.of("sum(l)", "avg(l)", "sum(r)")) {
            assertThat(explain("SELECT %s FROM shards.shard.mixed".formatted(aggregate))).as(aggregate).contains("Aggregate[");
        }
        List<String> mismatches = differential.run(coordinator, SHARDS + ".mixed", "memory.local.mixed");
        log("%s differential queries (%s failed, as expected or not), seed %s".formatted(differential.queries(), differential.failedQueries(), differential.seed()));
        assertThat(mismatches)
                .as("rows generated with seed %s (rerun with -Doverdrive.shards.seed=%1$s)", differential.seed())
                .isEmpty();
    }

    @Test
    void everyColumnIsServedAndReadExactly()
    {
        // every column of every table, with its type, as on the union
        String tables = localTables.keySet().stream().map(table -> "'" + table + "'").collect(joining(", "));
        assertThat(coordinator.query("SELECT table_name, column_name, data_type FROM shards.information_schema.columns WHERE table_schema = 'shard' AND table_name IN (%s) ORDER BY 1, ordinal_position".formatted(tables)))
                .isEqualTo(coordinator.query("SELECT table_name, column_name, data_type FROM memory.information_schema.columns WHERE table_schema = 'local' AND table_name IN (%s) ORDER BY 1, ordinal_position".formatted(tables)));
        assertThat(coordinator.query("DESCRIBE shards.shard.types")).isEqualTo(coordinator.query("DESCRIBE memory.local.types"));
        // every value round-trips: signed zeros, zones and every digit of timestamps, bytes, nested NULLs
        assertSameAsTheUnion("SELECT " + types.fingerprints() + " FROM %s.types");
        assertThat(coordinator.query("SELECT count(*) FROM shards.shard.types")).containsExactly(List.of(240L));
    }

    @Test
    void newTypesAndSignedZerosGroupSortAndFilterAsTrinoDoes()
            throws SQLException
    {
        List<TypesDifferential.Column> mergeable = types.mergeableColumns();
        // (compared with the union only: with pushdown off Trino does the work, over the rows checked above)
        // every pushed aggregate of every mergeable column, grouped by a few columns at a time (0.0 and -0.0 are one
        // group, every NaN one, an instant in two zones one, 'a' and 'a  ' one char(5) value)
        StringBuilder aggregates = new StringBuilder("count(*)");
        for (TypesDifferential.Column column : mergeable) {
            aggregates.append(", count(%1$s), %2$s, %3$s".formatted(column.name(), column.keyOf("min(" + column.name() + ")"), column.keyOf("max(" + column.name() + ")")));
        }
        aggregates.append(", sum(d18), avg(d18), sum(d19), avg(d19), CAST(sum(dz) + 0e0 AS varchar), CAST(avg(dz) + 0e0 AS varchar)");
        assertSameAsTheUnion("SELECT %s FROM %%s.types".formatted(aggregates));
        // the signed zeros as a pair (about six rows a group); the others three at a time
        List<List<String>> keySets = List.of(List.of("dz", "rz"), List.of("t0", "t3", "t12"), List.of("ts12", "vb", "u"), List.of("c", "d18", "d19", "d38"));
        assertThat(keySets.stream().mapToInt(List::size).sum()).isEqualTo(mergeable.size());
        for (List<String> keys : keySets) {
            String keyColumns = mergeable.stream().filter(column -> keys.contains(column.name())).map(column -> column.keyOf(column.name())).collect(joining(", "));
            assertSameAsTheUnion("SELECT %s, %s FROM %%s.types GROUP BY %s".formatted(keyColumns, aggregates, String.join(", ", keys)));
        }
        // DISTINCT and count(DISTINCT) of each, and count(DISTINCT) in groups: all pushed down as groupings
        StringBuilder distinct = new StringBuilder("SELECT 0");
        for (TypesDifferential.Column column : mergeable) {
            distinct.append(", (SELECT count(*) FROM (SELECT DISTINCT %1$s FROM %%1$s.types)), (SELECT count(DISTINCT %1$s) FROM %%1$s.types)".formatted(column.name()));
        }
        assertSameAsTheUnion(distinct.toString());
        assertSameAsTheUnion("SELECT DISTINCT CAST(dz + 0e0 AS varchar), CAST(rz + REAL '0' AS varchar) FROM (SELECT DISTINCT dz, rz FROM %s.types)");
        assertSameAsTheUnion("SELECT CAST(u AS varchar), count(DISTINCT dz) FROM %s.types GROUP BY u");
        assertSameAsTheUnion("SELECT c, count(DISTINCT rz) FROM %s.types GROUP BY c");
        assertThat(explain("SELECT DISTINCT dz FROM shards.shard.types")).contains("aggregation=groupBy=[dz]").doesNotContain("Aggregate[");
        assertThat(explain("SELECT count(DISTINCT rz) FROM shards.shard.types")).contains("aggregation=groupBy=[rz]");
        assertThat(explain("SELECT t12, min(vb), max(u) FROM shards.shard.types GROUP BY t12")).contains("[min(vb), max(u)]").doesNotContain("Aggregate[");
        // arrays, maps and rows are read; Trino groups, sorts and filters them
        assertThat(explain("SELECT a, count(*) FROM shards.shard.types GROUP BY a")).contains("Aggregate[");
        assertThat(explain("SELECT id FROM shards.shard.types ORDER BY r LIMIT 3")).contains("TopN[");
        assertSameAsTheUnion("SELECT json_format(CAST(transform(a, x -> CAST(x + 0e0 AS varchar)) AS json)), count(*), count(m) FROM %s.types GROUP BY a");

        // TopN by each kind of new key, ties broken by id
        for (String key : List.of("t12 DESC NULLS FIRST", "vb, u DESC", "c NULLS FIRST, dz", "rz DESC, d38")) {
            assertSameOrderedRows("SELECT id, %s FROM %%s.types ORDER BY %s, id LIMIT 17".formatted(types.fingerprints().substring("id, ".length()), key), "memory.local");
        }
        assertThat(explain("SELECT id FROM shards.shard.types ORDER BY t12 DESC, id LIMIT 3")).contains("topN=[t12 DESC NULLS LAST, id ASC NULLS LAST]");

        // filters on the new types, pushed (with exact literals) or kept by Trino; one statement, one scan each
        String filters = """
                SELECT 't12', id FROM %1$s.types WHERE t12 > TIMESTAMP '2020-11-01 01:30:00.123456789012 America/New_York'
                UNION ALL SELECT 't3', id FROM %1$s.types WHERE t3 = TIMESTAMP '2020-11-01 05:30:00.123 UTC'
                UNION ALL SELECT 'ts12', id FROM %1$s.types WHERE ts12 <= TIMESTAMP '2020-11-01 05:30:00.123456789012'
                UNION ALL SELECT 'vb', id FROM %1$s.types WHERE vb BETWEEN X'00' AND X'01ff'
                UNION ALL SELECT 'u', id FROM %1$s.types WHERE u IN (UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                UNION ALL SELECT 'c', id FROM %1$s.types WHERE c = 'a'
                UNION ALL SELECT 'dz', id FROM %1$s.types WHERE dz = 0 OR rz = -0.0
                UNION ALL SELECT 'a', id FROM %1$s.types WHERE a = ARRAY[-0e0] OR m IS NULL
                UNION ALL SELECT 'r', id FROM %1$s.types WHERE r.y = 'x' AND mk IS NOT NULL""";
        assertSameAsTheUnion(filters);
        assertThat(explain("SELECT id FROM shards.shard.types WHERE vb > X'01' AND u IS NOT NULL AND t12 < TIMESTAMP '2000-01-01 00:00:00 UTC'")).contains("filter=[").contains("vb").contains("t12");
    }

    /**
     * The same rows from the coordinator's local copy (the union of the shards' rows) and from the shards.
     */
    private void assertSameAsTheUnion(String template)
    {
        assertThat(sorted(coordinator.query(template.formatted(SHARDS)))).as(template).isEqualTo(sorted(coordinator.query(template.formatted("memory.local"))));
    }

    /**
     * The same rows from the coordinator's local copy, from the shards with aggregation pushdown and without.
     */
    private void assertSameEverywhere(String template)
    {
        List<String> expected = sorted(coordinator.query(template.formatted("memory.local")));
        assertThat(sorted(coordinator.query(template.formatted(SHARDS)))).as("%s, pushdown on", template).isEqualTo(expected);
        try (Connection connection = coordinator.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION shards.aggregation_pushdown = false");
            assertThat(sorted(TrinoProcessCluster.query(connection, template.formatted(SHARDS)))).as("%s, pushdown off", template).isEqualTo(expected);
        }
        catch (SQLException e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    void topNIsMergedInOrder()
    {
        assertSameOrderedRows("SELECT orderkey, totalprice FROM %s.orders ORDER BY totalprice DESC, orderkey LIMIT 25");
        assertSameOrderedRows("SELECT orderkey, clerk FROM %s.orders ORDER BY clerk ASC NULLS FIRST, orderkey DESC LIMIT 7");
        assertSameOrderedRows("SELECT orderdate, orderkey FROM %s.orders WHERE orderstatus = 'P' ORDER BY orderdate, orderkey LIMIT 1000");
        // the top rows all live on one shard
        assertSameOrderedRows("SELECT orderkey FROM %s.orders ORDER BY orderkey DESC LIMIT 5");
    }

    @Test
    void explainShowsThePushdowns()
            throws SQLException
    {
        String aggregation = explain("SELECT custkey, count(*), sum(totalprice) FROM shards.shard.orders WHERE orderstatus = 'F' GROUP BY custkey");
        assertThat(aggregation).contains("aggregation=groupBy=[custkey] [count(*), sum(totalprice)]").contains("filter=[orderstatus]").doesNotContain("Aggregate[");
        String topN = explain("SELECT orderkey FROM shards.shard.orders ORDER BY totalprice DESC LIMIT 3");
        assertThat(topN).contains("topN=[totalprice DESC NULLS LAST] limit=3").doesNotContain("TopN[");
        String limit = explain("SELECT orderkey FROM shards.shard.orders LIMIT 3");
        assertThat(limit).contains("limit=3");
        String global = explain("SELECT count(*), avg(totalprice) FROM shards.shard.orders");
        assertThat(global).contains("aggregation=groupBy=[] [count(*), avg(totalprice)]").doesNotContain("Aggregate[");
        // switched off per session: Trino pulls the rows and aggregates itself
        try (Connection connection = coordinator.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION shards.aggregation_pushdown = false");
            statement.execute("SET SESSION shards.topn_pushdown = false");
            assertThat(text(statement, "EXPLAIN SELECT custkey, count(*) FROM shards.shard.orders GROUP BY custkey")).contains("Aggregate[").doesNotContain("aggregation=");
            assertThat(text(statement, "EXPLAIN SELECT orderkey FROM shards.shard.orders ORDER BY totalprice DESC LIMIT 3")).contains("TopN").doesNotContain("topN=");
        }
    }

    @Test
    void aShardDownFailsTheQueryOrIsLeftOut()
    {
        assertThatThrownBy(() -> coordinator.query("SELECT count(*) FROM shards_fail.shard.orders"))
                .hasMessageContaining("Shard 3 (" + deadShard + ") failed");
        assertThatThrownBy(() -> coordinator.query("SELECT custkey, count(*) FROM shards_fail.shard.orders GROUP BY custkey"))
                .hasMessageContaining("Shard 3 (" + deadShard + ") failed");

        long liveRows = orderRanges.get(0).rows() + orderRanges.get(1).rows();
        long partialBefore = JmxAttributes.sum(coordinator.coordinator().jmxPort(), STATS + "shards_partial", "PartialResults");
        assertThat(coordinator.query("SELECT count(*) FROM shards_partial.shard.orders")).containsExactly(List.of(liveRows));
        assertThat(coordinator.query("SELECT count(*) FROM (SELECT orderkey FROM shards_partial.shard.orders WHERE orderkey > 0)")).containsExactly(List.of(liveRows));
        assertThat(coordinator.query("SELECT count(*) FROM shards_partial.shard.orders WHERE " + orderRanges.get(2).predicate("orderkey"))).containsExactly(List.of(0L));
        assertThat(JmxAttributes.sum(coordinator.coordinator().jmxPort(), STATS + "shards_partial", "PartialResults")).isGreaterThanOrEqualTo(partialBefore + 3);
        assertThat(JmxAttributes.sum(coordinator.coordinator().jmxPort(), STATS + "shards_partial", "ShardFailures")).isPositive();
    }

    @Test
    void aSlowReplicaIsHedged()
    {
        long winsBefore = JmxAttributes.sum(coordinator.coordinator().jmxPort(), STATS + "shards_hedged", "HedgeWins");
        assertThat(sorted(coordinator.query("SELECT custkey, count(*), max(orderkey) FROM shards_hedged.shard.orders GROUP BY custkey")))
                .isEqualTo(sorted(coordinator.query("SELECT custkey, count(*), max(orderkey) FROM tpch.tiny.orders GROUP BY custkey")));
        assertThat(JmxAttributes.sum(coordinator.coordinator().jmxPort(), STATS + "shards_hedged", "HedgedQueries")).isPositive();
        assertThat(JmxAttributes.sum(coordinator.coordinator().jmxPort(), STATS + "shards_hedged", "HedgeWins")).isGreaterThan(winsBefore);
    }

    @Test
    void shardsMustAgreeOnColumnTypes()
    {
        assertThatThrownBy(() -> coordinator.query("SELECT * FROM shards.shard.typed"))
                .hasMessageContaining("column 'amount' is bigint on shard 1 (%s) but varchar on shard 3 (%s)".formatted(shards.uri(1, "memory", "shard"), shards.uri(3, "memory", "shard")));
    }

    @Test
    void cancellingTheQueryCancelsTheShardQueries()
            throws Exception
    {
        for (String sql : List.of(
                "SELECT custkey, count(*) FROM shards_big.sf100.orders GROUP BY custkey",
                "SELECT orderkey, comment FROM shards_big.sf100.lineitem WHERE comment LIKE '%%never%%matches%%'")) {
            log("cancelling: " + sql);
            try (Connection connection = coordinator.connect(); Statement statement = connection.createStatement()) {
                CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
                    try (ResultSet resultSet = statement.executeQuery(sql)) {
                        while (resultSet.next()) {
                            // drain
                        }
                    }
                    catch (SQLException _) {
                        // cancelled below
                    }
                });
                // the shards see the pushed-down aggregation, or the scan below the LIKE (which is not pushed down)
                List<String> remote = awaitRunningShardQueries(sql.contains("GROUP BY") ? "GROUP BY" : "lineitem");
                statement.cancel();
                running.get(60, TimeUnit.SECONDS);
                for (String queryId : remote) {
                    awaitCancelled(queryId);
                }
            }
        }
    }

    private List<String> awaitRunningShardQueries(String sqlFragment)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            List<String> running = new ArrayList<>();
            for (int shard : shards.numbers()) {
                // the scans and aggregations the page sources run: planning also sends the shards queries naming the
                // table (its columns, SHOW STATS), which end on their own
                shards.query(shard, "SELECT query_id FROM system.runtime.queries WHERE source = 'overdrive_shards' AND state = 'RUNNING' AND query LIKE 'SELECT %" + sqlFragment + "%' AND query NOT LIKE '%information_schema%'")
                        .forEach(row -> running.add(shard + ":" + row.getFirst()));
            }
            if (running.size() == shards.size()) {
                return running;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the shard queries did not start");
    }

    private void awaitCancelled(String shardAndQuery)
            throws InterruptedException
    {
        int shard = Integer.parseInt(shardAndQuery.substring(0, shardAndQuery.indexOf(':')));
        String queryId = shardAndQuery.substring(shardAndQuery.indexOf(':') + 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        List<Object> last = null;
        while (System.nanoTime() < deadline) {
            last = shards.query(shard, "SELECT state, error_code FROM system.runtime.queries WHERE query_id = '" + queryId + "'").getFirst();
            if (last.getFirst().equals("FAILED")) {
                assertThat(last.get(1)).isEqualTo("USER_CANCELED");
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("shard %s query %s was not cancelled: %s".formatted(shard, queryId, last));
    }

    private void assertSameRows(String template)
    {
        List<List<Object>> expected = coordinator.query(template.formatted(LOCAL));
        List<List<Object>> actual = coordinator.query(template.formatted(SHARDS));
        assertThat(sorted(actual)).as(template).isEqualTo(sorted(expected));
    }

    private void assertSameOrderedRows(String template)
    {
        assertSameOrderedRows(template, LOCAL);
    }

    private void assertSameOrderedRows(String template, String local)
    {
        assertThat(coordinator.query(template.formatted(SHARDS))).as(template).isEqualTo(coordinator.query(template.formatted(local)));
    }

    private String explain(String sql)
            throws SQLException
    {
        try (Connection connection = coordinator.connect(); Statement statement = connection.createStatement()) {
            return text(statement, "EXPLAIN " + sql);
        }
    }

    private static String text(Statement statement, String sql)
            throws SQLException
    {
        try (ResultSet resultSet = statement.executeQuery(sql)) {
            StringBuilder text = new StringBuilder();
            while (resultSet.next()) {
                text.append(resultSet.getString(1)).append('\n');
            }
            return text.toString();
        }
    }

    private static List<String> sorted(List<List<Object>> rows)
    {
        return rows.stream().map(String::valueOf).sorted(Comparator.naturalOrder()).toList();
    }

    private static int closedPort()
            throws Exception
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void log(String message)
    {
        System.out.printf("%s TestShardsConnector: %s%n", java.time.LocalTime.now(), message);
    }

    // the harness itself: shard clusters, a TPC-H table split over them by key range, the slow/refusing TCP proxy

    @Test
    void memoryConnector()
    {
        assertThat(shards.execute(1, "CREATE TABLE memory.default.t AS SELECT * FROM tpch.tiny.nation")).isEqualTo(25);
        assertThat(shards.query(1, "SELECT count(*), sum(nationkey) FROM memory.default.t")).containsExactly(List.of(25L, 300L));
        assertThat(shards.uri(2, "memory", "shard")).isEqualTo(shards.httpUri(2) + "/memory/shard");
    }

    @Test
    void splitByKeyRange()
    {
        List<ShardRange> ranges = shards.loadSplit("tpch.tiny.orders", "orderkey", "memory.harness.orders");
        List<Object> source = shards.query(1, "SELECT count(*), min(orderkey), max(orderkey), sum(orderkey), sum(custkey) FROM tpch.tiny.orders").getFirst();
        assertThat(ranges).hasSize(shards.size());
        // contiguous, disjoint, covering [min, max]
        assertThat(ranges.getFirst().lowerInclusive()).isEqualTo(source.get(1));
        for (int range = 1; range < ranges.size(); range++) {
            assertThat(ranges.get(range - 1).upperExclusive()).isEqualTo(ranges.get(range).lowerInclusive());
        }
        assertThat(ranges.getLast().upperExclusive()).isEqualTo((long) source.get(2) + 1);

        long rows = 0;
        long orderkeys = 0;
        long custkeys = 0;
        for (ShardRange range : ranges) {
            List<Object> part = shards.query(range.shard(), "SELECT count(*), min(orderkey), max(orderkey), sum(orderkey), sum(custkey) FROM memory.harness.orders").getFirst();
            assertThat(part.get(0)).isEqualTo(range.rows());
            assertThat((long) part.get(0)).isPositive();
            assertThat((long) part.get(1)).isGreaterThanOrEqualTo(range.lowerInclusive());
            assertThat((long) part.get(2)).isLessThan(range.upperExclusive());
            rows += (long) part.get(0);
            orderkeys += (long) part.get(3);
            custkeys += (long) part.get(4);
        }
        assertThat(List.<Object>of(rows, orderkeys, custkeys)).isEqualTo(List.of(source.get(0), source.get(3), source.get(4)));

        // the same table on a subset of the shards: all of it on shard 2, nothing on shard 1
        List<ShardRange> one = shards.loadSplit("tpch.tiny.orders", "orderkey", "memory.harness.orders_on_2", List.of(2));
        assertThat(one).singleElement().satisfies(range -> assertThat(range.rows()).isEqualTo(source.get(0)));
        assertThat(shards.query(1, "SELECT count(*) FROM memory.information_schema.tables WHERE table_schema = 'harness' AND table_name = 'orders_on_2'")).containsExactly(List.of(0L));
    }

    @Test
    void proxyPassesTrinoProtocolThrough()
            throws Exception
    {
        try (SlowProxy proxy = SlowProxy.start(shards.httpUri(1))) {
            assertThat(selectOne(proxy)).isEqualTo(1);
            assertThat(proxy.acceptedConnections()).isPositive();

            // the Host header is the proxy's, so the server's nextUri points back at the proxy
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(proxy.httpUri().resolve("/v1/statement"))
                    .header("X-Trino-User", "overdrive")
                    .POST(HttpRequest.BodyPublishers.ofString("SELECT 1"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"nextUri\":\"" + proxy.httpUri());

            // a delay on every response: SELECT 1 takes several round trips
            long undelayed = timeSelectOne(proxy);
            proxy.setDelay(Duration.ofMillis(400));
            long delayed = timeSelectOne(proxy);
            assertThat(delayed).isGreaterThanOrEqualTo(2 * 400);
            proxy.setDelay(Duration.ZERO);
            System.out.printf("[overdrive-it] SELECT 1 through the proxy: %d ms, with 400 ms delay: %d ms%n", undelayed, delayed);

            proxy.setRefusing(true);
            assertThatThrownBy(() -> selectOne(proxy)).isInstanceOf(SQLException.class);
            assertThat(proxy.refusedConnections()).isPositive();
            proxy.setRefusing(false);
            assertThat(selectOne(proxy)).isEqualTo(1);
        }
    }

    private static long timeSelectOne(SlowProxy proxy)
            throws SQLException
    {
        long start = System.nanoTime();
        assertThat(selectOne(proxy)).isEqualTo(1);
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static int selectOne(SlowProxy proxy)
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", "overdrive");
        try (Connection connection = DriverManager.getConnection(proxy.jdbcUrl(), properties);
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery("SELECT 1")) {
            assertThat(resultSet.next()).isTrue();
            return resultSet.getInt(1);
        }
    }
}
