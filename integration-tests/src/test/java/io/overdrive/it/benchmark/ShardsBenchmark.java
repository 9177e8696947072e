package io.overdrive.it.benchmark;

import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.ShardClusters;
import io.overdrive.it.harness.ShardClusters.ShardRange;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.median;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shards connector's benchmark: a high-cardinality GROUP BY over one table spread over 4 and 8 shard clusters,
 * against the anchor a Trino user can run without Overdrive's merge. Trino 483 ships no connector for another Trino
 * cluster, so the anchor gives each shard a catalog of its own (a one-shard {@code overdrive_shards} catalog, standing in
 * for a plain remote connector) and combines them with {@code UNION ALL}, Trino's own aggregation on top, written two
 * ways: plainly (Trino's partial aggregation goes through the union but is not offered to the connectors, which only
 * get single-step aggregations: the shards send raw rows) and by hand as one {@code GROUP BY} per shard under a final
 * one (every shard aggregates, Trino combines). Then the {@code overdrive_shards} catalog over all the shards in three
 * modes: no pushdown ({@code aggregation_pushdown = false}: Trino pulls the raw rows and aggregates itself); the
 * aggregation pushed down to every shard and the shards' sorted partial results merged serially
 * ({@code merge_parallelism = '1'}) or by the parallel merge engine. Time as the client sees it and rows transferred
 * from the shards; {@code EXPLAIN} of every mode shows where it aggregates. Not part of the test run:
 * {@code ./overdrive bench shards} runs it ({@code -Doverdrive.benchmark=true}) and prints the Markdown report it writes
 * to {@code integration-tests/target/benchmarks/shards.md} (the plans to {@code shards-plans.txt} beside it).
 * <p>
 * Setup: 8 single-node Trino servers ({@link ShardClusters}, {@code tpch} and {@code memory} catalogs); TPC-H
 * {@code orders} split by contiguous ranges of a key into {@code memory.shard.t4} on shards 1-4 and
 * {@code memory.shard.t8} on shards 1-8 (the same rows both ways); a coordinator (one JVM that schedules on itself)
 * with the catalogs {@code shards4} (the 4 shards' URIs), {@code shards8} (all 8) and {@code shard_1} to
 * {@code shard_8} (one each). Two layouts, each its own tables: split by {@code orderkey} ({@code t4}, {@code t8}),
 * every customer's orders are on every shard, so each shard returns a partial group for most customers and the merge
 * combines them (the case of Druid's broker merge; pushdown then transfers only 2-4x fewer rows); split by
 * {@code custkey} ({@code t4_custkey}, {@code t8_custkey}), sharded by customer, each group comes from one shard (15x
 * fewer rows).
 * <p>
 * Before Trino is queried, the benchmark JVM queries the shards directly over JDBC, all in parallel: the raw rows the
 * query needs and each shard's partial aggregation, unsorted and sorted as the connector asks for it, combined here.
 * That checks the split (the combined partials equal the query on the source table, which is also the reference every
 * mode must return) and shows what the shards and the wire cost, without Trino on top.
 * <p>
 * Every mode runs {@code warmups} times per table first, then {@code repetitions} times, every mode in every
 * repetition, the order reversed every other repetition.
 * <p>
 * Settings (system properties, prefix {@code overdrive.benchmark.shards.}): {@code scale} (TPC-H scale factor, default
 * 1: 1.5M orders, 100K customers with orders), {@code split-by} (the layouts, default {@code orderkey,custkey}),
 * {@code repetitions} (measured runs per table and mode, default 3), {@code warmups} (per table and mode, default 1),
 * {@code shard-heap} (default 1g), {@code coordinator-heap} (default 2g), {@code catalog-properties} (extra properties of
 * every connector catalog, {@code k=v,k=v}).
 */
public class ShardsBenchmark
{
    static final int SHARDS = 8;
    static final List<Integer> SHARD_COUNTS = List.of(4, 8);
    static final String SCHEMA = "shard";
    static final String QUERY = "SELECT custkey, count(*), sum(totalprice), min(orderdate), max(orderdate) FROM %s GROUP BY custkey";
    // what Trino reads from the shards without aggregation pushdown (the query's columns)
    static final String RAW_QUERY = "SELECT custkey, totalprice, orderdate FROM %s";
    // the anchor written by hand: one GROUP BY per shard, combined by a final GROUP BY
    static final String PARTIAL_QUERY = "SELECT custkey, count(*) AS order_count, sum(totalprice) AS price_sum, min(orderdate) AS first_date, max(orderdate) AS last_date FROM %s GROUP BY custkey";
    static final String FINAL_QUERY = "SELECT custkey, sum(order_count), sum(price_sum), min(first_date), max(last_date) FROM (%s) GROUP BY custkey";
    // what the connector asks each shard to run when it pushes the aggregation down: sorted for the merge
    static final String SORTED_PARTIAL_QUERY = QUERY + " ORDER BY custkey";
    // the anchor's catalogs: one overdrive_shards catalog per shard, one URI each
    static final String ONE_SHARD_CATALOG = "shard_%d";
    static final String STATS_MBEAN = "io.overdrive.merge.shards:type=ShardsStats,name=%s";
    static final List<String> COUNTERS = List.of("RemoteQueries", "RowsReceived", "HedgedQueries", "HedgeWins", "ShardFailures");
    static final double GOAL = 5.0;
    // a plan node's first line, after the tree's drawing (U+2500): "Aggregate[type = FINAL, keys = [custkey]]"
    static final Pattern AGGREGATE_STEP = Pattern.compile("(?:^|[\\s\\x{2500}])Aggregate\\[(?:type = (\\w+))?");
    static final Pattern SCAN = Pattern.compile("(?:^|[\\s\\x{2500}])(?:TableScan|ScanFilterProject|ScanProject|ScanFilter)\\[table = ");

    /**
     * How the query reaches the shards. The first two are the anchor, what a Trino 483 user can do without Overdrive's
     * merge: Trino ships no connector for another Trino cluster, so each shard is one catalog of its own (here a
     * one-shard {@code overdrive_shards} catalog, standing in for a plain remote connector with aggregation pushdown)
     * and the query combines them with {@code UNION ALL}. Written plainly, Trino aggregates the shards' raw rows (its
     * partial aggregation goes through the union, but only a single-step aggregation is offered to a connector, so no
     * shard aggregates); written by hand as one {@code GROUP BY} per shard under a final one, every shard aggregates
     * its own rows and Trino combines the partial results with its own final aggregation.
     */
    enum Mode
    {
        UNION("UNION ALL, Trino aggregates", false),
        UNION_PARTIAL("UNION ALL of per-shard GROUP BYs", false),
        NO_PUSHDOWN("no pushdown", true, "aggregation_pushdown = false", "merge_parallelism = 'auto'"),
        SERIAL("pushdown + serial merge", true, "aggregation_pushdown = true", "merge_parallelism = '1'"),
        PARALLEL("pushdown + parallel merge", true, "aggregation_pushdown = true", "merge_parallelism = 'auto'");

        final String label;
        // through the table's shards catalog; otherwise through the one-shard catalogs
        final boolean connector;
        final List<String> session;

        Mode(String label, boolean connector, String... session)
        {
            this.label = label;
            this.connector = connector;
            this.session = List.of(session);
        }

        String sql(Table table)
        {
            return switch (this) {
                case UNION -> QUERY.formatted("(%s)".formatted(union(table, RAW_QUERY)));
                case UNION_PARTIAL -> FINAL_QUERY.formatted(union(table, PARTIAL_QUERY));
                case NO_PUSHDOWN, SERIAL, PARALLEL -> QUERY.formatted(table.qualified());
            };
        }

        List<String> session(Table table)
        {
            return session.stream().map(setting -> "SET SESSION %s.%s".formatted(table.catalog(), setting)).toList();
        }

        // the catalogs' ShardsStats MBeans whose counters the mode moves
        String statsPattern(Table table)
        {
            return STATS_MBEAN.formatted(connector ? table.catalog() : ONE_SHARD_CATALOG.replace("%d", "*"));
        }

        private static String union(Table table, String branch)
        {
            return String.join(" UNION ALL ", table.shardNumbers().stream()
                    .map(shard -> branch.formatted("%s.%s.%s".formatted(ONE_SHARD_CATALOG.formatted(shard), SCHEMA, table.name())))
                    .toList());
        }
    }

    record Run(double millis, long rows, Map<String, Long> counters, boolean same) {}

    // one table: a layout (the key the rows are split by) over a number of shards
    record Table(String splitBy, int shards)
    {
        // orderkey's are t4 and t8, the other layouts' t4_<key> and t8_<key>
        String name()
        {
            return "t%d%s".formatted(shards, splitBy.equals("orderkey") ? "" : "_" + splitBy);
        }

        String local()
        {
            return "memory.%s.%s".formatted(SCHEMA, name());
        }

        String catalog()
        {
            return ShardsBenchmark.catalog(shards);
        }

        String qualified()
        {
            return "%s.%s.%s".formatted(catalog(), SCHEMA, name());
        }

        List<Integer> shardNumbers()
        {
            return IntStream.rangeClosed(1, shards).boxed().toList();
        }

        @Override
        public String toString()
        {
            return "%d shards, split by %s".formatted(shards, splitBy);
        }
    }

    private final String scale = System.getProperty("overdrive.benchmark.shards.scale", "1");
    private final List<String> layouts = Stream.of(System.getProperty("overdrive.benchmark.shards.split-by", "orderkey,custkey").split(","))
            .map(String::strip).filter(key -> !key.isEmpty()).toList();
    private final int repetitions = Integer.getInteger("overdrive.benchmark.shards.repetitions", 3);
    private final int warmups = Integer.getInteger("overdrive.benchmark.shards.warmups", 1);
    private final String shardHeap = System.getProperty("overdrive.benchmark.shards.shard-heap", "1g");
    private final String coordinatorHeap = System.getProperty("overdrive.benchmark.shards.coordinator-heap", "2g");
    private final Map<String, String> catalogProperties = properties(System.getProperty("overdrive.benchmark.shards.catalog-properties", ""));

    private final List<Double> loadSamples = Collections.synchronizedList(new ArrayList<>());
    private final List<String> mismatches = new ArrayList<>();
    private List<List<Object>> expected;
    private List<Table> tables;

    @Test
    void shardsBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the shards benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench shards");
        Instant started = Instant.now();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> loadSamples.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()), 0, 5, TimeUnit.SECONDS);
        Path work = TestingHdfs.workDirectory().resolve("shards-benchmark");
        TrinoProcessCluster.deleteRecursively(work);
        Files.createDirectories(work);
        ProjectLayout layout = ProjectLayout.fromSystemProperty();

        StringBuilder report = new StringBuilder();
        Exception failure = null;
        try (ShardClusters shards = ShardClusters.builder(layout, work.resolve("shards")).shards(SHARDS).heapSize(shardHeap).start()) {
            report.append(setUp(shards, started));
            report.append(direct(shards));

            long start = System.nanoTime();
            log("starting the coordinator");
            try (TrinoProcessCluster coordinator = startCoordinator(layout, work, shards)) {
                double coordinatorSeconds = seconds(start);
                log("coordinator up in %.1f s".formatted(coordinatorSeconds));
                report.append(("Coordinator: one JVM (`-Xmx%s`, schedules on itself), catalogs `shards4` and `shards8` (`connector.name=overdrive_shards`, the 4 and the 8 shards' URIs%s) "
                        + "and, for the anchor, one catalog per shard, `shard_1` to `shard_8` (each an `overdrive_shards` catalog with one URI: Trino 483 ships no connector for another Trino cluster), up in %.1f s.\n\n")
                        .formatted(coordinatorHeap, catalogProperties.isEmpty() ? "" : ", " + catalogProperties, coordinatorSeconds));
                report.append(("Anchor, what a user can do without Overdrive's merge: one catalog per shard, combined with `UNION ALL`, Trino's own aggregation on top. Two ways to write it:\n\n"
                        + "- **UNION ALL** (two shards shown): `%s`. Trino pushes its partial aggregation through the union, but offers only a single-step aggregation to a connector, so the shards send raw rows and Trino aggregates them.\n"
                        + "- **UNION ALL of per-shard GROUP BYs**, written by hand: `%s`. Each branch's aggregation is pushed down, so every shard aggregates its own rows (the one-shard catalog asks it for them sorted, `ORDER BY custkey`, which a plain remote connector would not); Trino's final aggregation combines the partial results.\n\n")
                        .formatted(example(Mode.UNION), example(Mode.UNION_PARTIAL)));
                report.append(plans(coordinator));
                Map<Table, Map<Mode, List<Run>>> runs = measure(coordinator);
                report.append(results(runs));
            }
        }
        catch (Exception e) {
            // the report of what ran, then the failure
            failure = e;
            String message = String.valueOf(e.getMessage());
            // a server that did not start: the line of its log that says why
            String reason = message.lines().filter(line -> line.contains("ERROR")).findFirst().map(line -> ": " + line.replaceAll("\\x1B\\[[0-9;]*m", "").strip()).orElse("");
            report.append("\n**The benchmark failed:** `%s`%s\n".formatted(message.lines().findFirst().orElse(""), reason));
        }
        finally {
            sampler.shutdownNow();
        }
        String markdown = header(started, Duration.between(started, Instant.now())) + report;
        Path output = writeReport("shards.md", markdown);
        log("report written to " + output);
        if (failure != null) {
            throw failure;
        }
        assertTrue(mismatches.isEmpty(), "every mode must return the source table's result: " + mismatches);
    }

    private String setUp(ShardClusters shards, Instant started)
    {
        double startup = Duration.between(started, Instant.now()).toMillis() / 1e3;
        String source = "tpch.\"sf%s\".orders".formatted(scale);
        StringBuilder out = new StringBuilder();
        out.append("Shards: %d single-node Trino servers (`-Xmx%s` each, catalogs `tpch` and `memory`), started in parallel in %.1f s.\n\n".formatted(SHARDS, shardHeap, startup));
        tables = new ArrayList<>();
        for (String layout : layouts) {
            for (int count : SHARD_COUNTS) {
                tables.add(new Table(layout, count));
            }
        }
        long start = System.nanoTime();
        long rows = 0;
        StringBuilder parts = new StringBuilder();
        for (Table table : tables) {
            List<ShardRange> ranges = shards.loadSplit(source, table.splitBy(), table.local(), table.shardNumbers());
            rows = ranges.stream().mapToLong(ShardRange::rows).sum();
            parts.append("- `%s` (%s): %s\n".formatted(table.local(), table, String.join(", ", ranges.stream()
                    .map(range -> "%d: %,d".formatted(range.shard(), range.rows()))
                    .toList())));
        }
        double loadSeconds = seconds(start);
        out.append("Data: TPC-H `orders` at scale factor %s (%,d rows), split by contiguous key ranges, each layout into a table on shards 1-4 and one on shards 1-8, loaded in %.1f s (each shard generates the table for each of its tables and keeps its range). Rows per shard:\n\n"
                .formatted(scale, rows, loadSeconds));
        out.append(parts);
        // the reference: the query on the source table, on one shard
        start = System.nanoTime();
        expected = sorted(shards.query(1, QUERY.formatted(source)));
        log("reference result: %,d groups in %.1f s".formatted(expected.size(), seconds(start)));
        out.append("\nQuery: `%s` (%,d groups), every row fetched over JDBC by the benchmark JVM; each mode's result must equal the query's on `%s`.\n\n"
                .formatted(QUERY.formatted("<catalog>.shard.<table>"), expected.size(), source));
        return out.toString();
    }

    // the shards queried directly from here over JDBC, in parallel: what each mode has to move, without the connector
    private String direct(ShardClusters shards)
    {
        StringBuilder out = new StringBuilder("Without Trino on top: the benchmark JVM queries the shards directly over JDBC, all in parallel, and fetches every row "
                + "(raw = the query's columns, what Trino pulls when no shard aggregates; partial = each shard's GROUP BY, combined here, which must equal the reference; "
                + "sorted partial = the same with `ORDER BY custkey`, what the connector asks each shard for when it pushes the aggregation down, so that it can merge). One run each, after the load:\n\n"
                + "| table | shards | split by | raw rows | raw ms | partial rows | partial ms | sorted partial ms | rows raw/partial | combined = reference |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Table table : tables) {
            List<Integer> numbers = table.shardNumbers();
            long start = System.nanoTime();
            long rawRows = ShardClusters.onEach(numbers, shard -> (long) fetch(shards, shard, RAW_QUERY.formatted(table.local())).size()).stream().mapToLong(Long::longValue).sum();
            double rawMillis = millis(start);
            start = System.nanoTime();
            List<List<List<Object>>> partials = ShardClusters.onEach(numbers, shard -> fetch(shards, shard, QUERY.formatted(table.local())));
            double partialMillis = millis(start);
            long partialRows = partials.stream().mapToLong(List::size).sum();
            boolean same = ResultRows.same(combine(partials), expected);
            start = System.nanoTime();
            List<List<List<Object>>> sortedPartials = ShardClusters.onEach(numbers, shard -> fetch(shards, shard, SORTED_PARTIAL_QUERY.formatted(table.local())));
            double sortedMillis = millis(start);
            same &= ResultRows.same(combine(sortedPartials), expected);
            if (!same) {
                mismatches.add("%s: partial aggregates combined".formatted(table));
            }
            log("direct, %s: raw %,d rows in %s ms, partial %,d rows in %s ms (sorted %s ms), combined = reference: %s".formatted(
                    table, rawRows, formatMillis(rawMillis), partialRows, formatMillis(partialMillis), formatMillis(sortedMillis), same));
            out.append("| `%s` | %d | %s | %,d | %s | %,d | %s | %s | %.1fx | %s |\n".formatted(table.name(), table.shards(), table.splitBy(), rawRows, formatMillis(rawMillis), partialRows,
                    formatMillis(partialMillis), formatMillis(sortedMillis), (double) rawRows / partialRows, same ? "yes" : "**no**"));
        }
        return out.append('\n').toString();
    }

    private TrinoProcessCluster startCoordinator(ProjectLayout layout, Path work, ShardClusters shards)
    {
        TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(layout, work.resolve("coordinator"))
                .workers(0)
                .heapSize(coordinatorHeap)
                .coordinatorProperty("node-scheduler.include-coordinator", "true")
                .catalog("tpch", "tpch", Map.of());
        for (int count : SHARD_COUNTS) {
            Map<String, String> properties = new LinkedHashMap<>();
            properties.put("shards.uris", shards.uris(IntStream.rangeClosed(1, count).boxed().toList(), "memory", SCHEMA));
            properties.putAll(catalogProperties);
            builder.catalog(catalog(count), "overdrive_shards", properties);
        }
        // the anchor: one catalog per shard, as a user without Overdrive's merge would configure a remote connector
        for (int shard = 1; shard <= SHARDS; shard++) {
            Map<String, String> properties = new LinkedHashMap<>();
            properties.put("shards.uris", shards.uri(shard, "memory", SCHEMA));
            properties.putAll(catalogProperties);
            builder.catalog(ONE_SHARD_CATALOG.formatted(shard), "overdrive_shards", properties);
        }
        try {
            return builder.start();
        }
        catch (RuntimeException e) {
            throw new IllegalStateException("the coordinator with the overdrive_shards catalogs did not start: " + e.getMessage(), e);
        }
    }

    // where each mode's plan aggregates: Trino's Aggregate nodes, and the scans whose shard aggregates (pushed down)
    private String plans(TrinoProcessCluster coordinator)
            throws SQLException, IOException
    {
        StringBuilder out = new StringBuilder("Plans (`EXPLAIN`; the plans are in `shards-plans.txt`): Trino's `Aggregate` nodes by step, and the table scans that carry a pushed-down aggregation (their shard aggregates):\n\n"
                + "| table | mode | Trino's Aggregate nodes | scans aggregated by their shard |\n|---|---|---|---:|\n");
        StringBuilder plans = new StringBuilder();
        for (Table table : tables) {
            for (Mode mode : Mode.values()) {
                try (Connection connection = connect(coordinator, table, mode); Statement statement = connection.createStatement();
                        ResultSet resultSet = statement.executeQuery("EXPLAIN " + mode.sql(table))) {
                    resultSet.next();
                    String plan = resultSet.getString(1);
                    plans.append("-- %s, %s\n%s\n\n%s\n\n".formatted(table, mode.label, mode.sql(table), plan));
                    Map<String, Long> steps = new TreeMap<>();
                    plan.lines().forEach(line -> {
                        Matcher step = AGGREGATE_STEP.matcher(line);
                        if (step.find()) {
                            steps.merge(step.group(1) == null ? "SINGLE" : step.group(1), 1L, Long::sum);
                        }
                    });
                    long scans = plan.lines().filter(line -> SCAN.matcher(line).find()).count();
                    long aggregated = plan.lines().filter(line -> SCAN.matcher(line).find() && line.contains("aggregation=")).count();
                    String nodes = steps.isEmpty() ? "none" : String.join(", ", steps.entrySet().stream().map(entry -> "%d %s".formatted(entry.getValue(), entry.getKey())).toList());
                    log("plan, %s, %s: Aggregate nodes %s, %d of %d scans aggregated by their shard".formatted(table, mode.label, nodes, aggregated, scans));
                    out.append("| `%s` | %s | %s | %d of %d |\n".formatted(table.name(), mode.label, nodes, aggregated, scans));
                    // the modes are what the report says they are, or the benchmark fails
                    long expectedScans = mode.connector ? 1 : table.shards();
                    long expectedAggregated = switch (mode) {
                        case UNION, NO_PUSHDOWN -> 0;
                        case UNION_PARTIAL -> table.shards();
                        case SERIAL, PARALLEL -> 1;
                    };
                    boolean trinoAggregates = !steps.isEmpty();
                    if (scans != expectedScans || aggregated != expectedAggregated || trinoAggregates == (mode == Mode.SERIAL || mode == Mode.PARALLEL)) {
                        mismatches.add("%s, %s: the plan has %d scans, %d of them aggregated by their shard, and Trino's Aggregate nodes %s; expected %d, %d and %s"
                                .formatted(table, mode.label, scans, aggregated, nodes, expectedScans, expectedAggregated, mode == Mode.SERIAL || mode == Mode.PARALLEL ? "none" : "some"));
                    }
                }
            }
        }
        Path output = Path.of(System.getProperty("overdrive.repo", "..")).toAbsolutePath().normalize().resolve("integration-tests/target/benchmarks/shards-plans.txt");
        Files.createDirectories(output.getParent());
        Files.writeString(output, plans);
        log("plans written to " + output);
        return out.append('\n').toString();
    }

    private Map<Table, Map<Mode, List<Run>>> measure(TrinoProcessCluster coordinator)
            throws SQLException
    {
        Map<Table, Map<Mode, List<Run>>> runs = new LinkedHashMap<>();
        for (Table table : tables) {
            Map<Mode, List<Run>> byMode = new LinkedHashMap<>();
            for (Mode mode : Mode.values()) {
                for (int warmup = 0; warmup < warmups; warmup++) {
                    Run run = run(coordinator, table, mode);
                    log("%s, %s, warm-up: %s ms, %,d rows received".formatted(table, mode.label, formatMillis(run.millis()), run.counters().getOrDefault("RowsReceived", -1L)));
                }
                byMode.put(mode, new ArrayList<>());
            }
            // every mode in every repetition, in turn, the order reversed every other repetition (ABBA): a drift of
            // the machine, or what a run leaves behind for the next one, affects every mode alike
            for (int repetition = 1; repetition <= repetitions; repetition++) {
                for (Mode mode : order(repetition)) {
                    Run run = run(coordinator, table, mode);
                    byMode.get(mode).add(run);
                    log("%s, %s, run %d: %s ms, %,d rows received".formatted(table, mode.label, repetition, formatMillis(run.millis()), run.counters().getOrDefault("RowsReceived", -1L)));
                }
            }
            runs.put(table, byMode);
        }
        return runs;
    }

    // the modes' order in a repetition (from 1): as declared in odd ones, reversed in even ones
    static List<Mode> order(int repetition)
    {
        List<Mode> order = new ArrayList<>(List.of(Mode.values()));
        if (repetition % 2 == 0) {
            Collections.reverse(order);
        }
        return order;
    }

    private Run run(TrinoProcessCluster coordinator, Table table, Mode mode)
            throws SQLException
    {
        String pattern = mode.statsPattern(table);
        int jmxPort = coordinator.coordinator().jmxPort();
        try (Connection connection = connect(coordinator, table, mode); Statement statement = connection.createStatement()) {
            Map<String, Long> before = JmxAttributes.counters(jmxPort, pattern);
            long start = System.nanoTime();
            List<List<Object>> rows = new ArrayList<>();
            try (ResultSet resultSet = statement.executeQuery(mode.sql(table))) {
                while (resultSet.next()) {
                    rows.add(row(resultSet));
                }
            }
            double millis = millis(start);
            Map<String, Long> after = JmxAttributes.counters(jmxPort, pattern);
            Map<String, Long> counters = new TreeMap<>();
            after.forEach((name, value) -> counters.put(name, value - before.getOrDefault(name, 0L)));
            boolean same = ResultRows.same(sorted(rows), expected);
            if (!same) {
                mismatches.add("%s, %s: %,d rows, not the reference's %,d or different values".formatted(table, mode.label, rows.size(), expected.size()));
            }
            return new Run(millis, rows.size(), counters, same);
        }
    }

    private static Connection connect(TrinoProcessCluster coordinator, Table table, Mode mode)
            throws SQLException
    {
        Connection connection = coordinator.connect();
        try (Statement statement = connection.createStatement()) {
            for (String set : mode.session(table)) {
                statement.execute(set);
            }
        }
        catch (SQLException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    private String results(Map<Table, Map<Mode, List<Run>>> runs)
    {
        StringBuilder out = new StringBuilder(("Measured: %d warm-up run(s) per table and mode, then %d measured runs, every mode in every repetition, in the order %s, reversed every other repetition. "
                + "Time = from executing the query to its last row fetched (JDBC, as a client sees it); rows transferred = the catalogs' `RowsReceived` (`%s`) over the run.\n\n")
                .formatted(warmups, repetitions, String.join(", ", Stream.of(Mode.values()).map(mode -> mode.label).toList()), STATS_MBEAN.formatted("<catalog>")));
        out.append("| table | shards | split by | mode | median ms | min ms | max ms | rows transferred | vs UNION ALL | vs UNION ALL of per-shard GROUP BYs | rows vs UNION ALL | remote queries | shard failures | same result |\n");
        out.append("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Map.Entry<Table, Map<Mode, List<Run>>> shardRuns : runs.entrySet()) {
            List<Run> union = shardRuns.getValue().get(Mode.UNION);
            List<Run> unionPartial = shardRuns.getValue().get(Mode.UNION_PARTIAL);
            for (Map.Entry<Mode, List<Run>> modeRuns : shardRuns.getValue().entrySet()) {
                List<Run> measured = modeRuns.getValue();
                out.append("| `%s` | %d | %s | %s | %s | %s | %s | %s | %.2fx | %.2fx | %s | %s | %s | %s |\n".formatted(
                        shardRuns.getKey().name(),
                        shardRuns.getKey().shards(),
                        shardRuns.getKey().splitBy(),
                        modeRuns.getKey().label,
                        formatMillis(medianMillis(measured)),
                        formatMillis(measured.stream().mapToDouble(Run::millis).min().orElseThrow()),
                        formatMillis(measured.stream().mapToDouble(Run::millis).max().orElseThrow()),
                        counter(measured, "RowsReceived", value -> "%,d".formatted(value)),
                        medianMillis(union) / medianMillis(measured),
                        medianMillis(unionPartial) / medianMillis(measured),
                        counter(measured, "RowsReceived", value -> "%.1fx".formatted((double) medianCounter(union, "RowsReceived") / value)),
                        counter(measured, "RemoteQueries", value -> Long.toString(value)),
                        counter(measured, "ShardFailures", value -> Long.toString(value)),
                        measured.stream().allMatch(Run::same) ? "yes" : "**no**"));
            }
        }
        out.append("\nvs UNION ALL: the median time of the plain UNION ALL over this mode's (above 1 = faster); vs UNION ALL of per-shard GROUP BYs: the same against the hand-written one; "
                + "rows vs UNION ALL: rows transferred by the plain UNION ALL over this mode's. Counters are medians over the measured runs; - = the MBean or attribute is missing.\n\n");
        out.append("| table | parallel merge vs UNION ALL | vs UNION ALL of per-shard GROUP BYs | vs no pushdown (goal: >= %.0fx) | goal met? |\n|---|---:|---:|---:|---|\n".formatted(GOAL));
        for (Map.Entry<Table, Map<Mode, List<Run>>> shardRuns : runs.entrySet()) {
            double parallel = medianMillis(shardRuns.getValue().get(Mode.PARALLEL));
            double noPushdown = medianMillis(shardRuns.getValue().get(Mode.NO_PUSHDOWN)) / parallel;
            out.append("| `%s` (%s) | %.2fx | %.2fx | %.2fx | %s |\n".formatted(shardRuns.getKey().name(), shardRuns.getKey(),
                    medianMillis(shardRuns.getValue().get(Mode.UNION)) / parallel,
                    medianMillis(shardRuns.getValue().get(Mode.UNION_PARTIAL)) / parallel,
                    noPushdown, noPushdown >= GOAL ? "yes" : "no"));
        }
        return out.append('\n').toString();
    }

    private static double medianMillis(List<Run> runs)
    {
        return median(runs.stream().map(Run::millis).toList());
    }

    private static long medianCounter(List<Run> runs, String name)
    {
        if (runs.stream().anyMatch(run -> !run.counters().containsKey(name))) {
            return -1;
        }
        return (long) median(runs.stream().map(run -> (double) run.counters().get(name)).toList());
    }

    private static String counter(List<Run> runs, String name, Function<Long, String> format)
    {
        long value = medianCounter(runs, name);
        return value < 0 ? "-" : format.apply(value);
    }

    private String header(Instant started, Duration elapsed)
    {
        double mean = loadSamples.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double max = loadSamples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        return "Run %s, %.0f s. Machine: %d CPUs (`nproc`), %.1f GiB memory, JDK %s (%s), Trino %s. Load average (1 min) during the run: mean %.2f, max %.2f (%d samples, every 5 s). All JVMs on loopback, on these CPUs.\n\n".formatted(
                started.toString().replaceAll("\\.\\d+Z$", "Z"), elapsed.toMillis() / 1e3, Runtime.getRuntime().availableProcessors(), memory / 1024.0 / 1024 / 1024,
                System.getProperty("java.version"), System.getProperty("java.vm.name"), ProjectLayout.TRINO_VERSION, mean, max, loadSamples.size());
    }

    // the partial aggregates of the shards, combined per customer: count and sum add up, min and max
    @SuppressWarnings("unchecked")
    static List<List<Object>> combine(List<List<List<Object>>> partials)
    {
        Map<Object, List<Object>> groups = new TreeMap<>();
        for (List<List<Object>> shard : partials) {
            for (List<Object> row : shard) {
                groups.merge(row.getFirst(), new ArrayList<>(row), (left, right) -> {
                    left.set(1, (long) left.get(1) + (long) right.get(1));
                    left.set(2, (double) left.get(2) + (double) right.get(2));
                    left.set(3, Collections.min(List.of((Comparable<Object>) left.get(3), (Comparable<Object>) right.get(3))));
                    left.set(4, Collections.max(List.of((Comparable<Object>) left.get(4), (Comparable<Object>) right.get(4))));
                    return left;
                });
            }
        }
        return List.copyOf(groups.values());
    }

    private static List<List<Object>> sorted(List<List<Object>> rows)
    {
        List<List<Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(row -> (long) row.getFirst()));
        return sorted;
    }

    private static List<List<Object>> fetch(ShardClusters shards, int shard, String sql)
    {
        try (Connection connection = shards.shard(shard).connect(); Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
            List<List<Object>> rows = new ArrayList<>();
            while (resultSet.next()) {
                rows.add(row(resultSet));
            }
            return rows;
        }
        catch (SQLException e) {
            throw new RuntimeException("shard %d: %s: %s".formatted(shard, sql, e.getMessage()), e);
        }
    }

    private static List<Object> row(ResultSet resultSet)
            throws SQLException
    {
        int columns = resultSet.getMetaData().getColumnCount();
        List<Object> row = new ArrayList<>(columns);
        for (int column = 1; column <= columns; column++) {
            row.add(resultSet.getObject(column));
        }
        return row;
    }

    static String catalog(int shardCount)
    {
        return "shards" + shardCount;
    }

    // a mode's SQL over two shards, the table left open
    private static String example(Mode mode)
    {
        Table table = new Table("orderkey", 2);
        return mode.sql(table).replace("." + table.name() + " ", ".<table> ").replace("." + table.name() + ")", ".<table>)");
    }

    private static Map<String, String> properties(String list)
    {
        Map<String, String> properties = new LinkedHashMap<>();
        Stream.of(list.split(",")).map(String::strip).filter(entry -> !entry.isEmpty()).forEach(entry -> {
            String[] parts = entry.split("=", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("overdrive.benchmark.shards.catalog-properties: not k=v: " + entry);
            }
            properties.put(parts[0].strip(), parts[1].strip());
        });
        return properties;
    }

    private static double millis(long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    private static double seconds(long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static void log(String message)
    {
        System.out.println("[overdrive-bench-shards] " + message);
    }
}
