package io.overdrive.it.benchmark;

import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.ShardClusters;
import io.overdrive.it.harness.ShardClusters.ShardRange;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.Test;

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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.median;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue #10's benchmark: a high-cardinality GROUP BY over one table spread over 4 and 8 shard clusters, read through
 * the {@code overdrive_shards} connector in three modes: the aggregation pushed down to every shard and the shards'
 * sorted partial results merged by the parallel merge engine; pushed down and merged serially
 * ({@code merge_parallelism = '1'}); not pushed down ({@code aggregation_pushdown = false}: Trino pulls the raw rows
 * and aggregates itself). Time as the client sees it and rows transferred from the shards. Goal: at least 5x over no
 * pushdown. Not part of the test run: {@code ./overdrive bench shards} runs it ({@code -Doverdrive.benchmark=true}) and
 * prints the Markdown report it writes to {@code integration-tests/target/benchmarks/shards.md}.
 * <p>
 * Setup: 8 single-node Trino servers ({@link ShardClusters}, {@code tpch} and {@code memory} catalogs); TPC-H
 * {@code orders} split by contiguous ranges of a key into {@code memory.shard.t4} on shards 1-4 and
 * {@code memory.shard.t8} on shards 1-8 (the same rows both ways); a coordinator (one JVM that schedules on itself)
 * with the catalogs {@code shards4} (the 4 shards' URIs) and {@code shards8} (all 8). Two layouts, each its own tables:
 * split by {@code orderkey} ({@code t4}, {@code t8}), every customer's orders are on every shard, so each shard returns
 * a partial group for most customers and the merge combines them (the case of Druid's broker merge; pushdown then
 * transfers only 2-4x fewer rows); split by {@code custkey} ({@code t4_custkey}, {@code t8_custkey}), sharded by
 * customer, each group comes from one shard (15x fewer rows).
 * <p>
 * Before the connector is queried, the benchmark JVM queries the shards directly over JDBC, all in parallel: the raw
 * rows the query needs and each shard's partial aggregation, combined here. That checks the split (the combined
 * partials equal the query on the source table, which is also the reference every mode must return) and shows what
 * the connector's two ways transfer, without it.
 * <p>
 * Settings (system properties, prefix {@code overdrive.benchmark.shards.}): {@code scale} (TPC-H scale factor, default
 * 1: 1.5M orders, 100K customers with orders), {@code split-by} (the layouts, default {@code orderkey,custkey}),
 * {@code repetitions} (measured runs per table and mode, default 3, the modes in turn), {@code warmups} (per table and
 * mode, default 1),
 * {@code shard-heap} (default 1g), {@code coordinator-heap} (default 2g), {@code catalog-properties} (extra properties of
 * both connector catalogs, {@code k=v,k=v}).
 */
public class ShardsBenchmark
{
    static final int SHARDS = 8;
    static final List<Integer> SHARD_COUNTS = List.of(4, 8);
    static final String SCHEMA = "shard";
    static final String QUERY = "SELECT custkey, count(*), sum(totalprice), min(orderdate), max(orderdate) FROM %s GROUP BY custkey";
    // what Trino reads from the shards without aggregation pushdown (the query's columns)
    static final String RAW_QUERY = "SELECT custkey, totalprice, orderdate FROM %s";
    static final String STATS_MBEAN = "io.overdrive.merge.shards:type=ShardsStats,name=%s";
    static final List<String> COUNTERS = List.of("RemoteQueries", "RowsReceived", "HedgedQueries", "HedgeWins", "ShardFailures");
    static final double GOAL = 5.0;
    static final int DIRECT_RUNS = 1;

    enum Mode
    {
        PARALLEL("pushdown + parallel merge", "SET SESSION %s.aggregation_pushdown = true", "SET SESSION %s.merge_parallelism = 'auto'"),
        SERIAL("pushdown + serial merge", "SET SESSION %s.aggregation_pushdown = true", "SET SESSION %s.merge_parallelism = '1'"),
        NO_PUSHDOWN("no pushdown", "SET SESSION %s.aggregation_pushdown = false", "SET SESSION %s.merge_parallelism = 'auto'");

        final String label;
        final List<String> session;

        Mode(String label, String... session)
        {
            this.label = label;
            this.session = List.of(session);
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
                report.append("Coordinator: one JVM (`-Xmx%s`, schedules on itself), catalogs `shards4` and `shards8` (`connector.name=overdrive_shards`%s), up in %.1f s.\n\n"
                        .formatted(coordinatorHeap, catalogProperties.isEmpty() ? "" : ", " + catalogProperties, coordinatorSeconds));
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
        StringBuilder out = new StringBuilder("Without the connector: the benchmark JVM queries the shards directly over JDBC, all in parallel, and fetches every row "
                + "(raw = the query's columns, what Trino pulls without pushdown; partial = each shard's GROUP BY, combined here, which must equal the reference). One run each, after the load:\n\n"
                + "| table | shards | split by | raw rows | raw ms | partial rows | partial ms | rows raw/partial | combined = reference |\n|---|---:|---|---:|---:|---:|---:|---:|---|\n");
        for (Table table : tables) {
            List<Integer> numbers = table.shardNumbers();
            List<Double> rawMillis = new ArrayList<>();
            List<Double> partialMillis = new ArrayList<>();
            long rawRows = 0;
            long partialRows = 0;
            boolean same = true;
            for (int repetition = 0; repetition < DIRECT_RUNS; repetition++) {
                long start = System.nanoTime();
                rawRows = ShardClusters.onEach(numbers, shard -> (long) fetch(shards, shard, RAW_QUERY.formatted(table.local())).size()).stream().mapToLong(Long::longValue).sum();
                rawMillis.add(millis(start));
                start = System.nanoTime();
                List<List<List<Object>>> partials = ShardClusters.onEach(numbers, shard -> fetch(shards, shard, QUERY.formatted(table.local())));
                partialMillis.add(millis(start));
                partialRows = partials.stream().mapToLong(List::size).sum();
                same &= ResultRows.same(combine(partials), expected);
            }
            if (!same) {
                mismatches.add("%s: partial aggregates combined".formatted(table));
            }
            log("direct, %s: raw %,d rows in %s ms, partial %,d rows in %s ms, combined = reference: %s".formatted(
                    table, rawRows, formatMillis(median(rawMillis)), partialRows, formatMillis(median(partialMillis)), same));
            out.append("| `%s` | %d | %s | %,d | %s | %,d | %s | %.1fx | %s |\n".formatted(table.name(), table.shards(), table.splitBy(), rawRows, formatMillis(median(rawMillis)), partialRows,
                    formatMillis(median(partialMillis)), (double) rawRows / partialRows, same ? "yes" : "**no**"));
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
        try {
            return builder.start();
        }
        catch (RuntimeException e) {
            throw new IllegalStateException("the coordinator with the overdrive_shards catalogs did not start (does plugin-merge's zip register the connector yet? issue #10): " + e.getMessage(), e);
        }
    }

    // whether each mode's plan still aggregates in Trino: pushed down, the aggregation is gone from the plan
    private String plans(TrinoProcessCluster coordinator)
            throws SQLException
    {
        StringBuilder out = new StringBuilder("Plans (`EXPLAIN`, aggregation nodes Trino still runs): ");
        List<String> parts = new ArrayList<>();
        for (Table table : tables) {
            for (Mode mode : Mode.values()) {
                try (Connection connection = connect(coordinator, table, mode); Statement statement = connection.createStatement();
                        ResultSet resultSet = statement.executeQuery("EXPLAIN " + QUERY.formatted(table.qualified()))) {
                    resultSet.next();
                    String plan = resultSet.getString(1);
                    long aggregations = plan.lines().filter(line -> line.strip().startsWith("Aggregate")).count();
                    parts.add("`%s` %s: %d".formatted(table.name(), mode.label, aggregations));
                }
            }
        }
        return out.append(String.join("; ", parts)).append(".\n\n").toString();
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
            // the modes in turn, so that a drift of the machine affects them alike
            for (int repetition = 1; repetition <= repetitions; repetition++) {
                for (Mode mode : Mode.values()) {
                    Run run = run(coordinator, table, mode);
                    byMode.get(mode).add(run);
                    log("%s, %s, run %d: %s ms, %,d rows received".formatted(table, mode.label, repetition, formatMillis(run.millis()), run.counters().getOrDefault("RowsReceived", -1L)));
                }
            }
            runs.put(table, byMode);
        }
        return runs;
    }

    private Run run(TrinoProcessCluster coordinator, Table table, Mode mode)
            throws SQLException
    {
        String pattern = STATS_MBEAN.formatted(table.catalog());
        int jmxPort = coordinator.coordinator().jmxPort();
        try (Connection connection = connect(coordinator, table, mode); Statement statement = connection.createStatement()) {
            Map<String, Long> before = JmxAttributes.counters(jmxPort, pattern);
            long start = System.nanoTime();
            List<List<Object>> rows = new ArrayList<>();
            try (ResultSet resultSet = statement.executeQuery(QUERY.formatted(table.qualified()))) {
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
            for (String set : mode.session) {
                statement.execute(set.formatted(table.catalog()));
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
        StringBuilder out = new StringBuilder("Through the connector: %d warm-up run(s) per table and mode, then %d measured runs, the modes in turn. Time = from executing the query to its last row fetched (JDBC, as a client sees it); rows transferred = the catalog's `RowsReceived` (`%s`) over the run.\n\n"
                .formatted(warmups, repetitions, STATS_MBEAN.formatted("<catalog>")));
        out.append("| table | shards | split by | mode | median ms | min ms | max ms | rows transferred | time vs no pushdown | rows vs no pushdown | remote queries | shard failures | same result |\n");
        out.append("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Map.Entry<Table, Map<Mode, List<Run>>> shardRuns : runs.entrySet()) {
            List<Run> baseline = shardRuns.getValue().get(Mode.NO_PUSHDOWN);
            for (Map.Entry<Mode, List<Run>> modeRuns : shardRuns.getValue().entrySet()) {
                List<Run> measured = modeRuns.getValue();
                out.append("| `%s` | %d | %s | %s | %s | %s | %s | %s | %.2fx | %s | %s | %s | %s |\n".formatted(
                        shardRuns.getKey().name(),
                        shardRuns.getKey().shards(),
                        shardRuns.getKey().splitBy(),
                        modeRuns.getKey().label,
                        formatMillis(medianMillis(measured)),
                        formatMillis(measured.stream().mapToDouble(Run::millis).min().orElseThrow()),
                        formatMillis(measured.stream().mapToDouble(Run::millis).max().orElseThrow()),
                        counter(measured, "RowsReceived", value -> "%,d".formatted(value)),
                        medianMillis(baseline) / medianMillis(measured),
                        counter(measured, "RowsReceived", value -> "%.1fx".formatted((double) medianCounter(baseline, "RowsReceived") / value)),
                        counter(measured, "RemoteQueries", value -> Long.toString(value)),
                        counter(measured, "ShardFailures", value -> Long.toString(value)),
                        measured.stream().allMatch(Run::same) ? "yes" : "**no**"));
            }
        }
        out.append("\nTime vs no pushdown: the median time of no pushdown over this mode's (above 1 = faster); rows vs no pushdown: rows transferred without pushdown over this mode's. Counters are medians over the measured runs; - = the MBean or attribute is missing.\n\n");
        out.append("| goal | table | pushdown + parallel merge | pushdown + serial merge | met? |\n|---|---|---:|---:|---|\n");
        for (Map.Entry<Table, Map<Mode, List<Run>>> shardRuns : runs.entrySet()) {
            double baseline = medianMillis(shardRuns.getValue().get(Mode.NO_PUSHDOWN));
            double parallel = baseline / medianMillis(shardRuns.getValue().get(Mode.PARALLEL));
            double serial = baseline / medianMillis(shardRuns.getValue().get(Mode.SERIAL));
            out.append("| >= %.0fx faster than no pushdown | `%s` (%s) | %.2fx | %.2fx | %s |\n".formatted(GOAL, shardRuns.getKey().name(), shardRuns.getKey(), parallel, serial, parallel >= GOAL ? "yes" : "no"));
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
