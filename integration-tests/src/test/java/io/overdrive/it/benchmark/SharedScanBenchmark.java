package io.overdrive.it.benchmark;

import io.airlift.units.DataSize;
import io.overdrive.it.TestingHdfs;
import io.overdrive.it.demo.RatioInterval;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static io.overdrive.it.benchmark.BenchmarkStats.formatBytes;
import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.median;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue #9's benchmark, Akutan's appendix A/B at this machine's scale: concurrent cold scans of one TPC-H
 * {@code lineitem} (Parquet on HDFS) on a worker whose storage is the bottleneck, the page cache on, shared scans off
 * against on. Not part of the test run: {@code ./overdrive bench scan} runs it ({@code -Doverdrive.benchmark=true})
 * and prints the Markdown report it writes to {@code integration-tests/target/benchmarks/shared-scans.md}.
 * <p>
 * Storage: HDFS (NameNode + 3 DataNodes, replication 3, own JVM) with a wait before every block read request and one
 * read bandwidth shared by all DataNodes, so that a light scan waits on storage, not on the 2 CPUs, as on a data
 * lake. Trino: server processes (coordinator + 1 worker, so every reader of a page is on the worker that fetches it).
 * Catalogs: stock {@code hive} (the anchor, a single query), {@code scan_off} ({@code overdrive_hive}, page cache on,
 * {@code cache.shared-scans.enabled=false}) and {@code scan_on} (page cache on, shared scans with their defaults).
 * <p>
 * Each run starts cold (the catalog's cache flushed on every worker, read-ahead settled) and starts its queries at
 * once: 1, 2, 5 and 10 identical light scans, and 5 different light scans of the same columns. Wall time until the
 * last query is done and the bytes the DataNodes sent over the run are both compared with one query of the same
 * catalog in the same round; rounds alternate the catalog order, the report shows medians over rounds. A sweep of
 * {@code cache.read-ahead} then runs 1 and 5 identical cold scans per value, each value its own catalog.
 * <p>
 * Settings (system properties, prefix {@code overdrive.benchmark.scan.}): {@code scale} (TPC-H scale factor, default
 * 1), {@code rounds} (default 2), {@code read-delay-ms} (every DataNode, per request, default 5), {@code bandwidth}
 * (all DataNodes together, per second, default 8MB: a light scan then waits on storage 8-9 tenths of its time; 1TB or
 * more: no limit), {@code concurrency} (default 1,2,5,10), {@code read-ahead}
 * (the sweep's values, default 0,2,4,8; empty skips the sweep), {@code shared-scans} (default true; false runs only
 * {@code hive} and a cache catalog without any shared-scan property, for a plugin built before shared scans),
 * {@code hedging} (default true: report each catalog's hedged read counters; false for a plugin built before them),
 * {@code settle} (default false; true: every catalog runs the light query once, unmeasured, at the measured storage
 * speed before the rounds). {@code scan_unhedged} is {@code scan_on} with hedged reads off: what hedging costs.
 */
public class SharedScanBenchmark
{
    static final String HIVE = "hive";
    static final String OFF = "scan_off";
    static final String ON = "scan_on";
    // shared scans with their defaults but row-group prefetch off: what prefetch adds to one cold query
    static final String NO_PREFETCH = "scan_noprefetch";
    // the page cache's defaults with hedged reads off (hedged-read.threadpool-size=0): what hedging costs on healthy storage
    static final String UNHEDGED = "scan_unhedged";
    // a miss also fetches the rest of its pages when the storage's measured cost of a request makes it worth it
    static final String REST_OF_PAGE = "scan_restofpage";
    static final String SCHEMA = "scan";
    static final String ROW_GROUP_SIZE = "16MB";
    // light: four narrow columns, a filter and a sum, so that a cold scan waits on storage rather than on the CPUs
    static final String LIGHT_QUERY = "SELECT count(*), sum(extendedprice * discount) FROM %s.scan.lineitem " +
            "WHERE shipdate >= DATE '1994-01-01' AND shipdate < DATE '1995-01-01' AND quantity < 24";
    // different filters and aggregates over the same four columns (the light query's), so they need the same pages
    static final List<String> DIFFERENT_QUERIES = List.of(
            LIGHT_QUERY,
            "SELECT count(*), sum(quantity) FROM %s.scan.lineitem WHERE shipdate < DATE '1995-06-17'",
            "SELECT min(extendedprice), max(extendedprice), sum(discount) FROM %s.scan.lineitem WHERE quantity > 10",
            "SELECT count(*), sum(quantity) FROM %s.scan.lineitem WHERE discount = 0.05 AND shipdate >= DATE '1996-01-01'",
            "SELECT count(*), sum(extendedprice) FROM %s.scan.lineitem WHERE extendedprice > 50000 AND discount < 0.03");
    static final String DIFFERENT = "5 different";
    // wide: every column of orders, so that each split reads its file from start to end, the reads read-ahead follows
    // (the light query's reads jump over the columns it does not need, and are not sequential)
    static final String WIDE_QUERY = "SELECT count(*), sum(totalprice), sum(orderkey + custkey + shippriority), max(orderstatus), max(orderdate), " +
            "max(orderpriority), max(clerk), max(comment) FROM %s.scan.orders";
    static final Map<String, String> SWEEP_QUERIES = Map.of("light", LIGHT_QUERY, "wide", WIDE_QUERY);
    // the shared-scan counters the report shows, in this order (a name the plugin does not export shows as -)
    static final List<String> COUNTERS = List.of("Fetches", "FetchedBytes", "CoalescedReads", "RemoteBytesSaved", "TakeOvers", "WaitTimeouts",
            "ReadAheadPages", "ReadAheadPagesUsed", "ReadAheadPagesWasted", "RestOfPageFetches", "RestOfPageBytes");

    // the runs flush the cache between them, which the read-ahead counters do not see
    static final String READ_AHEAD_COUNTERS_NOTE = "The read-ahead counters are approximate per run: a page fetched ahead and never read counts as wasted only a minute later (in a later run), " +
            "and one flushed unread before the next run counts as used if that run reads it again.\n\n";

    private final String scale = System.getProperty("overdrive.benchmark.scan.scale", "1");
    private final int rounds = Integer.getInteger("overdrive.benchmark.scan.rounds", 2);
    private final long readDelayMillis = Long.getLong("overdrive.benchmark.scan.read-delay-ms", 5);
    // a bandwidth this high is no limit (the hook still counts the bytes sent)
    private static final DataSize UNLIMITED = DataSize.of(1, DataSize.Unit.TERABYTE);
    private final DataSize bandwidth = DataSize.valueOf(System.getProperty("overdrive.benchmark.scan.bandwidth", "8MB"));
    private final List<Integer> concurrency = integers(System.getProperty("overdrive.benchmark.scan.concurrency", "1,2,5,10"));
    private final List<Integer> readAhead = integers(System.getProperty("overdrive.benchmark.scan.read-ahead", "0,2,4,8"));
    private final boolean sharedScans = Boolean.parseBoolean(System.getProperty("overdrive.benchmark.scan.shared-scans", "true"));
    // hedged reads are on by default: their counters are read from every overdrive_hive catalog (false: a plugin
    // built before they were)
    private final boolean hedging = Boolean.parseBoolean(System.getProperty("overdrive.benchmark.scan.hedging", "true"));
    // every catalog runs the light query once more, unmeasured, at the measured storage speed before the rounds: the
    // storage has been this speed for a while, as in a running cluster (without it, it slows 100-fold at the first round)
    private final boolean settle = Boolean.getBoolean("overdrive.benchmark.scan.settle");

    private final List<Double> loadSamples = Collections.synchronizedList(new ArrayList<>());
    private final List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, List<List<Object>>> expected = new HashMap<>();
    private TrinoProcessCluster cluster;
    private HdfsCluster hdfs;
    // stock hive's light query after the warm-up, storage unlimited: what the query costs when storage is not the limit
    private Run unlimited;

    @Test
    void sharedScanBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the shared scan benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench scan");
        if (!concurrency.contains(1)) {
            throw new IllegalArgumentException("overdrive.benchmark.scan.concurrency must include 1, the reference of every ratio: " + concurrency);
        }

        Instant started = Instant.now();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> loadSamples.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()), 0, 5, TimeUnit.SECONDS);
        Path work = TestingHdfs.workDirectory().resolve("shared-scan-benchmark");
        TrinoProcessCluster.deleteRecursively(work);
        Files.createDirectories(work);

        StringBuilder report = new StringBuilder();
        try (HdfsCluster hdfs = HdfsCluster.start(ProjectLayout.fromSystemProperty(), work.resolve("hdfs"), TestingHdfs.DATA_NODES)) {
            this.hdfs = hdfs;
            DataNodeMetrics dataNodes = new DataNodeMetrics(hdfs.dataNodeHttpUris(), Duration.ofMillis(Long.getLong("overdrive.benchmark.jmx-refresh-ms", 11_000)));
            try (TrinoProcessCluster cluster = start(work, HiveCatalogs.hiveOnHdfs(hdfs, "/shared-scan-benchmark/metastore"))) {
                this.cluster = cluster;
                report.append(load());
                warmUp();

                // the DataNodes' own metric against the server's count, over everything measured below
                long metricBefore = dataNodes.bytesRead();
                long countedBefore = hdfs.bytesRead();
                hdfs.setReadDelay(Duration.ofMillis(readDelayMillis));
                hdfs.setReadBandwidth(bandwidth.toBytes());
                Map<String, Map<String, Long>> hedgesBefore = hedgeCounters();
                if (settle) {
                    settleStorage();
                }
                Map<String, Map<String, Long>> hedgesSettled = hedgeCounters();
                Map<String, Map<String, List<Run>>> runs = rounds();
                Map<String, Map<Integer, Map<String, List<Run>>>> sweep = readAheadSweep();
                hdfs.clearReadBandwidth();
                hdfs.setReadDelay(Duration.ZERO);
                long metric = dataNodes.bytesRead() - metricBefore;
                long counted = hdfs.bytesRead() - countedBefore;

                report.append(results(runs));
                report.append(sweepResults(sweep));
                report.append(hedgeResults(hedgesBefore, hedgesSettled, hedgeCounters()));
                report.append("DataNodes' `BytesRead` metric over the measured runs: %s; the bytes counted as sent by the bandwidth hook, which the tables use: %s (%+.2f%%).\n"
                        .formatted(formatBytes(metric), formatBytes(counted), 100.0 * (counted - metric) / metric));
            }
        }
        finally {
            sampler.shutdownNow();
        }
        String markdown = header(started, Duration.between(started, Instant.now())) + report;
        Path output = writeReport("shared-scans.md", markdown);
        log("report written to " + output);
        assertTrue(mismatches.isEmpty(), "every catalog must return the same rows as stock hive: " + mismatches);
    }

    private TrinoProcessCluster start(Path work, Map<String, String> hive)
    {
        log("starting Trino");
        Map<String, String> writer = new LinkedHashMap<>(hive);
        // several row groups per file, as in real tables
        writer.put("parquet.writer.row-group-size", ROW_GROUP_SIZE);
        TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), work.resolve("trino"))
                .workers(1)
                .heapSize("1500m")
                .catalog(HIVE, "hive", writer)
                .catalog("tpch", "tpch", Map.of());
        if (!sharedScans) {
            // a plugin from before shared scans refuses their properties: a cache catalog without them is "off"
            return builder.catalog(OFF, "overdrive_hive", cache(work, hive, OFF, Map.of())).start();
        }
        builder.catalog(OFF, "overdrive_hive", cache(work, hive, OFF, Map.of("cache.shared-scans.enabled", "false")))
                .catalog(ON, "overdrive_hive", cache(work, hive, ON, Map.of()))
                .catalog(NO_PREFETCH, "overdrive_hive", cache(work, hive, NO_PREFETCH, Map.of("cache.row-group-prefetch", "false")))
                .catalog(UNHEDGED, "overdrive_hive", cache(work, hive, UNHEDGED, Map.of("hedged-read.threadpool-size", "0")))
                .catalog(REST_OF_PAGE, "overdrive_hive", cache(work, hive, REST_OF_PAGE, Map.of("cache.fetch-rest-of-page", "true")));
        for (int pages : readAhead) {
            builder.catalog(readAheadCatalog(pages), "overdrive_hive", cache(work, hive, readAheadCatalog(pages), Map.of("cache.read-ahead", Integer.toString(pages))));
        }
        return builder.start();
    }

    private Map<String, String> cache(Path work, Map<String, String> hive, String catalog, Map<String, String> sharedScans)
    {
        Map<String, String> properties = new LinkedHashMap<>(hive);
        properties.put("cache.enabled", "true");
        properties.put("cache.base-directory", work.resolve("cache-" + catalog).toString());
        properties.put("cache.max-size", "4GB");
        properties.putAll(sharedScans);
        return properties;
    }

    private static String readAheadCatalog(int pages)
    {
        return "scan_ra" + pages;
    }

    private List<String> catalogs()
    {
        return sharedScans ? List.of(OFF, ON) : List.of(OFF);
    }

    private List<String> scenarios()
    {
        List<String> scenarios = new ArrayList<>();
        concurrency.forEach(queries -> scenarios.add(Integer.toString(queries)));
        scenarios.add(DIFFERENT);
        return scenarios;
    }

    private static List<String> queries(String scenario)
    {
        return scenario.equals(DIFFERENT) ? DIFFERENT_QUERIES : Collections.nCopies(Integer.parseInt(scenario), LIGHT_QUERY);
    }

    private static String describe(String scenario)
    {
        return scenario.equals(DIFFERENT) ? DIFFERENT : scenario + " identical";
    }

    private String load()
    {
        long start = System.nanoTime();
        cluster.execute("CREATE SCHEMA hive." + SCHEMA);
        List<String> tables = sharedScans && !readAhead.isEmpty() ? List.of("lineitem", "orders") : List.of("lineitem");
        for (String table : tables) {
            cluster.execute("CREATE TABLE hive.%s.%s WITH (format = 'PARQUET') AS SELECT * FROM tpch.\"sf%s\".%2$s".formatted(SCHEMA, table, scale));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        log("data loaded in %.0f s".formatted(seconds));
        StringBuilder out = new StringBuilder("TPC-H at scale factor %s as Parquet on HDFS (3 DataNodes, replication 3), written with `parquet.writer.row-group-size=%s` in %.0f s:"
                .formatted(scale, ROW_GROUP_SIZE, seconds));
        for (String table : tables) {
            List<Object> size = cluster.query("SELECT count(*), sum(size) FROM (SELECT DISTINCT \"$path\", \"$file_size\" AS size FROM hive.%s.%s)".formatted(SCHEMA, table)).getFirst();
            out.append(" `%s` %s files, %s;".formatted(table, size.get(0), formatBytes(((Number) size.get(1)).longValue())));
        }
        out.setLength(out.length() - 1);
        return out.append(".\n\n").toString();
    }

    // unmeasured, storage unlimited: stock hive's rows are the reference; every catalog runs every query once (JIT,
    // metadata, first opens); then stock hive's light query once more, CPU bound, against which the limit is set
    private void warmUp()
    {
        log("warm-up");
        Stream.concat(Stream.of(LIGHT_QUERY), DIFFERENT_QUERIES.stream()).distinct()
                .forEach(sql -> expected.put(sql, cluster.query(sql.formatted(HIVE))));
        for (String catalog : catalogs()) {
            for (String sql : expected.keySet()) {
                check(catalog, sql, cluster.query(sql.formatted(catalog)), "warm-up");
            }
        }
        if (sharedScans) {
            check(NO_PREFETCH, LIGHT_QUERY, cluster.query(LIGHT_QUERY.formatted(NO_PREFETCH)), "warm-up");
            check(UNHEDGED, LIGHT_QUERY, cluster.query(LIGHT_QUERY.formatted(UNHEDGED)), "warm-up");
            check(REST_OF_PAGE, LIGHT_QUERY, cluster.query(LIGHT_QUERY.formatted(REST_OF_PAGE)), "warm-up");
        }
        if (sharedScans && !readAhead.isEmpty()) {
            SWEEP_QUERIES.values().forEach(sql -> expected.computeIfAbsent(sql, _ -> cluster.query(sql.formatted(HIVE))));
            for (int pages : readAhead) {
                SWEEP_QUERIES.values().forEach(sql -> check(readAheadCatalog(pages), sql, cluster.query(sql.formatted(readAheadCatalog(pages))), "warm-up"));
            }
        }
        unlimited = run(HIVE, List.of(LIGHT_QUERY), "warm-up, storage unlimited");
    }

    // unmeasured: every catalog's light query once at the measured storage speed
    private void settleStorage()
    {
        log("settle");
        run(HIVE, List.of(LIGHT_QUERY), "settle");
        for (String catalog : overdriveCatalogs()) {
            run(catalog, List.of(LIGHT_QUERY), "settle");
        }
    }

    private List<String> overdriveCatalogs()
    {
        List<String> catalogs = new ArrayList<>(catalogs());
        catalogs.remove(HIVE);
        if (sharedScans) {
            catalogs.add(NO_PREFETCH);
            catalogs.add(UNHEDGED);
            catalogs.add(REST_OF_PAGE);
            for (int pages : readAhead) {
                catalogs.add(readAheadCatalog(pages));
            }
        }
        return catalogs.stream().distinct().toList();
    }

    // the adaptive threshold of HDFS's own hedging during one run, polled over JMX: its range, and where it was when
    // HDFS hedged
    private final class HedgeTrace
    {
        private final String catalog;
        private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
        private final List<String> hedges = Collections.synchronizedList(new ArrayList<>());
        private final long started = System.nanoTime();
        private volatile long lastOps;
        private volatile long minMillis = Long.MAX_VALUE;
        private volatile long maxMillis;

        HedgeTrace(String catalog)
        {
            this.catalog = catalog;
            this.lastOps = stat("HedgedReadOps");
            poller.scheduleWithFixedDelay(this::poll, 0, 100, MILLISECONDS);
        }

        private long stat(String attribute)
        {
            return cluster.sumOverWorkers("io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog), attribute);
        }

        private void poll()
        {
            try {
                record();
            }
            catch (RuntimeException e) {
                hedges.add("poll failed: " + e);
            }
        }

        private void record()
        {
            long millis = stat("NativeThresholdMillis");
            long ops = stat("HedgedReadOps");
            minMillis = Math.min(minMillis, millis);
            maxMillis = Math.max(maxMillis, millis);
            if (ops > lastOps) {
                hedges.add("%d at %.1f s (threshold %d ms)".formatted(ops - lastOps, (System.nanoTime() - started) / 1e9, millis));
                lastOps = ops;
            }
        }

        String stop()
        {
            poller.shutdownNow();
            return "threshold %d-%d ms, hedges: %s".formatted(minMillis, maxMillis, hedges.isEmpty() ? "none" : String.join(", ", hedges));
        }
    }

    // per overdrive_hive catalog, the worker's hedged read counters; empty without hedging
    private Map<String, Map<String, Long>> hedgeCounters()
    {
        Map<String, Map<String, Long>> counters = new LinkedHashMap<>();
        if (!hedging) {
            return counters;
        }
        for (String catalog : overdriveCatalogs()) {
            Map<String, Long> values = new LinkedHashMap<>();
            for (String attribute : List.of("HedgedReadOps", "NativeThresholdMillis", "NativeThresholdSlowdowns")) {
                values.put(attribute, cluster.sumOverWorkers("io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog), attribute));
            }
            counters.put(catalog, values);
        }
        return counters;
    }

    private String hedgeResults(Map<String, Map<String, Long>> before, Map<String, Map<String, Long>> settled, Map<String, Map<String, Long>> after)
    {
        if (!hedging) {
            return "";
        }
        StringBuilder out = new StringBuilder("Hedged reads at their defaults in every `overdrive_hive` catalog but `%s` (HDFS's own hedging at Overdrive's adaptive threshold)%s. The worker's `HedgedReadStats` per catalog:\n\n"
                .formatted(UNHEDGED, settle ? "; before the rounds every catalog ran the light query once, unmeasured, at the measured storage speed" : "; the storage slowed from unlimited to the measured speed at the first round"))
                .append("| catalog | hedges while settling | hedges in the rounds and sweep | threshold at the end (ms) | storage-wide slowdowns seen |\n|---|---:|---:|---:|---:|\n");
        for (String catalog : after.keySet()) {
            out.append("| `%s` | %d | %d | %d | %d |\n".formatted(catalog,
                    settled.get(catalog).get("HedgedReadOps") - before.get(catalog).get("HedgedReadOps"),
                    after.get(catalog).get("HedgedReadOps") - settled.get(catalog).get("HedgedReadOps"),
                    after.get(catalog).get("NativeThresholdMillis"),
                    after.get(catalog).get("NativeThresholdSlowdowns")));
        }
        return out.append("\n").toString();
    }

    private Map<String, Map<String, List<Run>>> rounds()
    {
        Map<String, Map<String, List<Run>>> runs = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(catalogs());
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            // the anchor: stock Trino, one query, no cache
            add(runs, HIVE, "1", run(HIVE, List.of(LIGHT_QUERY), "round %d, %s".formatted(round + 1, describe("1"))));
            for (String scenario : scenarios()) {
                List<String> catalogs = new ArrayList<>(order);
                if (scenario.equals("1") && sharedScans) {
                    catalogs.add(round % 2 == 0 ? catalogs.size() : 0, NO_PREFETCH);
                    catalogs.add(round % 2 == 0 ? 0 : catalogs.size(), UNHEDGED);
                    catalogs.add(round % 2 == 0 ? catalogs.size() : 0, REST_OF_PAGE);
                }
                for (String catalog : catalogs) {
                    add(runs, catalog, scenario, run(catalog, queries(scenario), "round %d, %s".formatted(round + 1, describe(scenario))));
                }
            }
        }
        return runs;
    }

    // per sweep query, per read-ahead value, 1 and 5 identical queries
    private Map<String, Map<Integer, Map<String, List<Run>>>> readAheadSweep()
    {
        Map<String, Map<Integer, Map<String, List<Run>>>> sweep = new LinkedHashMap<>();
        if (!sharedScans || readAhead.isEmpty()) {
            return sweep;
        }
        for (int round = 0; round < rounds; round++) {
            List<Integer> order = new ArrayList<>(readAhead);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (String query : List.of("light", "wide")) {
                for (int queries : List.of(1, 5)) {
                    for (int pages : order) {
                        String label = "read-ahead sweep, round %d, %s, %d quer%s".formatted(round + 1, query, queries, queries == 1 ? "y" : "ies");
                        sweep.computeIfAbsent(query, _ -> new LinkedHashMap<>()).computeIfAbsent(pages, _ -> new LinkedHashMap<>()).computeIfAbsent(Integer.toString(queries), _ -> new ArrayList<>())
                                .add(run(readAheadCatalog(pages), Collections.nCopies(queries, SWEEP_QUERIES.get(query)), label));
                    }
                }
            }
        }
        return sweep;
    }

    private static void add(Map<String, Map<String, List<Run>>> runs, String catalog, String scenario, Run run)
    {
        runs.computeIfAbsent(catalog, _ -> new LinkedHashMap<>()).computeIfAbsent(scenario, _ -> new ArrayList<>()).add(run);
    }

    private record Run(double wallMillis, List<Double> queryMillis, long bytes, long requests, Map<String, Long> counters, int mismatched) {}

    private record QueryRun(double millis, boolean matched) {}

    // one cold run: the catalog's cache flushed, then every query started at once; the wall time ends with the last
    private Run run(String catalog, List<String> queries, String label)
    {
        if (!catalog.equals(HIVE)) {
            settle(catalog);
            cluster.query("SELECT * FROM TABLE(%s.system.flush_cache())".formatted(catalog));
        }
        Map<String, Long> countersBefore = counters(catalog);
        long bytesBefore = hdfs.bytesRead();
        long requestsBefore = hdfs.readRequests();
        ExecutorService executor = Executors.newFixedThreadPool(queries.size());
        HedgeTrace trace = hedging && !catalog.equals(HIVE) && !catalog.equals(UNHEDGED) ? new HedgeTrace(catalog) : null;
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<QueryRun>> futures = new ArrayList<>();
            for (String sql : queries) {
                futures.add(executor.submit(() -> {
                    go.await();
                    long start = System.nanoTime();
                    List<List<Object>> rows = cluster.query(sql.formatted(catalog));
                    double millis = (System.nanoTime() - start) / 1e6;
                    return new QueryRun(millis, check(catalog, sql, rows, label));
                }));
            }
            long start = System.nanoTime();
            go.countDown();
            List<Double> queryMillis = new ArrayList<>();
            int mismatched = 0;
            for (Future<QueryRun> future : futures) {
                QueryRun query = future.get();
                queryMillis.add(query.millis());
                mismatched += query.matched() ? 0 : 1;
            }
            double wallMillis = (System.nanoTime() - start) / 1e6;
            if (trace != null) {
                log("%s, %s: %s".formatted(label, catalog, trace.stop()));
            }
            long bytes = hdfs.bytesRead() - bytesBefore;
            long requests = hdfs.readRequests() - requestsBefore;
            Map<String, Long> counters = new LinkedHashMap<>();
            counters(catalog).forEach((name, value) -> counters.put(name, value - countersBefore.getOrDefault(name, 0L)));
            log("%s, %s: %s ms, %s in %s requests from the DataNodes%s".formatted(label, catalog, formatMillis(wallMillis), formatBytes(bytes), requests, counters.containsKey("CoalescedReads") ? ", " + counterSummary(counters) : ""));
            return new Run(wallMillis, queryMillis, bytes, requests, counters, mismatched);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
        catch (ExecutionException e) {
            throw new RuntimeException("a query of %s failed".formatted(catalog), e.getCause());
        }
        finally {
            executor.shutdownNow();
        }
    }

    private boolean check(String catalog, String sql, List<List<Object>> rows, String label)
    {
        if (ResultRows.same(rows, expected.get(sql))) {
            return true;
        }
        mismatches.add("%s, %s: %s".formatted(label, catalog, sql.formatted(catalog)));
        log("rows differ from stock hive's: %s, %s: %s".formatted(label, catalog, sql.formatted(catalog)));
        return false;
    }

    // read-ahead of the previous run may still be fetching pages no query asked for; they would land in the next
    // run's cache and bytes, so wait until the worker has no page in flight
    private void settle(String catalog)
    {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (counters(catalog).getOrDefault("PagesInFlight", 0L) > 0) {
            if (System.nanoTime() > deadline) {
                log("%s still has pages in flight after 60 s: %s".formatted(catalog, counters(catalog)));
                return;
            }
            sleepUninterruptibly(100, MILLISECONDS);
        }
    }

    private Map<String, Long> counters(String catalog)
    {
        if (catalog.equals(HIVE) || !sharedScans) {
            return Map.of();
        }
        Map<String, Long> counters = new HashMap<>();
        for (TrinoProcessCluster.TrinoNode worker : cluster.workers()) {
            JmxAttributes.counters(worker.jmxPort(), "io.overdrive.cache.scan:type=SharedScanStats,name=%s,*".formatted(catalog))
                    .forEach((name, value) -> counters.merge(name, value, Long::sum));
        }
        return counters;
    }

    private static String counterSummary(Map<String, Long> counters)
    {
        StringBuilder summary = new StringBuilder();
        for (String name : COUNTERS) {
            if (counters.containsKey(name)) {
                summary.append(summary.isEmpty() ? "" : " ").append(name).append('=').append(counters.get(name));
            }
        }
        return summary.toString();
    }

    // per round, a run against one query of the same catalog in the same round; the median over rounds
    private static double medianRatio(List<Run> runs, List<Run> single, Function<Run, Double> value)
    {
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < runs.size(); round++) {
            ratios.add(value.apply(runs.get(round)) / value.apply(single.get(round)));
        }
        return median(ratios);
    }

    // one value per round, each round's wall time in microseconds, for a bootstrap over rounds
    private static List<RatioInterval.Round> wallRounds(List<Run> runs)
    {
        return runs.stream().map(run -> RatioInterval.Round.single(Math.round(run.wallMillis() * 1000))).toList();
    }

    private static double medianOf(List<Run> runs, Function<Run, Double> value)
    {
        return median(runs.stream().map(value).toList());
    }

    private String results(Map<String, Map<String, List<Run>>> runs)
    {
        StringBuilder out = new StringBuilder();
        out.append("Query (\"light scan\"): `%s`. Different queries: the light query and 4 others with other filters and aggregates over the same 4 columns (`shipdate`, `quantity`, `discount`, `extendedprice`). "
                        .formatted(LIGHT_QUERY.formatted("<catalog>")))
                .append("Storage: every DataNode waits %d ms before each block read request, and all DataNodes together send at most %s per second to readers (one token bucket, so concurrent readers compete for it). "
                        .formatted(readDelayMillis, bandwidth.succinct()))
                .append("One light query on stock `hive`, storage unlimited (after the warm-up): %s ms, %s from the DataNodes.\n\n".formatted(formatMillis(unlimited.wallMillis()), formatBytes(unlimited.bytes())))
                .append(sharedScans
                        ? "Catalogs: `%s` = stock Trino, no cache (the anchor, single query); `%s` = `overdrive_hive`, page cache on, `cache.shared-scans.enabled=false`; `%s` = page cache on, shared scans with their defaults. ".formatted(HIVE, OFF, ON)
                        : "Catalogs: `%s` = stock Trino, no cache (the anchor, single query); `%s` = `overdrive_hive`, page cache on, a plugin without shared scans (calibration). ".formatted(HIVE, OFF))
                .append("Every run is cold: the catalog's cache flushed on the worker (`flush_cache()`) and its read-ahead settled, then all its queries start at once. %d rounds, catalogs in alternating order; medians over the rounds.\n\n".formatted(rounds));

        out.append("| queries | catalog | wall ms | vs 1 query | mean query ms | DataNode bytes | vs 1 query | DataNode requests | off/on wall | off/on bytes | rows as `hive` |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> catalogs = new ArrayList<>();
        catalogs.add(HIVE);
        catalogs.addAll(catalogs());
        for (String scenario : scenarios()) {
            for (String catalog : catalogs) {
                List<Run> scenarioRuns = runs.getOrDefault(catalog, Map.of()).get(scenario);
                if (scenarioRuns == null) {
                    continue;
                }
                List<Run> single = runs.get(catalog).get("1");
                boolean on = catalog.equals(ON);
                out.append("| %s | `%s` | %s | %.2fx | %s | %s | %.2fx | %.0f | %s | %s | %s |\n".formatted(
                        describe(scenario),
                        catalog,
                        formatMillis(medianOf(scenarioRuns, Run::wallMillis)),
                        medianRatio(scenarioRuns, single, Run::wallMillis),
                        formatMillis(medianOf(scenarioRuns, run -> run.queryMillis().stream().mapToDouble(Double::doubleValue).average().orElseThrow())),
                        formatBytes((long) medianOf(scenarioRuns, run -> (double) run.bytes())),
                        medianRatio(scenarioRuns, single, run -> (double) run.bytes()),
                        medianOf(scenarioRuns, run -> (double) run.requests()),
                        on ? "%.2fx".formatted(medianRatio(runs.get(OFF).get(scenario), scenarioRuns, Run::wallMillis)) : "",
                        on ? "%.2fx".formatted(medianRatio(runs.get(OFF).get(scenario), scenarioRuns, run -> (double) run.bytes())) : "",
                        rowsMatch(scenarioRuns)));
            }
        }
        out.append("\nWall = from starting the queries to the last one done (JDBC, as clients see it); vs 1 query = this run's against the same catalog's single query in the same round (median of the per-round ratios). ")
                .append("DataNode bytes = what all DataNodes sent to readers over the run (data and checksums, metastore reads and footers included), counted by the server as it sends them; DataNode requests = the block read requests they served (each waits the per-request delay). ")
                .append("The different queries are compared with one light query too. Off/on: `%s`'s wall time and bytes against `%s`'s in the same round (median of the per-round ratios; above 1 = shared scans faster, fewer bytes).\n\n".formatted(OFF, ON));
        if (sharedScans) {
            out.append(counterTable("`%s`'s `SharedScanStats` on the worker, per run (medians over the rounds):".formatted(ON), scenarios(), scenario -> runs.get(ON).get(scenario)));
            out.append(READ_AHEAD_COUNTERS_NOTE);
            out.append(goals(runs));
        }
        return out.toString();
    }

    private static String rowsMatch(List<Run> runs)
    {
        int mismatched = runs.stream().mapToInt(Run::mismatched).sum();
        return mismatched == 0 ? "yes" : "no: %d queries differ (see the log)".formatted(mismatched);
    }

    private static String counterTable(String title, List<String> rows, Function<String, List<Run>> runs)
    {
        StringBuilder out = new StringBuilder(title).append("\n\n| run | ");
        COUNTERS.forEach(name -> out.append(name).append(" | "));
        out.append("\n|---|").append("---:|".repeat(COUNTERS.size())).append('\n');
        for (String row : rows) {
            out.append("| ").append(row).append(" | ");
            for (String name : COUNTERS) {
                List<Run> rowRuns = runs.apply(row);
                if (rowRuns.stream().anyMatch(run -> !run.counters().containsKey(name))) {
                    out.append("- | ");
                    continue;
                }
                long value = (long) medianOf(rowRuns, run -> (double) run.counters().get(name));
                out.append(name.endsWith("Bytes") || name.endsWith("Saved") ? formatBytes(value) : Long.toString(value)).append(" | ");
            }
            out.append('\n');
        }
        return out.append('\n').toString();
    }

    private String goals(Map<String, Map<String, List<Run>>> runs)
    {
        StringBuilder out = new StringBuilder("Against the goals:\n\n| goal | `%s` | `%s` | met? |\n|---|---:|---:|---|\n".formatted(OFF, ON));
        if (concurrency.contains(5)) {
            double offTime = medianRatio(runs.get(OFF).get("5"), runs.get(OFF).get("1"), Run::wallMillis);
            double onTime = medianRatio(runs.get(ON).get("5"), runs.get(ON).get("1"), Run::wallMillis);
            double offBytes = medianRatio(runs.get(OFF).get("5"), runs.get(OFF).get("1"), run -> (double) run.bytes());
            double onBytes = medianRatio(runs.get(ON).get("5"), runs.get(ON).get("1"), run -> (double) run.bytes());
            out.append("| 5 concurrent identical cold scans: wall <= 1.2x one scan's | %.2fx | %.2fx | %s |\n".formatted(offTime, onTime, onTime <= 1.2 ? "yes" : "no"));
            out.append("| 5 concurrent identical cold scans: remote bytes <= 1.1x one scan's | %.2fx | %.2fx | %s |\n".formatted(offBytes, onBytes, onBytes <= 1.1 ? "yes" : "no"));
        }
        List<Run> off = runs.get(OFF).get("1");
        List<Run> on = runs.get(ON).get("1");
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < on.size(); round++) {
            ratios.add(on.get(round).wallMillis() / off.get(round).wallMillis());
        }
        double single = median(ratios);
        out.append("| one cold query: shared scans on no slower than off (<= 1.03x) | 1.00x | %.2fx | %s |\n\n".formatted(single, single <= 1.03 ? "yes" : "no"));
        out.append(againstStock(runs));
        return out.toString();
    }

    // one cold query of each cache catalog against stock Trino's in the same round: what a user who turns the cache on
    // pays for the first query of the day
    private String againstStock(Map<String, Map<String, List<Run>>> runs)
    {
        List<Run> stock = runs.get(HIVE).get("1");
        StringBuilder out = new StringBuilder("One cold query against stock Trino (`%s`, no cache) in the same round (median of the per-round ratios; %d ms per request, %s):\n\n"
                .formatted(HIVE, readDelayMillis, bandwidth.toBytes() >= UNLIMITED.toBytes() ? "bandwidth unlimited" : bandwidth.succinct() + " per second"))
                .append("| catalog | wall vs stock | wall: pooled ratio, 95%% interval (%s), verdict | DataNode bytes vs stock | DataNode requests vs stock | goal: bytes <= 1.05x | goal: wall <= 1.0x |\n|---|---:|---|---:|---:|---|---|\n"
                        .formatted(rounds > 1 ? "%d rounds resampled, bootstrap".formatted(rounds) : "one round: no interval"));
        List<String> catalogs = new ArrayList<>(catalogs());
        if (sharedScans) {
            catalogs.add(NO_PREFETCH);
            catalogs.add(UNHEDGED);
            catalogs.add(REST_OF_PAGE);
        }
        for (String catalog : catalogs) {
            List<Run> cache = runs.get(catalog).get("1");
            double wall = medianRatio(cache, stock, Run::wallMillis);
            double bytes = medianRatio(cache, stock, run -> (double) run.bytes());
            double requests = medianRatio(cache, stock, run -> (double) run.requests());
            RatioInterval.Estimate interval = RatioInterval.estimate(wallRounds(cache), wallRounds(stock), RatioInterval.Statistic.TOTAL);
            out.append("| `%s` | %.2fx | %s, %s, %s | %.2fx | %.2fx | %s | %s |\n".formatted(catalog, wall, interval.ratioText(), interval.intervalText(), interval.verdict().label(),
                    bytes, requests, bytes <= 1.05 ? "yes" : "no", wall <= 1.0 ? "yes" : "no"));
        }
        if (sharedScans) {
            List<Run> unhedged = runs.get(UNHEDGED).get("1");
            double wall = medianRatio(runs.get(ON).get("1"), unhedged, Run::wallMillis);
            double bytes = medianRatio(runs.get(ON).get("1"), unhedged, run -> (double) run.bytes());
            out.append("\nWhat hedged reads at their defaults cost on this healthy storage: `%s` against `%s` (the same catalog with `hedged-read.threadpool-size=0`) in the same round: wall %.2fx (goal <= 1.02x: %s), DataNode bytes %.2fx (goal <= 1.05x: %s).\n"
                    .formatted(ON, UNHEDGED, wall, wall <= 1.02 ? "yes" : "no", bytes, bytes <= 1.05 ? "yes" : "no"));
        }
        return out.append('\n').toString();
    }

    private String sweepResults(Map<String, Map<Integer, Map<String, List<Run>>>> sweep)
    {
        if (sweep.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("`cache.read-ahead` sweep: one catalog per value (shared scans on, other settings default), 1 and 5 identical cold queries, %d rounds in alternating order, medians. ".formatted(rounds))
                .append("Light = the light scan above (4 of 16 columns: its reads jump over the others); wide = `%s` (every column, so each split reads its range of the file from start to end).\n\n".formatted(WIDE_QUERY.formatted("<catalog>")));
        out.append("| query | `cache.read-ahead` | 1 query ms | 5 queries ms | 5 vs 1 | 1 query bytes | 5 queries bytes | 5 vs 1 | 1 query requests | 1 query vs read-ahead %d |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n".formatted(readAhead.getFirst()));
        List<String> rows = new ArrayList<>();
        Map<String, List<Run>> byRow = new HashMap<>();
        sweep.forEach((query, values) -> {
            List<Run> noReadAhead = values.values().iterator().next().get("1");
            values.forEach((pages, scenarios) -> {
                List<Run> single = scenarios.get("1");
                List<Run> five = scenarios.get("5");
                out.append("| %s | %d | %s | %s | %.2fx | %s | %s | %.2fx | %.0f | %.2fx |\n".formatted(
                        query,
                        pages,
                        formatMillis(medianOf(single, Run::wallMillis)),
                        formatMillis(medianOf(five, Run::wallMillis)),
                        medianRatio(five, single, Run::wallMillis),
                        formatBytes((long) medianOf(single, run -> (double) run.bytes())),
                        formatBytes((long) medianOf(five, run -> (double) run.bytes())),
                        medianRatio(five, single, run -> (double) run.bytes()),
                        medianOf(single, run -> (double) run.requests()),
                        medianRatio(single, noReadAhead, Run::wallMillis)));
                scenarios.forEach((queries, runs) -> {
                    String row = "%s, read-ahead %d, %s quer%s".formatted(query, pages, queries, queries.equals("1") ? "y" : "ies");
                    rows.add(row);
                    byRow.put(row, runs);
                });
            });
        });
        out.append("\n1 query vs read-ahead %d: this value's single-query wall time against that value's, same round, median of the ratios (below 1 = faster).\n\n".formatted(readAhead.getFirst()));
        out.append(counterTable("Their `SharedScanStats`, per run (medians):", rows, byRow::get));
        out.append(READ_AHEAD_COUNTERS_NOTE);
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

    private static List<Integer> integers(String list)
    {
        return Stream.of(list.split(",")).map(String::strip).filter(value -> !value.isEmpty()).map(Integer::valueOf).toList();
    }

    static void log(String message)
    {
        System.out.println("[overdrive-bench-scan] " + message);
    }
}
