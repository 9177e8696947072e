package io.overdrive.it.benchmark;

import io.airlift.units.Duration;
import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.overdrive.it.benchmark.BenchmarkStats.formatBytes;
import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.median;
import static io.overdrive.it.benchmark.BenchmarkStats.percentile;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static io.overdrive.it.harness.HiveCatalogs.withHedgedReads;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The hedged reads benchmark: TPC-H queries on HDFS with the page cache off, Overdrive with its shipped defaults against
 * the anchor a Trino user would really run, stock {@code hive} with HDFS's own hedged reads configured as an operator
 * would (an {@code hdfs-site.xml} in {@code hive.config.resources} with {@code dfs.client.hedged.read.threadpool.size=128}
 * and {@code dfs.client.hedged.read.threshold.millis=T}), swept over the threshold T so that the comparison is with
 * the best-tuned HDFS hedging, not with one guess. Stock {@code hive} without hedging runs too, for reference. Not part
 * of the test run: {@code ./overdrive bench hedge} runs it ({@code -Doverdrive.benchmark=true}) and prints the
 * Markdown report it writes to {@code integration-tests/target/benchmarks/hedged-reads.md}.
 * <p>
 * HDFS (NameNode + 3 DataNodes, replication 3, own JVM); Trino as server processes (coordinator + 1 worker), started
 * afresh for each storage scenario: {@code healthy} (every DataNode waits a few ms per block read request),
 * {@code slow} (one DataNode in three waits a further 500 ms + random 0-10 ms) and {@code lake} (every DataNode waits
 * 15 ms per request, all of them together send at most 64 MB/s, and DataNode 0 waits a further random 0-1000 ms). After
 * a warm-up pass of every catalog, each runs the query set once per round, the catalog order reversed every other
 * round. The HDFS server counts the block read requests and bytes each catalog's passes made the DataNodes serve
 * (exact, catalogs run one at a time): HDFS hedges its positional reads only, each hedge is one more block read request
 * to another DataNode, so extra requests against stock {@code hive} count the hedges of a catalog whose counters are
 * out of reach (HDFS keeps them in a private static of {@code DFSClient} and exports them nowhere).
 * <p>
 * Settings (system properties, prefix {@code overdrive.benchmark.hedge.}): {@code scenarios} (comma-separated, default
 * {@code healthy,slow,lake}), {@code scale} (TPC-H scale factor, default 0.1), {@code rounds} (default 3),
 * {@code thresholds} (HDFS hedging thresholds swept, default {@code 10ms,50ms,100ms,250ms,500ms,1s,2s}),
 * {@code read-delay-ms} (healthy and slow: every DataNode, default 5), {@code slow-fixed-ms} (default 500),
 * {@code slow-random-ms} (default 10), {@code lake-delay-ms} (default 15), {@code lake-bandwidth-mb} (MB/s, default
 * 64), {@code lake-slow-random-ms} (default 1000), {@code controls} (also run tuned controls: Overdrive with a 50 ms
 * threshold, its wrapper with a fixed 50 ms threshold and with {@code adaptive}; default false).
 */
public class HedgedReadBenchmark
{
    static final String OFF = "hive";
    static final String OVERDRIVE = "overdrive_defaults";
    static final String AUTO_50 = "tuned_overdrive_50ms";
    static final String WRAPPER = "tuned_wrapper_50ms";
    static final String ADAPTIVE = "tuned_adaptive";
    static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "supplier", "nation", "region");
    static final String ROW_GROUP_SIZE = "16MB";
    // HDFS's hdfs-default.xml template for a client that hedges
    static final int HDFS_HEDGE_THREADS = 128;
    static final int OVERDRIVE_HEDGE_THREADS = 32;
    static final String HDFS_POOL_FIRST_THREAD = "hedgedRead-0";

    private final List<String> scenarioNames = List.of(System.getProperty("overdrive.benchmark.hedge.scenarios", "healthy,slow,lake").split(","));
    private final String scale = System.getProperty("overdrive.benchmark.hedge.scale", "0.1");
    private final int rounds = Integer.getInteger("overdrive.benchmark.hedge.rounds", 3);
    private final List<Duration> thresholds = Stream.of(System.getProperty("overdrive.benchmark.hedge.thresholds", "10ms,50ms,100ms,250ms,500ms,1s,2s").split(","))
            .map(String::trim)
            .map(Duration::valueOf)
            .toList();
    private final long readDelayMillis = Long.getLong("overdrive.benchmark.hedge.read-delay-ms", 5);
    private final long slowFixedMillis = Long.getLong("overdrive.benchmark.hedge.slow-fixed-ms", 500);
    private final long slowRandomMillis = Long.getLong("overdrive.benchmark.hedge.slow-random-ms", 10);
    private final long lakeDelayMillis = Long.getLong("overdrive.benchmark.hedge.lake-delay-ms", 15);
    private final long lakeBandwidthMb = Long.getLong("overdrive.benchmark.hedge.lake-bandwidth-mb", 64);
    private final long lakeSlowRandomMillis = Long.getLong("overdrive.benchmark.hedge.lake-slow-random-ms", 1000);
    private final boolean controls = Boolean.getBoolean("overdrive.benchmark.hedge.controls");

    private final List<Double> loadSamples = Collections.synchronizedList(new ArrayList<>());
    private final List<String> mismatches = new ArrayList<>();

    @Test
    void hedgedReadBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the hedged read benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench hedge");
        for (String scenario : scenarioNames) {
            if (!List.of("healthy", "slow", "lake").contains(scenario)) {
                throw new IllegalArgumentException("overdrive.benchmark.hedge.scenarios: unknown scenario '%s' (healthy, slow, lake)".formatted(scenario));
            }
        }

        Instant started = Instant.now();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> loadSamples.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()), 0, 5, TimeUnit.SECONDS);
        Path work = TestingHdfs.workDirectory().resolve("hedged-read-benchmark");
        TrinoProcessCluster.deleteRecursively(work);
        Files.createDirectories(work);

        StringBuilder report = new StringBuilder();
        try (HdfsCluster hdfs = HdfsCluster.start(ProjectLayout.fromSystemProperty(), work.resolve("hdfs"), TestingHdfs.DATA_NODES)) {
            Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/hedged-read-benchmark/metastore");
            Map<String, Catalog> catalogs = catalogs(work, hive);

            Map<String, Scenario> scenarios = new LinkedHashMap<>();
            try (TrinoProcessCluster cluster = start(work, catalogs, "trino-load")) {
                report.append(load(cluster));
            }
            for (String name : scenarioNames) {
                configure(hdfs, name);
                try (TrinoProcessCluster cluster = start(work, catalogs, "trino-" + name)) {
                    scenarios.put(name, new Scenario(cluster, hdfs, List.copyOf(catalogs.keySet())).run(name));
                }
                finally {
                    hdfs.clearSlowDataNode();
                    hdfs.clearReadBandwidth();
                    hdfs.setReadDelay(java.time.Duration.ZERO);
                }
            }
            report.append(results(scenarios));
        }
        finally {
            sampler.shutdownNow();
        }
        String markdown = header(started, java.time.Duration.between(started, Instant.now())) + report;
        Path output = writeReport("hedged-reads.md", markdown);
        log("report written to " + output);
        assertTrue(mismatches.isEmpty(), "every catalog must return the same rows as stock hive: " + mismatches);
    }

    private void configure(HdfsCluster hdfs, String scenario)
    {
        switch (scenario) {
            case "healthy" -> hdfs.setReadDelay(java.time.Duration.ofMillis(readDelayMillis));
            case "slow" -> {
                hdfs.setReadDelay(java.time.Duration.ofMillis(readDelayMillis));
                hdfs.setSlowDataNode(0, java.time.Duration.ofMillis(slowFixedMillis), java.time.Duration.ofMillis(slowRandomMillis));
            }
            case "lake" -> {
                hdfs.setReadDelay(java.time.Duration.ofMillis(lakeDelayMillis));
                hdfs.setReadBandwidth(lakeBandwidthMb << 20);
                hdfs.setSlowDataNode(0, java.time.Duration.ZERO, java.time.Duration.ofMillis(lakeSlowRandomMillis));
            }
            default -> throw new IllegalArgumentException(scenario);
        }
    }

    private String storage(String scenario)
    {
        return switch (scenario) {
            case "healthy" -> "every DataNode waits %d ms per block read request".formatted(readDelayMillis);
            case "slow" -> "every DataNode waits %d ms per block read request, DataNode 0 a further %d ms + random 0-%d ms".formatted(readDelayMillis, slowFixedMillis, slowRandomMillis);
            case "lake" -> "every DataNode waits %d ms per block read request, all DataNodes together send at most %d MB/s, DataNode 0 waits a further random 0-%d ms".formatted(lakeDelayMillis, lakeBandwidthMb, lakeSlowRandomMillis);
            default -> throw new IllegalArgumentException(scenario);
        };
    }

    static String hdfsCatalog(Duration threshold)
    {
        return "hdfs_hedge_" + threshold.toString().replace(".00", "");
    }

    private record Catalog(String connector, Map<String, String> properties) {}

    private Map<String, Catalog> catalogs(Path work, Map<String, String> hive)
            throws IOException
    {
        Map<String, Catalog> catalogs = new LinkedHashMap<>();
        Map<String, String> writer = new LinkedHashMap<>(hive);
        // several row groups per file: a query makes many positional reads, as on real tables
        writer.put("parquet.writer.row-group-size", ROW_GROUP_SIZE);
        catalogs.put(OFF, new Catalog("hive", writer));
        for (Duration threshold : thresholds) {
            Path resource = work.resolve("hdfs-site-hedge-%dms.xml".formatted(threshold.toMillis()));
            Files.writeString(resource, """
                    <?xml version="1.0"?>
                    <configuration>
                      <property><name>dfs.client.hedged.read.threadpool.size</name><value>%d</value></property>
                      <property><name>dfs.client.hedged.read.threshold.millis</name><value>%d</value></property>
                    </configuration>
                    """.formatted(HDFS_HEDGE_THREADS, threshold.toMillis()), UTF_8);
            Map<String, String> properties = new LinkedHashMap<>(hive);
            properties.put("hive.config.resources", resource.toString());
            catalogs.put(hdfsCatalog(threshold), new Catalog("hive", properties));
        }
        // Overdrive as shipped: the one property that turns hedging on, every other hedged-read.* at its default
        // (threshold adaptive)
        Map<String, String> overdrive = new LinkedHashMap<>(hive);
        overdrive.put("hedged-read.threadpool-size", Integer.toString(OVERDRIVE_HEDGE_THREADS));
        catalogs.put(OVERDRIVE, new Catalog("overdrive_hive", overdrive));
        if (controls) {
            Map<String, String> auto = new LinkedHashMap<>(overdrive);
            auto.put("hedged-read.threshold", "50ms");
            catalogs.put(AUTO_50, new Catalog("overdrive_hive", auto));
            catalogs.put(WRAPPER, new Catalog("overdrive_hive", withHedgedReads(hive, OVERDRIVE_HEDGE_THREADS, "wrapper", "50ms", "1")));
            catalogs.put(ADAPTIVE, new Catalog("overdrive_hive", withHedgedReads(hive, OVERDRIVE_HEDGE_THREADS, "wrapper", "adaptive", "0.05")));
        }
        return catalogs;
    }

    private TrinoProcessCluster start(Path work, Map<String, Catalog> catalogs, String name)
    {
        log("starting Trino (%s)".formatted(name));
        TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), work.resolve(name))
                .workers(1)
                .heapSize("1500m");
        catalogs.forEach((catalog, spec) -> builder.catalog(catalog, spec.connector(), spec.properties()));
        return builder.catalog("tpch", "tpch", Map.of()).start();
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

    private record Pass(double millis, List<Double> queryMillis) {}

    private record Counters(long reads, long hedges, long wins, long inCurThread, long refused, long wastedBytes)
    {
        Counters minus(Counters other)
        {
            return new Counters(reads - other.reads, hedges - other.hedges, wins - other.wins, inCurThread - other.inCurThread, refused - other.refused, wastedBytes - other.wastedBytes);
        }
    }

    private record CatalogRun(List<Pass> passes, long requests, long bytes, Counters counters)
    {
        double totalMillis()
        {
            return passes.stream().mapToDouble(Pass::millis).sum();
        }

        List<Double> queryMillis()
        {
            return passes.stream().flatMap(pass -> pass.queryMillis().stream()).toList();
        }

        double p95()
        {
            return percentile(queryMillis(), 95);
        }
    }

    private final class Scenario
    {
        private final TrinoProcessCluster cluster;
        private final HdfsCluster hdfs;
        private final List<String> catalogs;
        private final Map<String, CatalogRun> runs = new LinkedHashMap<>();
        private int maxHdfsPools;
        private long nativeThreshold;
        private long nativeThresholdUpdates;
        private long nativeThresholdFailures;

        Scenario(TrinoProcessCluster cluster, HdfsCluster hdfs, List<String> catalogs)
        {
            this.cluster = cluster;
            this.hdfs = hdfs;
            this.catalogs = catalogs;
        }

        Scenario run(String name)
        {
            // warm-up, unmeasured: every catalog runs the query set once (JIT, metadata, first opens); stock hive's rows
            // are the reference
            Map<String, List<List<Object>>> expected = new HashMap<>();
            PageCacheBenchmark.QUERIES.forEach((query, sql) -> expected.put(query, cluster.query(sql.formatted(OFF))));
            for (String catalog : catalogs.subList(1, catalogs.size())) {
                runQueries(name, catalog, expected);
                countHdfsPools();
            }
            log("%s: warmed up".formatted(name));
            Map<String, Counters> before = new HashMap<>();
            catalogs.forEach(catalog -> before.put(catalog, counters(catalog)));
            Map<String, List<Pass>> passes = new LinkedHashMap<>();
            Map<String, Long> requests = new HashMap<>();
            Map<String, Long> bytes = new HashMap<>();
            // rounds in alternating catalog order (ABBA), so that a drift of the machine over the run weighs on every
            // catalog alike
            for (int round = 0; round < rounds; round++) {
                List<String> order = new ArrayList<>(catalogs);
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String catalog : order) {
                    long requestsBefore = hdfs.readRequests();
                    long bytesBefore = hdfs.bytesRead();
                    passes.computeIfAbsent(catalog, _ -> new ArrayList<>()).add(runQueries(name, catalog, expected));
                    requests.merge(catalog, hdfs.readRequests() - requestsBefore, Long::sum);
                    bytes.merge(catalog, hdfs.bytesRead() - bytesBefore, Long::sum);
                    countHdfsPools();
                    log("%s, round %d, %s: %s ms".formatted(name, round + 1, catalog, formatMillis(passes.get(catalog).getLast().millis())));
                }
            }
            nativeThreshold = stat(OVERDRIVE, "NativeThresholdMillis");
            nativeThresholdUpdates = stat(OVERDRIVE, "NativeThresholdUpdates");
            nativeThresholdFailures = stat(OVERDRIVE, "NativeThresholdFailures");
            for (String catalog : catalogs) {
                runs.put(catalog, new CatalogRun(passes.get(catalog), requests.get(catalog), bytes.get(catalog), counters(catalog).minus(before.get(catalog))));
            }
            return this;
        }

        // HDFS names the threads of its static hedged read pool hedgedRead-0, -1, ... per pool: one hedgedRead-0 per
        // pool alive (idle threads stop after a minute), so more than one shows that the catalogs' pools are not shared
        private void countHdfsPools()
        {
            long pools = WorkerThreads.names(cluster.workers().getFirst().jmxPort()).stream()
                    .filter(HDFS_POOL_FIRST_THREAD::equals)
                    .count();
            maxHdfsPools = Math.max(maxHdfsPools, (int) pools);
        }

        private Pass runQueries(String scenario, String catalog, Map<String, List<List<Object>>> expected)
        {
            List<Double> queryMillis = new ArrayList<>();
            for (Map.Entry<String, String> query : PageCacheBenchmark.QUERIES.entrySet()) {
                long start = System.nanoTime();
                List<List<Object>> rows = cluster.query(query.getValue().formatted(catalog));
                queryMillis.add((System.nanoTime() - start) / 1e6);
                if (!ResultRows.same(rows, expected.get(query.getKey()))) {
                    mismatches.add("%s %s %s".formatted(scenario, catalog, query.getKey()));
                }
            }
            return new Pass(queryMillis.stream().mapToDouble(Double::doubleValue).sum(), queryMillis);
        }

        private Counters counters(String catalog)
        {
            if (!isOverdrive(catalog)) {
                return new Counters(0, 0, 0, 0, 0, 0);
            }
            return new Counters(stat(catalog, "Reads"), stat(catalog, "HedgedReadOps"), stat(catalog, "HedgedReadOpsWin"),
                    stat(catalog, "HedgedReadOpsInCurThread"), stat(catalog, "HedgesRefusedByBudget"), stat(catalog, "WastedBytes"));
        }

        private long stat(String catalog, String attribute)
        {
            return cluster.sumOverWorkers("io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog), attribute);
        }

        /** The stock hive + HDFS hedging catalog with the lowest total, or with the lowest query P95. */
        String bestAnchor(Comparator<CatalogRun> by)
        {
            return runs.entrySet().stream()
                    .filter(entry -> entry.getKey().startsWith("hdfs_hedge_"))
                    .min(Map.Entry.comparingByValue(by))
                    .orElseThrow()
                    .getKey();
        }
    }

    private static boolean isOverdrive(String catalog)
    {
        return catalog.equals(OVERDRIVE) || catalog.equals(AUTO_50) || catalog.equals(WRAPPER) || catalog.equals(ADAPTIVE);
    }

    private String results(Map<String, Scenario> scenarios)
    {
        StringBuilder out = new StringBuilder();
        out.append("Queries: TPC-H Q1, Q3, Q5, Q6, Q14 (the page cache benchmark's set), one at a time. After a warm-up pass of every catalog, %d rounds; in each every catalog runs the set once, the catalog order reversed every other round. Page cache off everywhere.\n\n".formatted(rounds))
                .append("Catalogs: `%s` = stock Trino, no hedging; `hdfs_hedge_<T>` = stock `hive` with HDFS's own hedged reads as an operator configures them, `hive.config.resources` naming an `hdfs-site.xml` with `dfs.client.hedged.read.threadpool.size=%d` and `dfs.client.hedged.read.threshold.millis=<T>` (the anchor: the best T per scenario, by total); `%s` = `overdrive_hive` with only `hedged-read.threadpool-size=%d` (shipped defaults otherwise, and the pool is the default too: mode `AUTO`, threshold `adaptive`; on HDFS that is HDFS's own hedging, positional tail reads included, its threshold set four times a second to 3x the time a healthy read of the largest usual size takes, as the catalog's recent reads show, within 10 ms-10 s)"
                        .formatted(OFF, HDFS_HEDGE_THREADS, OVERDRIVE, OVERDRIVE_HEDGE_THREADS))
                .append(controls ? "; tuned controls, not the claim: `%s` = the same with `hedged-read.threshold=50ms` (HDFS's own hedging after 50 ms, positional tail reads included); `%s` = Overdrive's wrapper, threshold 50 ms, `max-ratio=1`; `%s` = the wrapper, `threshold=adaptive`, default budget.\n\n".formatted(AUTO_50, WRAPPER, ADAPTIVE) : ".\n\n");
        for (Map.Entry<String, Scenario> entry : scenarios.entrySet()) {
            Scenario scenario = entry.getValue();
            CatalogRun off = scenario.runs.get(OFF);
            String bestTotal = scenario.bestAnchor(Comparator.comparingDouble(CatalogRun::totalMillis));
            String bestP95 = scenario.bestAnchor(Comparator.comparingDouble(CatalogRun::p95));
            CatalogRun best = scenario.runs.get(bestTotal);
            out.append("### %s: %s\n\n".formatted(entry.getKey(), storage(entry.getKey())));
            out.append("Best HDFS hedging threshold: `%s` by total, `%s` by query P95. HDFS hedged read pools alive at once on the worker (threads named `%s`): up to %d. `%s`'s adaptive threshold of HDFS's own hedging at the end of the scenario: %s ms (`NativeThresholdMillis`), set %d times (`NativeThresholdUpdates`), %d failures.\n\n"
                    .formatted(bestTotal, bestP95, HDFS_POOL_FIRST_THREAD, scenario.maxHdfsPools, OVERDRIVE, scenario.nativeThreshold, scenario.nativeThresholdUpdates, scenario.nativeThresholdFailures));
            out.append("| catalog | total (ms) | vs best anchor | vs no hedging | query P50 | query P95 | query max | block read requests | extra requests | DataNode bytes | extra bytes | Overdrive hedges / wins / refused |\n");
            out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (Map.Entry<String, CatalogRun> run : scenario.runs.entrySet()) {
                CatalogRun value = run.getValue();
                Counters counters = value.counters();
                out.append("| `%s`%s | %s | %.2fx | %.2fx | %s | %s | %s | %,d | %+.1f%% | %s | %+.1f%% | %s |\n".formatted(
                        run.getKey(),
                        run.getKey().equals(bestTotal) ? " (best)" : "",
                        formatMillis(value.totalMillis()),
                        best.totalMillis() / value.totalMillis(),
                        off.totalMillis() / value.totalMillis(),
                        formatMillis(median(value.queryMillis())),
                        formatMillis(value.p95()),
                        formatMillis(value.queryMillis().stream().mapToDouble(Double::doubleValue).max().orElseThrow()),
                        value.requests(),
                        100.0 * (value.requests() - off.requests()) / off.requests(),
                        formatBytes(value.bytes()),
                        100.0 * (value.bytes() - off.bytes()) / off.bytes(),
                        isOverdrive(run.getKey()) ? "%d / %d / %d".formatted(counters.hedges(), counters.wins(), counters.refused()) : "-"));
            }
            out.append('\n');
        }
        out.append("Total = the sum of every query's wall time over the %d timed passes (JDBC, as a client sees it); vs best anchor = the best `hdfs_hedge_<T>`'s total / this catalog's (above 1.00x: faster than HDFS's best-tuned hedging, below: slower); vs no hedging = stock `hive`'s total / this catalog's. ".formatted(rounds))
                .append("Query P50/P95/max: over the catalog's %d query runs (nearest rank). Block read requests and DataNode bytes: what the DataNodes served over the catalog's timed passes, counted by the HDFS server; extra: against stock `hive` without hedging (HDFS hedges with one more block read request to another DataNode, so for `hdfs_hedge_<T>` extra requests are its hedges). ".formatted(rounds * PageCacheBenchmark.QUERIES.size()))
                .append("Overdrive hedges / wins / refused: the worker's `HedgedReadStats` (`HedgedReadOps`, `HedgedReadOpsWin` include HDFS's own counters; `HedgesRefusedByBudget`).\n");
        return out.toString();
    }

    private String header(Instant started, java.time.Duration elapsed)
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
