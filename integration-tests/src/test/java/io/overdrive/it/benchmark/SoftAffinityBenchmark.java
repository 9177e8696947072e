package io.overdrive.it.benchmark;

import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;
import io.overdrive.it.harness.TrinoProcessCluster.TrinoNode;
import org.junit.jupiter.api.Test;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import java.io.IOException;
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
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static io.overdrive.it.benchmark.BenchmarkStats.formatBytes;
import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.formatRatio;
import static io.overdrive.it.benchmark.BenchmarkStats.percentile;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue #4's benchmark: soft affinity on a multi-process cluster (coordinator + 3 worker JVMs on loopback, one HDFS in
 * its own JVM). Not part of the test run: {@code ./overdrive bench affinity} runs it ({@code -Doverdrive.benchmark=true})
 * and prints the Markdown report it writes to {@code integration-tests/target/benchmarks/soft-affinity.md}.
 * <p>
 * Catalogs over one file metastore: {@code nopref} ({@code overdrive_hive} + page cache, {@code NO_PREFERENCE}),
 * {@code soft} ({@code overdrive_hive} + page cache, {@code SOFT_AFFINITY}), {@code trino_affinity} (stock {@code hive}
 * + Trino's {@code fs.cache}, whose splits carry an affinity key that the coordinator maps to
 * {@code node-scheduler.cache-preferred-hosts-count} preferred workers), plus {@code hive} (writes the data) and
 * {@code tpch}. Each cache catalog has its own relative cache directory, so each worker process has its own cache.
 * <p>
 * Repeated workload: the same queries over a partitioned table (dozens of files) R times per catalog; hit ratio over
 * runs 2..R from each cache's own counters summed over the workers, cached bytes and copies from the page files on
 * the workers' disks. Skewed workload: K concurrent clients run N queries over a table of two hot partitions; P50/P95.
 * <p>
 * Settings (system properties): {@code overdrive.benchmark.affinity.scale} (TPC-H scale factor, default 0.1),
 * {@code .repetitions} (default 4), {@code .clients} (default 6), {@code .queries} (skewed queries per catalog,
 * default 60), {@code .max-splits-per-node} (default 16), {@code .min-pending-splits-per-task} (default 4).
 */
public class SoftAffinityBenchmark
{
    static final String NOPREF = "nopref";
    static final String SOFT = "soft";
    static final String TRINO = "trino_affinity";
    static final List<String> CACHE_CATALOGS = List.of(NOPREF, SOFT, TRINO);
    static final String SCHEMA = "bench";
    static final String CACHE_SIZE = "2GB";
    static final String SPLIT_SIZE = "1MB";

    static final Map<String, String> REPEATED_QUERIES = Map.of(
            "R1", "SELECT returnflag, linestatus, sum(quantity), sum(extendedprice * (1 - discount)), count(*) FROM %s.bench.lineitem GROUP BY 1, 2 ORDER BY 1, 2",
            "R2", "SELECT shipmode, shipyear, sum(extendedprice * discount) FROM %s.bench.lineitem WHERE discount BETWEEN 0.05 AND 0.07 GROUP BY 1, 2 ORDER BY 1, 2",
            "R3", "SELECT shipyear, count(*), max(comment), sum(tax) FROM %s.bench.lineitem WHERE shipmode IN ('AIR', 'MAIL', 'SHIP') GROUP BY 1 ORDER BY 1");
    static final List<String> HOT_QUERIES = List.of(
            "SELECT part, count(*), sum(extendedprice), max(comment) FROM %s.bench.hot GROUP BY part ORDER BY part",
            "SELECT returnflag, sum(quantity * discount), count(*) FROM %s.bench.hot WHERE part = 0 GROUP BY 1 ORDER BY 1",
            "SELECT count(*), sum(tax), max(shipdate) FROM %s.bench.hot WHERE part = 1 AND shipdate > DATE '1995-01-01'");

    private final String scale = System.getProperty("overdrive.benchmark.affinity.scale", "0.1");
    private final int repetitions = Integer.getInteger("overdrive.benchmark.affinity.repetitions", 4);
    private final int clients = Integer.getInteger("overdrive.benchmark.affinity.clients", 6);
    private final int skewedQueries = Integer.getInteger("overdrive.benchmark.affinity.queries", 60);
    private final int maxSplitsPerNode = Integer.getInteger("overdrive.benchmark.affinity.max-splits-per-node", 16);
    private final int minPendingSplitsPerTask = Integer.getInteger("overdrive.benchmark.affinity.min-pending-splits-per-task", 4);

    private final List<Double> loadSamples = Collections.synchronizedList(new ArrayList<>());
    private final List<String> mismatches = new ArrayList<>();

    @Test
    void softAffinityBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the soft affinity benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench affinity");

        Instant started = Instant.now();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> loadSamples.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()), 0, 5, TimeUnit.SECONDS);
        Path work = TestingHdfs.workDirectory().resolve("soft-affinity-benchmark");
        TrinoProcessCluster.deleteRecursively(work);
        Files.createDirectories(work);

        StringBuilder report = new StringBuilder();
        try (HdfsCluster hdfs = HdfsCluster.start(ProjectLayout.fromSystemProperty(), work.resolve("hdfs"), TestingHdfs.DATA_NODES)) {
            Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/soft-affinity-benchmark/metastore");
            Map<String, String> writer = new LinkedHashMap<>(hive);
            // many row groups per file, so that a hot file is many splits
            writer.put("parquet.writer.row-group-size", SPLIT_SIZE);
            // Trino's fs.cache wants its (relative, so per worker) directory to exist when the catalog loads; the
            // harness creates each node's home just before starting its JVM, so create the directory as soon as the
            // home appears (catalogs load tens of seconds later)
            Thread directoryMaker = Thread.ofPlatform().daemon().start(() -> createTrinoCacheDirectories(work.resolve("trino")));
            try (TrinoProcessCluster cluster = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), work.resolve("trino"))
                    .workers(3)
                    .heapSize("900m")
                    .coordinatorProperty("node-scheduler.max-splits-per-node", Integer.toString(maxSplitsPerNode))
                    .coordinatorProperty("node-scheduler.min-pending-splits-per-task", Integer.toString(minPendingSplitsPerTask))
                    .catalog(NOPREF, "overdrive_hive", overdrive(hive, "NO_PREFERENCE"))
                    .catalog(SOFT, "overdrive_hive", overdrive(hive, "SOFT_AFFINITY"))
                    .catalog(TRINO, "hive", trinoCache(hive))
                    .catalog("hive", "hive", writer)
                    .catalog("tpch", "tpch", Map.of())
                    .start()) {
                directoryMaker.interrupt();
                new Run(cluster, report).run();
            }
        }
        finally {
            sampler.shutdownNow();
        }
        String markdown = header(started, Duration.between(started, Instant.now())) + report;
        Path output = writeReport("soft-affinity.md", markdown);
        log("report written to " + output);
        assertTrue(mismatches.isEmpty(), "every catalog must return the same rows as stock hive: " + mismatches);
    }

    private static void createTrinoCacheDirectories(Path trino)
    {
        java.util.Set<String> done = new java.util.HashSet<>();
        while (!Thread.currentThread().isInterrupted() && done.size() < 4) {
            for (String node : List.of("coordinator", "worker-1", "worker-2", "worker-3")) {
                Path home = trino.resolve(node);
                if (!done.contains(node) && Files.isDirectory(home.resolve("etc/catalog"))) {
                    try {
                        Files.createDirectories(home.resolve("cache-" + TRINO));
                        done.add(node);
                    }
                    catch (IOException e) {
                        // the home is being (re)created; try again
                    }
                }
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    private static Map<String, String> readerSettings(Map<String, String> hive)
    {
        Map<String, String> properties = new LinkedHashMap<>(hive);
        // small splits with equal weights: a hot file is many splits and node-scheduler.max-splits-per-node counts splits
        properties.put("hive.max-split-size", SPLIT_SIZE);
        properties.put("hive.parquet.max-split-size", SPLIT_SIZE);
        properties.put("hive.size-based-split-weights-enabled", "false");
        return properties;
    }

    private static Map<String, String> overdrive(Map<String, String> hive, String strategy)
    {
        Map<String, String> properties = readerSettings(hive);
        properties.put("cache.enabled", "true");
        // relative: each worker process has its own working directory, so its own cache
        properties.put("cache.base-directory", "cache-" + (strategy.equals("SOFT_AFFINITY") ? SOFT : NOPREF));
        properties.put("cache.max-size", CACHE_SIZE);
        properties.put("node-selection-strategy", strategy);
        return properties;
    }

    private static Map<String, String> trinoCache(Map<String, String> hive)
    {
        Map<String, String> properties = readerSettings(hive);
        properties.put("fs.cache.enabled", "true");
        properties.put("fs.cache.directories", "cache-" + TRINO);
        properties.put("fs.cache.max-sizes", CACHE_SIZE);
        return properties;
    }

    private final class Run
    {
        private final TrinoProcessCluster cluster;
        private final StringBuilder out;

        Run(TrinoProcessCluster cluster, StringBuilder out)
        {
            this.cluster = cluster;
            this.out = out;
        }

        void run()
                throws Exception
        {
            loadData();
            repeatedWorkload();
            skewedWorkload();
        }

        void loadData()
        {
            long start = System.nanoTime();
            String source = "tpch.\"sf%s\".lineitem".formatted(scale);
            cluster.execute("CREATE SCHEMA hive.bench");
            cluster.execute(("CREATE TABLE hive.bench.lineitem WITH (format = 'PARQUET', partitioned_by = ARRAY['shipmode', 'shipyear']) AS " +
                    "SELECT orderkey, partkey, suppkey, quantity, extendedprice, discount, tax, returnflag, linestatus, shipdate, comment, shipmode, year(shipdate) AS shipyear FROM %s").formatted(source));
            cluster.execute(("CREATE TABLE hive.bench.hot WITH (format = 'PARQUET', partitioned_by = ARRAY['part']) AS " +
                    "SELECT orderkey, partkey, suppkey, quantity, extendedprice, discount, tax, returnflag, linestatus, shipdate, comment, orderkey %% 2 AS part FROM %s").formatted(source));
            // one-row table that loads each catalog on every worker before anything is measured
            cluster.execute("CREATE TABLE hive.bench.warmup WITH (format = 'PARQUET') AS SELECT 1 AS x");
            double seconds = (System.nanoTime() - start) / 1e9;
            out.append("TPC-H `lineitem` at scale factor %s as Parquet on HDFS (3 DataNodes), loaded in %.0f s:\n\n".formatted(scale, seconds));
            out.append("| table | files | bytes | rows |\n|---|---:|---:|---:|\n");
            for (String table : List.of("lineitem", "hot")) {
                List<Object> size = cluster.query("SELECT count(*), sum(size) FROM (SELECT DISTINCT \"$path\", \"$file_size\" AS size FROM hive.bench.%s)".formatted(table)).getFirst();
                Object rows = cluster.query("SELECT count(*) FROM hive.bench." + table).getFirst().getFirst();
                out.append("| `%s` | %s | %s | %,d |\n".formatted(table, size.get(0), formatBytes(((Number) size.get(1)).longValue()), ((Number) rows).longValue()));
            }
            out.append("\n`lineitem` is partitioned by `shipmode, year(shipdate)` (the repeated workload); `hot` by `orderkey % 2` (two hot partitions, the skewed workload). ")
                    .append("Written with `parquet.writer.row-group-size=%s`; every reading catalog uses `hive.max-split-size=%s`, `hive.parquet.max-split-size=%s` and `hive.size-based-split-weights-enabled=false`, so a file is several equal-weight splits. ".formatted(SPLIT_SIZE, SPLIT_SIZE, SPLIT_SIZE))
                    .append("Coordinator: `node-scheduler.max-splits-per-node=%d`, `node-scheduler.min-pending-splits-per-task=%d` (Trino defaults 256 and 16: lowered so that at this data size a worker can be full, as on a busy cluster; the same for every catalog). ".formatted(maxSplitsPerNode, minPendingSplitsPerTask))
                    .append("Preferred hosts at their defaults: 2 for Trino (`node-scheduler.cache-preferred-hosts-count`), 1,000 for Overdrive (`node-selection.preferred-hosts-count`: every worker a file's splits reach under the load bound caches it). Cache size %s per worker and catalog, page size and admission at their defaults.\n\n".formatted(CACHE_SIZE));
            for (String catalog : CACHE_CATALOGS) {
                cluster.query("SELECT count(*) FROM %s.bench.warmup".formatted(catalog));
            }
            log("data loaded in %.0f s".formatted(seconds));
        }

        void repeatedWorkload()
                throws IOException
        {
            Map<String, List<List<Object>>> expected = new HashMap<>();
            REPEATED_QUERIES.forEach((name, sql) -> expected.put(name, cluster.query(sql.formatted("hive"))));
            Map<String, double[]> afterFirst = new LinkedHashMap<>();
            Map<String, List<Double>> firstMillis = new LinkedHashMap<>();
            Map<String, List<Double>> laterMillis = new LinkedHashMap<>();
            for (int round = 0; round < repetitions; round++) {
                for (String catalog : rotate(CACHE_CATALOGS, round)) {
                    double passMillis = 0;
                    for (Map.Entry<String, String> query : new TreeMap<>(REPEATED_QUERIES).entrySet()) {
                        long start = System.nanoTime();
                        List<List<Object>> rows = cluster.query(query.getValue().formatted(catalog));
                        passMillis += (System.nanoTime() - start) / 1e6;
                        if (!ResultRows.same(rows, expected.get(query.getKey()))) {
                            mismatches.add(catalog + " " + query.getKey());
                        }
                    }
                    (round == 0 ? firstMillis : laterMillis).computeIfAbsent(catalog, _ -> new ArrayList<>()).add(passMillis);
                    if (round == 0) {
                        afterFirst.put(catalog, cacheBytes(catalog, null));
                    }
                }
                log("repeated workload: round %d of %d done".formatted(round + 1, repetitions));
            }
            out.append("### Repeated workload\n\n");
            out.append("Queries R1-R3 (below) over `lineitem`, %d rounds; each round runs the three queries once per catalog, catalogs in a rotating order. Round 1 fills the caches (warm-up); hit ratio = bytes read from the cache / (from the cache + from HDFS) over rounds 2-%d, summed over the 3 workers, from each cache's own counters (Overdrive `PageCacheStats` `BytesFromCache`/`BytesFromRemote`, Trino `AlluxioCacheStats` `CacheReads`/`ExternalReads`). Cached bytes: the page files on the workers' disks after the last round; distinct = each (file id, page) counted once; copies = on how many workers some page of a file id is cached.\n\n".formatted(repetitions, repetitions));
            out.append("| catalog | placement | pass 1 (ms) | later passes, median (ms) | hit ratio, rounds 2-%d | hit ratio, all rounds | cached on disk (3 workers) | distinct cached | duplication | avg copies per cached file | files cached |\n".formatted(repetitions));
            out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (String catalog : CACHE_CATALOGS) {
                double[] total = cacheBytes(catalog, null);
                double[] first = afterFirst.get(catalog);
                double laterHit = ratio(total[0] - first[0], total[1] - first[1]);
                DiskCache disk = diskCache(catalog);
                out.append("| `%s` | %s | %s | %s | %s | %s | %s | %s | %.2fx | %.2f | %d |\n".formatted(catalog, placement(catalog),
                        formatMillis(firstMillis.get(catalog).getFirst()), formatMillis(percentile(laterMillis.get(catalog), 50)),
                        formatRatio(laterHit), formatRatio(ratio(total[0], total[1])),
                        formatBytes(disk.totalBytes()), formatBytes(disk.distinctBytes()), disk.totalBytes() / (double) Math.max(1, disk.distinctBytes()),
                        disk.averageCopies(), disk.files()));
                log("%s: cache bytes %s, disk %s, per-worker %s".formatted(catalog, java.util.Arrays.toString(total), disk, java.util.Arrays.toString(perWorker(catalog))));
            }
            out.append("\nOverdrive's own `BytesCached` (sum over workers): `nopref` %s, `soft` %s.\n\n".formatted(
                    formatBytes(sumOverWorkers(overdriveStats(NOPREF), "BytesCached")), formatBytes(sumOverWorkers(overdriveStats(SOFT), "BytesCached"))));
            out.append("```sql\n");
            new TreeMap<>(REPEATED_QUERIES).forEach((name, sql) -> out.append("-- ").append(name).append('\n').append(sql.formatted("<catalog>")).append(";\n"));
            out.append("```\n\n");
        }

        void skewedWorkload()
                throws Exception
        {
            List<List<List<Object>>> expected = new ArrayList<>();
            HOT_QUERIES.forEach(sql -> expected.add(cluster.query(sql.formatted("hive"))));
            // warm-up: each catalog caches the hot files (sequentially) and checks its answers
            for (String catalog : CACHE_CATALOGS) {
                for (int pass = 0; pass < 2; pass++) {
                    for (int i = 0; i < HOT_QUERIES.size(); i++) {
                        if (!ResultRows.same(cluster.query(HOT_QUERIES.get(i).formatted(catalog)), expected.get(i))) {
                            mismatches.add(catalog + " hot " + i);
                        }
                    }
                }
            }
            // two halves in mirrored order (A B C C B A), so that drift spreads over the catalogs alike
            List<String> order = new ArrayList<>(List.of(TRINO, SOFT, NOPREF));
            List<String> mirrored = new ArrayList<>(order);
            Collections.reverse(mirrored);
            order.addAll(mirrored);
            Map<String, List<Double>> latencies = new LinkedHashMap<>();
            Map<String, Double> wallSeconds = new LinkedHashMap<>();
            Map<String, long[]> workerBytes = new LinkedHashMap<>();
            long[] placementBefore = placement();
            long[] softPlacement = new long[3];
            for (String catalog : order) {
                long[] before = perWorker(catalog);
                long[] placementStart = placement();
                long start = System.nanoTime();
                latencies.computeIfAbsent(catalog, _ -> Collections.synchronizedList(new ArrayList<>())).addAll(concurrent(catalog, skewedQueries / 2));
                wallSeconds.merge(catalog, (System.nanoTime() - start) / 1e9, Double::sum);
                long[] after = perWorker(catalog);
                long[] sum = workerBytes.computeIfAbsent(catalog, _ -> new long[after.length]);
                for (int i = 0; i < after.length; i++) {
                    sum[i] += after[i] - before[i];
                }
                if (catalog.equals(SOFT)) {
                    long[] placementEnd = placement();
                    for (int i = 0; i < 3; i++) {
                        softPlacement[i] += placementEnd[i] - placementStart[i];
                    }
                }
                log("skewed workload: half of %s done, P95 so far %.0f ms".formatted(catalog, percentile(latencies.get(catalog), 95)));
            }
            out.append("### Skewed workload (hot files)\n\n");
            out.append("%d concurrent clients (threads, one JDBC connection per query) run %d queries per catalog over the two partitions of `hot` (H1-H3 in turn), in two halves per catalog in the order %s. Caches warmed first (each query twice per catalog). Latency is per query, client side. Bytes read per worker = cache + remote bytes of that catalog's cache counters during the measured queries, i.e. where the hot files' splits ran.\n\n"
                    .formatted(clients, skewedQueries / 2 * 2, String.join(", ", order.stream().map(c -> "`" + c + "`").toList())));
            out.append("| catalog | split placement | P50 (ms) | P95 (ms) | max (ms) | queries/s | bytes read per worker (w1 / w2 / w3) | max / avg |\n|---|---|---:|---:|---:|---:|---|---:|\n");
            for (String catalog : List.of(TRINO, SOFT, NOPREF)) {
                List<Double> samples = latencies.get(catalog);
                long[] bytes = workerBytes.get(catalog);
                double averageBytes = java.util.Arrays.stream(bytes).average().orElse(0);
                out.append("| `%s` | %s | %s | %s | %s | %.2f | %s | %.2f |\n".formatted(catalog, placement(catalog),
                        formatMillis(percentile(samples, 50)), formatMillis(percentile(samples, 95)), formatMillis(percentile(samples, 100)),
                        samples.size() / wallSeconds.get(catalog), String.join(" / ", java.util.Arrays.stream(bytes).mapToObj(BenchmarkStats::formatBytes).toList()),
                        averageBytes == 0 ? 1 : java.util.Arrays.stream(bytes).max().orElse(0) / averageBytes));
            }
            long[] placementAll = placement();
            out.append("\n`soft` split placement during its measured queries (coordinator `PlacementStats`): preferred %,d, alternative %,d, fallback %,d; over the whole run: preferred %,d, alternative %,d, fallback %,d (last scan's imbalance %.2f; the catalog's load account at the end: %s).\n\n".formatted(
                    softPlacement[0], softPlacement[1], softPlacement[2], placementAll[0], placementAll[1], placementAll[2],
                    jmxDouble(cluster.coordinator().jmxPort(), placementStats(), "LastQueryImbalance"),
                    jmxString(cluster.coordinator().jmxPort(), placementStats(), "WorkerLoads")));
            out.append("```sql\n");
            for (int i = 0; i < HOT_QUERIES.size(); i++) {
                out.append("-- H").append(i + 1).append('\n').append(HOT_QUERIES.get(i).formatted("<catalog>")).append(";\n");
            }
            out.append("```\n\n");
            log("placement before skew %s".formatted(java.util.Arrays.toString(placementBefore)));
        }

        private List<Double> concurrent(String catalog, int queries)
                throws Exception
        {
            AtomicInteger next = new AtomicInteger();
            List<Double> samples = Collections.synchronizedList(new ArrayList<>());
            ExecutorService executor = Executors.newFixedThreadPool(clients);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int client = 0; client < clients; client++) {
                    futures.add(executor.submit(() -> {
                        int index;
                        while ((index = next.getAndIncrement()) < queries) {
                            long start = System.nanoTime();
                            cluster.query(HOT_QUERIES.get(index % HOT_QUERIES.size()).formatted(catalog));
                            samples.add((System.nanoTime() - start) / 1e6);
                        }
                        return null;
                    }));
                }
                for (Future<?> future : futures) {
                    future.get();
                }
            }
            finally {
                executor.shutdownNow();
            }
            return samples;
        }

        private String placement(String catalog)
        {
            return switch (catalog) {
                case NOPREF -> "Overdrive `NO_PREFERENCE` (engine's choice)";
                case SOFT -> "Overdrive `SOFT_AFFINITY` (bounded load)";
                case TRINO -> "Trino affinity key, preferred hosts (waits)";
                default -> catalog;
            };
        }

        // soft's PlacementStats on the coordinator: preferred, alternative, fallback
        private long[] placement()
        {
            int port = cluster.coordinator().jmxPort();
            return new long[] {
                    (long) jmxDouble(port, placementStats(), "Preferred.TotalCount"),
                    (long) jmxDouble(port, placementStats(), "Alternative.TotalCount"),
                    (long) jmxDouble(port, placementStats(), "Fallback.TotalCount")};
        }

        // {from cache, from remote} summed over the workers; worker null: all
        private double[] cacheBytes(String catalog, TrinoNode worker)
        {
            double cache = 0;
            double remote = 0;
            for (TrinoNode node : cluster.workers()) {
                if (worker != null && !worker.equals(node)) {
                    continue;
                }
                if (catalog.equals(TRINO)) {
                    cache += jmxDouble(node.jmxPort(), trinoStats(), "CacheReads.AllTime.Total");
                    remote += jmxDouble(node.jmxPort(), trinoStats(), "ExternalReads.AllTime.Total");
                }
                else {
                    cache += jmxDouble(node.jmxPort(), overdriveStats(catalog), "BytesFromCache");
                    remote += jmxDouble(node.jmxPort(), overdriveStats(catalog), "BytesFromRemote");
                }
            }
            return new double[] {cache, remote};
        }

        private long sumOverWorkers(String mbean, String attribute)
        {
            double total = 0;
            for (TrinoNode worker : cluster.workers()) {
                total += jmxDouble(worker.jmxPort(), mbean, attribute);
            }
            return (long) total;
        }

        // bytes read (cache + remote) per worker
        private long[] perWorker(String catalog)
        {
            List<TrinoNode> workers = cluster.workers();
            long[] bytes = new long[workers.size()];
            for (int i = 0; i < workers.size(); i++) {
                double[] counters = cacheBytes(catalog, workers.get(i));
                bytes[i] = (long) (counters[0] + counters[1]);
            }
            return bytes;
        }

        private DiskCache diskCache(String catalog)
                throws IOException
        {
            long total = 0;
            Map<String, Long> distinct = new HashMap<>();
            Map<String, Integer> copies = new HashMap<>();
            String sample = null;
            for (TrinoNode worker : cluster.workers()) {
                Path directory = worker.home().resolve("cache-" + catalog);
                if (!Files.isDirectory(directory)) {
                    continue;
                }
                List<Path> pages;
                try (Stream<Path> files = Files.walk(directory)) {
                    // page files: .../LOCAL/<page size>/<bucket>/<file id>/<page> (Alluxio's layout, which both caches use)
                    pages = files.filter(Files::isRegularFile).filter(path -> directory.relativize(path).toString().contains("LOCAL")).toList();
                }
                java.util.Set<String> fileIds = new java.util.HashSet<>();
                for (Path page : pages) {
                    long size = Files.size(page);
                    total += size;
                    String fileId = page.getParent().getFileName().toString();
                    distinct.merge(fileId + "/" + page.getFileName(), size, Math::max);
                    fileIds.add(fileId);
                    if (sample == null) {
                        sample = directory.relativize(page).toString();
                    }
                }
                fileIds.forEach(fileId -> copies.merge(fileId, 1, Integer::sum));
            }
            log("%s: sample page file %s".formatted(catalog, sample));
            long distinctBytes = distinct.values().stream().mapToLong(Long::longValue).sum();
            double averageCopies = copies.values().stream().mapToInt(Integer::intValue).average().orElse(0);
            return new DiskCache(total, distinctBytes, averageCopies, copies.size());
        }
    }

    record DiskCache(long totalBytes, long distinctBytes, double averageCopies, int files) {}

    // MBean selectors: type and catalog (a key property whose value is exactly the catalog, overdrive vs overdrive_x)
    static String overdriveStats(String catalog)
    {
        return "PageCacheStats/" + catalog;
    }

    static String trinoStats()
    {
        return "AlluxioCacheStats/" + TRINO;
    }

    static String placementStats()
    {
        return "PlacementStats/" + SOFT;
    }

    /**
     * Sums a numeric attribute over the MBeans {@code type/catalog} on one node (JMX on loopback); an attribute
     * that does not exist fails with the attributes that do, so a renamed counter is obvious.
     */
    static double jmxDouble(int port, String pattern, String attribute)
    {
        return jmxValues(port, pattern, attribute).stream()
                .filter(value -> value instanceof Number number && !Double.isNaN(number.doubleValue()))
                .mapToDouble(value -> ((Number) value).doubleValue())
                .sum();
    }

    static String jmxString(int port, String pattern, String attribute)
    {
        return String.join("; ", jmxValues(port, pattern, attribute).stream().map(String::valueOf).toList());
    }

    // the attribute of every MBean of the pattern's type ("Type/catalog") whose name carries the catalog.
    // JMX over RMI looks the connector up through JNDI: here only on loopback, at the benchmark's own Trino processes
    @SuppressWarnings("BanJNDI")
    private static List<Object> jmxValues(int port, String pattern, String attribute)
    {
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:%s/jmxrmi".formatted(port)), Map.of())) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            String type = pattern.substring(0, pattern.indexOf('/'));
            String catalog = pattern.substring(pattern.indexOf('/') + 1);
            List<ObjectName> matching = server.queryNames(new ObjectName("*:type=" + type + ",*"), null).stream()
                    .filter(name -> name.getKeyPropertyList().entrySet().stream().anyMatch(entry -> !entry.getKey().equals("type") && entry.getValue().equals(catalog)))
                    .toList();
            if (matching.isEmpty()) {
                throw new IllegalStateException("no %s MBean of catalog %s on port %s; there are %s".formatted(type, catalog, port, server.queryNames(new ObjectName("*:type=" + type + ",*"), null)));
            }
            List<Object> values = new ArrayList<>();
            for (ObjectName name : matching) {
                List<String> names = java.util.Arrays.stream(server.getMBeanInfo(name).getAttributes()).map(MBeanAttributeInfo::getName).toList();
                if (!names.contains(attribute)) {
                    throw new IllegalStateException("%s has no attribute %s; it has %s".formatted(name, attribute, names));
                }
                values.add(server.getAttribute(name, attribute));
            }
            return values;
        }
        catch (IllegalStateException e) {
            throw e;
        }
        catch (Exception e) {
            throw new RuntimeException("JMX on port %s: %s %s".formatted(port, pattern, attribute), e);
        }
    }

    private String header(Instant started, Duration elapsed)
    {
        double mean = loadSamples.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double max = loadSamples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return "Run %s, %.0f s. Machine: %d CPUs (`nproc`), JDK %s (%s), Trino %s. Load average (1 min) during the run: mean %.2f, max %.2f (%d samples, every 5 s). One coordinator + 3 worker JVMs (`-Xmx900m` each) and HDFS (NameNode + 3 DataNodes, one JVM) on loopback, all on these CPUs.\n\n".formatted(
                started.toString().replaceAll("\\.\\d+Z$", "Z"), elapsed.toMillis() / 1e3, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), System.getProperty("java.vm.name"), ProjectLayout.TRINO_VERSION, mean, max, loadSamples.size());
    }

    private static double ratio(double cache, double remote)
    {
        return cache + remote == 0 ? 0 : cache / (cache + remote);
    }

    private static <T> List<T> rotate(List<T> list, int by)
    {
        List<T> rotated = new ArrayList<>(list);
        Collections.rotate(rotated, -by);
        return rotated;
    }

    static void log(String message)
    {
        System.out.println("[overdrive-bench-affinity] " + message);
    }

}
