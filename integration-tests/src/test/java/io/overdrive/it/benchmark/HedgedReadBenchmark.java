package io.overdrive.it.benchmark;

import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.overdrive.it.benchmark.BenchmarkStats.formatBytes;
import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.percentile;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static io.overdrive.it.harness.HiveCatalogs.withHedgedReads;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue #8's benchmark, the seed's experiment at this machine's scale: TPC-H queries on HDFS with the page cache off,
 * hedging off (stock {@code hive}, the anchor) against HDFS's own hedging switched on by Overdrive ({@code native}) and
 * Overdrive's wrapper with a fixed and an adaptive threshold, (a) on a healthy cluster and (b) with one DataNode slowed
 * on the server side. Not part of the test run: {@code ./overdrive bench hedge} runs it
 * ({@code -Doverdrive.benchmark=true}) and prints the Markdown report it writes to
 * {@code integration-tests/target/benchmarks/hedged-reads.md}.
 * <p>
 * HDFS (NameNode + 3 DataNodes, replication 3, own JVM) with a per-request delay on every DataNode, so that reads cost
 * what remote storage costs; Trino as server processes (coordinator + 1 worker), started afresh for each scenario so
 * that each scenario's latency distributions are its own. After a warm-up pass of every catalog, each runs the query
 * set once per round, rounds in alternating catalog order; DataNode {@code BytesRead} before and after each run counts
 * the bytes it made HDFS serve (extra reads = more than stock {@code hive}); hedge counters and read latencies come from
 * the worker's {@code HedgedReadStats} MBean.
 * <p>
 * Settings (system properties, prefix {@code overdrive.benchmark.hedge.}): {@code scale} (TPC-H scale factor, default 1),
 * {@code rounds} (default 2), {@code read-delay-ms} (every DataNode, default 5), {@code slow-fixed-ms} (the slow
 * DataNode's extra stall per request, default 500), {@code slow-random-ms} (plus a random 0..n, default 10, as the
 * seed's), {@code threshold} (fixed threshold of {@code native} and {@code wrapper}, default 50ms),
 * {@code threadpool-size} (default 32).
 */
public class HedgedReadBenchmark
{
    static final String OFF = "hive";
    static final String NATIVE = "hedge_native";
    static final String WRAPPER = "hedge_wrapper";
    static final String ADAPTIVE = "hedge_adaptive";
    static final List<String> CATALOGS = List.of(OFF, NATIVE, WRAPPER, ADAPTIVE);
    static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "supplier", "nation", "region");
    static final String ROW_GROUP_SIZE = "16MB";

    private final String scale = System.getProperty("overdrive.benchmark.hedge.scale", "1");
    private final int rounds = Integer.getInteger("overdrive.benchmark.hedge.rounds", 2);
    private final long readDelayMillis = Long.getLong("overdrive.benchmark.hedge.read-delay-ms", 5);
    private final long slowFixedMillis = Long.getLong("overdrive.benchmark.hedge.slow-fixed-ms", 500);
    private final long slowRandomMillis = Long.getLong("overdrive.benchmark.hedge.slow-random-ms", 10);
    private final String threshold = System.getProperty("overdrive.benchmark.hedge.threshold", "50ms");
    private final int threadPoolSize = Integer.getInteger("overdrive.benchmark.hedge.threadpool-size", 32);

    private final List<Double> loadSamples = Collections.synchronizedList(new ArrayList<>());
    private final List<String> mismatches = new ArrayList<>();

    @Test
    void hedgedReadBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the hedged read benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench hedge");

        Instant started = Instant.now();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> loadSamples.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()), 0, 5, TimeUnit.SECONDS);
        Path work = TestingHdfs.workDirectory().resolve("hedged-read-benchmark");
        TrinoProcessCluster.deleteRecursively(work);
        Files.createDirectories(work);

        StringBuilder report = new StringBuilder();
        try (HdfsCluster hdfs = HdfsCluster.start(ProjectLayout.fromSystemProperty(), work.resolve("hdfs"), TestingHdfs.DATA_NODES)) {
            hdfs.setReadDelay(Duration.ofMillis(readDelayMillis));
            DataNodeMetrics dataNodes = new DataNodeMetrics(hdfs.dataNodeHttpUris(), Duration.ofMillis(Long.getLong("overdrive.benchmark.jmx-refresh-ms", 11_000)));
            Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/hedged-read-benchmark/metastore");

            Map<String, Scenario> scenarios = new LinkedHashMap<>();
            try (TrinoProcessCluster cluster = start(work, hive, "trino-load")) {
                report.append(load(cluster));
            }
            try (TrinoProcessCluster cluster = start(work, hive, "trino-healthy")) {
                scenarios.put("healthy", new Scenario(cluster, dataNodes).run("healthy"));
            }
            hdfs.setSlowDataNode(0, Duration.ofMillis(slowFixedMillis), Duration.ofMillis(slowRandomMillis));
            try (TrinoProcessCluster cluster = start(work, hive, "trino-slow")) {
                scenarios.put("slow", new Scenario(cluster, dataNodes).run("slow"));
            }
            finally {
                hdfs.clearSlowDataNode();
            }
            report.append(results(scenarios));
        }
        finally {
            sampler.shutdownNow();
        }
        String markdown = header(started, Duration.between(started, Instant.now())) + report;
        Path output = writeReport("hedged-reads.md", markdown);
        log("report written to " + output);
        assertTrue(mismatches.isEmpty(), "every catalog must return the same rows as stock hive: " + mismatches);
    }

    private TrinoProcessCluster start(Path work, Map<String, String> hive, String name)
    {
        log("starting Trino (%s)".formatted(name));
        Map<String, String> writer = new LinkedHashMap<>(hive);
        // several row groups per file: a query makes many positional reads, as on real tables
        writer.put("parquet.writer.row-group-size", ROW_GROUP_SIZE);
        return TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), work.resolve(name))
                .workers(1)
                .heapSize("1500m")
                .catalog(OFF, "hive", writer)
                .catalog(NATIVE, "overdrive_hive", withHedgedReads(hive, threadPoolSize, "native", threshold, "1"))
                .catalog(WRAPPER, "overdrive_hive", withHedgedReads(hive, threadPoolSize, "wrapper", threshold, "1"))
                .catalog(ADAPTIVE, "overdrive_hive", withHedgedReads(hive, threadPoolSize, "wrapper", "adaptive", "0.05"))
                .catalog("tpch", "tpch", Map.of())
                .start();
    }


    private String load(TrinoProcessCluster cluster)
    {
        long start = System.nanoTime();
        cluster.execute("CREATE SCHEMA hive.tpch");
        for (String table : TABLES) {
            cluster.execute("CREATE TABLE hive.tpch.%1$s WITH (format = 'PARQUET') AS SELECT * FROM tpch.\"sf%2$s\".%1$s".formatted(table, scale));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        StringBuilder out = new StringBuilder("TPC-H at scale factor %s as Parquet on HDFS (3 DataNodes, replication 3), written with `parquet.writer.row-group-size=%s`, loaded in %.0f s:\n\n".formatted(scale, ROW_GROUP_SIZE, seconds));
        out.append("| table | files | bytes |\n|---|---:|---:|\n");
        for (String table : TABLES) {
            List<Object> size = cluster.query("SELECT count(*), sum(size) FROM (SELECT DISTINCT \"$path\", \"$file_size\" AS size FROM hive.tpch.%s)".formatted(table)).getFirst();
            out.append("| `%s` | %s | %s |\n".formatted(table, size.get(0), formatBytes(((Number) size.get(1)).longValue())));
        }
        log("data loaded in %.0f s".formatted(seconds));
        return out.append('\n').toString();
    }

    private record Pass(double millis, Map<String, Double> queryMillis) {}

    private record Counters(long reads, long hedges, long wins, long inCurThread, long refused, long wastedBytes)
    {
        Counters minus(Counters other)
        {
            return new Counters(reads - other.reads, hedges - other.hedges, wins - other.wins, inCurThread - other.inCurThread, refused - other.refused, wastedBytes - other.wastedBytes);
        }
    }

    private record CatalogRun(List<Pass> passes, long dataNodeBytes, Counters counters, double readP95, double readP99)
    {
        double totalMillis()
        {
            return passes.stream().mapToDouble(Pass::millis).sum();
        }

        List<Double> queryMillis()
        {
            return passes.stream().flatMap(pass -> pass.queryMillis().values().stream()).toList();
        }
    }

    private final class Scenario
    {
        private final TrinoProcessCluster cluster;
        private final DataNodeMetrics dataNodes;
        private final Map<String, CatalogRun> runs = new LinkedHashMap<>();

        Scenario(TrinoProcessCluster cluster, DataNodeMetrics dataNodes)
        {
            this.cluster = cluster;
            this.dataNodes = dataNodes;
        }

        Scenario run(String name)
        {
            // warm-up, unmeasured: every catalog runs the query set once (JIT, metadata, first opens); stock hive's rows
            // are the reference
            Map<String, List<List<Object>>> expected = new HashMap<>();
            PageCacheBenchmark.QUERIES.forEach((query, sql) -> expected.put(query, cluster.query(sql.formatted(OFF))));
            for (String catalog : CATALOGS.subList(1, CATALOGS.size())) {
                runQueries(name, catalog, expected);
            }
            Map<String, Counters> before = new HashMap<>();
            CATALOGS.forEach(catalog -> before.put(catalog, counters(catalog)));
            Map<String, List<Pass>> passes = new LinkedHashMap<>();
            Map<String, Long> bytes = new HashMap<>();
            // rounds in alternating catalog order, so that a drift of the machine over the run weighs on every catalog alike
            for (int round = 0; round < rounds; round++) {
                List<String> order = new ArrayList<>(CATALOGS);
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String catalog : order) {
                    long bytesBefore = dataNodes.bytesRead();
                    passes.computeIfAbsent(catalog, _ -> new ArrayList<>()).add(runQueries(name, catalog, expected));
                    bytes.merge(catalog, dataNodes.bytesRead() - bytesBefore, Long::sum);
                    log("%s, round %d, %s: %s".formatted(name, round + 1, catalog, formatMillis(passes.get(catalog).getLast().millis())));
                }
            }
            for (String catalog : CATALOGS) {
                Counters counters = counters(catalog).minus(before.get(catalog));
                boolean anchor = catalog.equals(OFF);
                runs.put(catalog, new CatalogRun(passes.get(catalog), bytes.get(catalog), counters,
                        anchor ? Double.NaN : value(catalog, "ReadLatency.AllTime.P95"),
                        anchor ? Double.NaN : value(catalog, "ReadLatency.AllTime.P99")));
            }
            return this;
        }

        private Pass runQueries(String scenario, String catalog, Map<String, List<List<Object>>> expected)
        {
            Map<String, Double> queryMillis = new LinkedHashMap<>();
            for (Map.Entry<String, String> query : PageCacheBenchmark.QUERIES.entrySet()) {
                long start = System.nanoTime();
                List<List<Object>> rows = cluster.query(query.getValue().formatted(catalog));
                queryMillis.put(query.getKey(), (System.nanoTime() - start) / 1e6);
                if (!ResultRows.same(rows, expected.get(query.getKey()))) {
                    mismatches.add("%s %s %s".formatted(scenario, catalog, query.getKey()));
                }
            }
            return new Pass(queryMillis.values().stream().mapToDouble(Double::doubleValue).sum(), queryMillis);
        }

        private Counters counters(String catalog)
        {
            if (catalog.equals(OFF)) {
                return new Counters(0, 0, 0, 0, 0, 0);
            }
            return new Counters(stat(catalog, "Reads"), stat(catalog, "HedgedReadOps"), stat(catalog, "HedgedReadOpsWin"),
                    stat(catalog, "HedgedReadOpsInCurThread"), stat(catalog, "HedgesRefusedByBudget"), stat(catalog, "WastedBytes"));
        }

        private long stat(String catalog, String attribute)
        {
            return cluster.sumOverWorkers(mbean(catalog), attribute);
        }

        private double value(String catalog, String attribute)
        {
            return JmxAttributes.value(cluster.workers().getFirst().jmxPort(), mbean(catalog), attribute);
        }

        private static String mbean(String catalog)
        {
            return "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog);
        }
    }

    private String results(Map<String, Scenario> scenarios)
    {
        StringBuilder out = new StringBuilder();
        out.append("Queries: TPC-H Q1, Q3, Q5, Q6, Q14 (the page cache benchmark's set). After a warm-up pass of every catalog, %d rounds; in each every catalog runs the set once, in alternating catalog order (odd rounds reversed). ".formatted(rounds))
                .append("Every DataNode waits %d ms before each block read request (remote-like storage). Slow scenario: DataNode 0 waits a further %d ms + random 0-%d ms per request (1 of the 3 replicas of every block). ".formatted(readDelayMillis, slowFixedMillis, slowRandomMillis))
                .append("Catalogs: `%s` = stock Trino, no hedging (the anchor); `%s` = HDFS's own hedging switched on by Overdrive (`hedged-read.mode=native`, threshold %s); `%s` = Overdrive's wrapper, threshold %s, `max-ratio=1`; `%s` = the wrapper, `threshold=adaptive` (P95 of recent reads, 10 ms - 1 s), default budget `max-ratio=0.05`. Pools: %d threads. Page cache off everywhere.\n\n"
                        .formatted(OFF, NATIVE, threshold, WRAPPER, threshold, ADAPTIVE, threadPoolSize));
        out.append("| scenario | catalog | total | vs off | query P95 | query P99 | read P95 | read P99 | DataNode bytes | extra reads | reads | hedges | wins | in caller | refused | wasted |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Scenario> scenario : scenarios.entrySet()) {
            CatalogRun off = scenario.getValue().runs.get(OFF);
            for (Map.Entry<String, CatalogRun> entry : scenario.getValue().runs.entrySet()) {
                CatalogRun run = entry.getValue();
                boolean anchor = entry.getKey().equals(OFF);
                out.append("| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n".formatted(
                        scenario.getKey(),
                        entry.getKey(),
                        formatMillis(run.totalMillis()),
                        anchor ? "1.00x" : "%.2fx".formatted(off.totalMillis() / run.totalMillis()),
                        formatMillis(percentile(run.queryMillis(), 95)),
                        formatMillis(percentile(run.queryMillis(), 99)),
                        Double.isNaN(run.readP95()) ? "-" : formatMillis(run.readP95()),
                        Double.isNaN(run.readP99()) ? "-" : formatMillis(run.readP99()),
                        formatBytes(run.dataNodeBytes()),
                        anchor ? "-" : "%+.1f%%".formatted(100.0 * (run.dataNodeBytes() - off.dataNodeBytes()) / off.dataNodeBytes()),
                        anchor ? "-" : Long.toString(run.counters().reads()),
                        anchor ? "-" : Long.toString(run.counters().hedges()),
                        anchor ? "-" : Long.toString(run.counters().wins()),
                        anchor ? "-" : Long.toString(run.counters().inCurThread()),
                        anchor ? "-" : Long.toString(run.counters().refused()),
                        anchor ? "-" : formatBytes(run.counters().wastedBytes())));
            }
        }
        out.append("\nTotal = the sum of every query's wall time over the passes (JDBC, as a client sees it); vs off = stock `hive`'s total / this catalog's, in the same scenario. ")
                .append("Query P95/P99: nearest rank over the catalog's query runs. Read P95/P99: what a reader waited per read, from `ReadLatency` (the wrapper's reads; for `native`, Overdrive's positional reads under HDFS's hedging; stock `hive` has no such probe, so `-`; warm-up included). ")
                .append("DataNode bytes: the DataNodes' `BytesRead` over the catalog's passes; extra reads: against stock `hive`'s. Reads/hedges/wins/in caller/refused/wasted: the worker's `HedgedReadStats` (`HedgedReadOps`, `HedgedReadOpsWin`, `HedgedReadOpsInCurThread` add HDFS's own counters for `native`; `Reads` counts the wrapper's reads only).\n");
        return out.toString();
    }

    private String header(Instant started, Duration elapsed)
    {
        double mean = loadSamples.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double max = loadSamples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return "Run %s, %.0f s. Machine: %d CPUs (`nproc`), JDK %s (%s), Trino %s. Load average (1 min) during the run: mean %.2f, max %.2f (%d samples, every 5 s). One coordinator + 1 worker JVM (`-Xmx1500m` each) and HDFS (NameNode + 3 DataNodes, one JVM) on loopback, all on these CPUs.\n\n".formatted(
                started.toString().replaceAll("\\.\\d+Z$", "Z"), elapsed.toMillis() / 1e3, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), System.getProperty("java.vm.name"), ProjectLayout.TRINO_VERSION, mean, max, loadSamples.size());
    }

    static void log(String message)
    {
        System.out.println("[overdrive-bench-hedge] " + message);
    }
}
