package io.overdrive.it.benchmark;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.inject.Injector;
import com.google.inject.Key;
import io.overdrive.cache.connector.OverdriveConnector;
import io.overdrive.cache.coordinator.CoordinatorCacheStats;
import io.overdrive.it.OverdriveQueryRunner;
import io.overdrive.it.demo.RatioInterval;
import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HdfsCluster.NameNodeOps;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.TrinoProcessCluster;
import io.trino.connector.CatalogHandle;
import io.trino.connector.ConnectorServicesProvider;
import io.trino.execution.QueryInfo;
import io.trino.execution.QueryManager;
import io.trino.execution.QueryStats;
import io.trino.metadata.CatalogManager;
import io.trino.plugin.hive.HiveConnector;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.QueryId;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.connector.Connector;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.Random;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static io.overdrive.it.benchmark.BenchmarkStats.formatBytes;
import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.formatRatio;
import static io.overdrive.it.benchmark.BenchmarkStats.percentile;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static java.util.stream.Collectors.joining;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue #3's benchmark: Overdrive's page cache against Trino's own file system cache ({@code fs.cache}) and against
 * no cache, on the same HDFS files and queries in one run. Not part of the test run: {@code ./overdrive bench cache}
 * runs it ({@code -Doverdrive.benchmark=true}) and prints the Markdown report it writes to
 * {@code integration-tests/target/benchmarks/page-cache.md}.
 * <p>
 * One in-JVM Trino (a coordinator that schedules nothing and one worker) over a real HDFS (own JVM, 3 DataNodes) with
 * catalogs over one file metastore: {@code hive} (stock, no cache), {@code hive_fscache} (stock + Trino's
 * {@code fs.cache}), {@code overdrive} ({@code overdrive_hive} + {@code cache.enabled}), {@code overdrive_no_coordinator}
 * (the same without its coordinator tier, {@code cache.coordinator.enabled=false}: a control), and for the scan-pollution
 * workload the same two caches, small: {@code hive_fscache_small}, {@code overdrive_small} and, as a control,
 * {@code overdrive_small_lru} (Overdrive without admission). Every cache starts empty in its own directory.
 * <p>
 * Remote bytes are counted where they are served: the DataNodes' own {@code BytesRead} counters (JMX over their HTTP
 * ports), the same measure for every catalog. Hit ratios come from each cache's own statistics: Trino's
 * {@code AlluxioCacheStats} ({@code CacheReads}, {@code ExternalReads}) and Overdrive's {@code PageCacheStats}
 * MBean ({@code BytesFromCache}, {@code BytesFromRemote}); both count the bytes of Trino's page-aligned readers the
 * same way.
 * <p>
 * Issue #16's CPU figures: every timed query also records Trino's {@code QueryStats} (the tasks' CPU, planning time
 * and planning CPU), the CPU of this JVM (coordinator, worker and client together) and of the HDFS JVM over the call
 * ({@link ProcessCpu}), and every catalog pass the HDFS requests it caused (DataNode block reads and NameNode calls,
 * counted by the HDFS process itself), JFR samples where the JVM's CPU goes during the loopback warm passes
 * ({@link HitPathProfile}), and the JVM's CPU by thread group, JIT compilers and garbage collector included
 * ({@link ThreadCpu}).
 * <p>
 * Settings (system properties): {@code overdrive.benchmark.scale} (TPC-H scale factor, default 0.1),
 * {@code overdrive.benchmark.repetitions} (warm passes per catalog, default 20),
 * {@code overdrive.benchmark.read-delay-ms} (per-request DataNode delay of the delayed pass, default 10; 0 skips it),
 * {@code overdrive.benchmark.pollution.rounds} (one-off scans in the pollution workload, default 6),
 * {@code overdrive.benchmark.pollution.cache-size} (default 100MB per unit of scale),
 * {@code overdrive.benchmark.cold.rounds} (rounds of the miss path: a cold pass of stock {@code hive} and one of
 * {@code overdrive} with its cache flushed, their order swapped every round; default 5; {@code ./overdrive bench cache --rounds N}),
 * {@code overdrive.benchmark.profile} (the JFR profile of the loopback warm passes, default true),
 * {@code overdrive.benchmark.work} (HDFS data and cache directories, emptied before and after; default under java.io.tmpdir).
 */
public class PageCacheBenchmark
{
    static final String SCHEMA = OverdriveQueryRunner.SCHEMA;
    static final String HIVE = "hive";
    static final String FS_CACHE = "hive_fscache";
    static final String OVERDRIVE = OverdriveQueryRunner.OVERDRIVE_CATALOG;
    static final String FS_CACHE_SMALL = "hive_fscache_small";
    static final String OVERDRIVE_SMALL = "overdrive_small";
    static final String OVERDRIVE_SMALL_LRU = "overdrive_small_lru";
    // Overdrive without its coordinator tier (cache.coordinator.enabled=false), as it was before the coordinator tier existed: a control,
    // timed in the same rounds as the others
    static final String OVERDRIVE_NO_COORDINATOR = "overdrive_no_coordinator";
    static final List<String> REPEATED_CATALOGS = List.of(HIVE, FS_CACHE, OVERDRIVE);
    static final List<String> TIMED_CATALOGS = List.of(HIVE, FS_CACHE, OVERDRIVE, OVERDRIVE_NO_COORDINATOR);
    static final List<String> POLLUTION_CATALOGS = List.of(FS_CACHE_SMALL, OVERDRIVE_SMALL, OVERDRIVE_SMALL_LRU);

    static final String LARGE_CACHE = "4GB";
    static final Path WORK = Path.of(System.getProperty("overdrive.benchmark.work", Path.of(System.getProperty("java.io.tmpdir"), "overdrive-bench-page-cache").toString()));

    // TPC-H queries 1, 3, 5, 6 and 14 over the Parquet copies (the tpch connector's column names, no prefixes)
    static final Map<String, String> QUERIES = queries();

    // the pollution workload's hot queries read most of orders; the one-off scans read every column of a lineitem copy
    static final List<String> HOT_QUERIES = List.of(
            "SELECT orderpriority, count(*), sum(totalprice), max(comment) FROM %1$s.tpch.orders GROUP BY orderpriority",
            "SELECT orderstatus, count(*), avg(totalprice), max(clerk), max(orderdate) FROM %1$s.tpch.orders WHERE custkey %% 3 = 0 GROUP BY orderstatus");
    static final String SCAN_QUERY = "SELECT count(*), sum(orderkey + partkey + suppkey + linenumber), sum(quantity + extendedprice + discount + tax), " +
            "max(returnflag || linestatus || shipinstruct || shipmode), max(shipdate), max(commitdate), max(receiptdate), sum(length(comment)) FROM %1$s.tpch.%2$s";

    private final String scale = System.getProperty("overdrive.benchmark.scale", "0.1");
    // 20: the fewest samples for which the nearest-rank P95 is not simply the slowest run
    private final int repetitions = Integer.getInteger("overdrive.benchmark.repetitions", 20);
    private final long readDelayMillis = Long.getLong("overdrive.benchmark.read-delay-ms", 10);
    private final int pollutionRounds = Integer.getInteger("overdrive.benchmark.pollution.rounds", 6);
    // the miss path: rounds of one cold pass of stock hive and one of overdrive with its cache flushed (./overdrive bench cache --rounds N)
    private final int coldRounds = Integer.getInteger("overdrive.benchmark.cold.rounds", 5);
    // JFR execution samples of the loopback warm passes: where the CPU goes (HitPathProfile)
    private final boolean profiling = Boolean.parseBoolean(System.getProperty("overdrive.benchmark.profile", "true"));
    // the pollution caches hold the hot table (orders, ~32MB per unit of scale as Parquet) 3 times over, but not one
    // one-off scan (a lineitem copy, ~130MB per unit of scale)
    private final String smallCache = System.getProperty("overdrive.benchmark.pollution.cache-size", "%dMB".formatted(Math.max(4, Math.round(100 * Double.parseDouble(scale)))));

    @Test
    void pageCacheBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the page cache benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench cache");

        Instant started = Instant.now();
        double loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        // HDFS data and cache directories outside target/, so that a concurrent 'mvn clean' cannot pull them away
        Path work = WORK;
        TrinoProcessCluster.deleteRecursively(work);
        Files.createDirectories(work);

        Report report = new Report();
        try (HdfsCluster hdfs = HdfsCluster.start(ProjectLayout.fromSystemProperty(), work.resolve("hdfs"), TestingHdfs.DATA_NODES);
                QueryRunner queryRunner = OverdriveQueryRunner.builder(hdfs, "benchmark")
                        .workers(1)
                        .overdriveProperty("cache.enabled", "true")
                        .overdriveProperty("cache.base-directory", work.resolve("cache-" + OVERDRIVE).toString())
                        .overdriveProperty("cache.max-size", LARGE_CACHE)
                        .extraCatalog(FS_CACHE, "hive", fsCache(work, FS_CACHE, LARGE_CACHE))
                        .extraCatalog(OVERDRIVE_NO_COORDINATOR, "overdrive_hive", ImmutableMap.<String, String>builder()
                                .putAll(overdriveCache(work, OVERDRIVE_NO_COORDINATOR, LARGE_CACHE, true))
                                .put("cache.coordinator.enabled", "false")
                                .buildOrThrow())
                        .extraCatalog(FS_CACHE_SMALL, "hive", fsCache(work, FS_CACHE_SMALL, smallCache))
                        .extraCatalog(OVERDRIVE_SMALL, "overdrive_hive", overdriveCache(work, OVERDRIVE_SMALL, smallCache, true))
                        .extraCatalog(OVERDRIVE_SMALL_LRU, "overdrive_hive", overdriveCache(work, OVERDRIVE_SMALL_LRU, smallCache, false))
                        .build()) {
            DistributedQueryRunner runner = (DistributedQueryRunner) queryRunner;
            DataNodeMetrics dataNodes = new DataNodeMetrics(hdfs.dataNodeHttpUris(), Duration.ofMillis(Long.getLong("overdrive.benchmark.jmx-refresh-ms", 11_000)));
            Bench bench = new Bench(runner, dataNodes, hdfs, report);

            bench.loadData();
            bench.repeatedWorkload();
            bench.missPath();
            if (readDelayMillis > 0) {
                hdfs.setReadDelay(Duration.ofMillis(readDelayMillis));
                try {
                    bench.delayedWarmPasses();
                }
                finally {
                    hdfs.setReadDelay(Duration.ZERO);
                }
            }
            bench.scanPollution();
        }

        TrinoProcessCluster.deleteRecursively(work);

        double loadAtEnd = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        String markdown = report.render(started, Duration.between(started, Instant.now()), loadAtStart, loadAtEnd);
        Path output = writeReport("page-cache.md", markdown);
        log("report written to " + output);
        assertTrue(report.resultsMatch, "every catalog must return the same rows as stock hive: " + report.mismatches);
    }

    private final class Bench
    {
        private final DistributedQueryRunner runner;
        private final DataNodeMetrics dataNodes;
        private final HdfsCluster hdfs;
        private final ProcessCpu hdfsCpu;
        private final ProcessCpu trinoProc = ProcessCpu.thisJvm();
        private final Report report;
        // during warm passes: the CPU by thread group of each catalog's queries (ThreadCpu), and the catalog being timed
        private Map<String, Map<String, Long>> threadCpu;
        private String timedCatalog;
        private final TestingTrinoServer worker;
        // each query's rows from the first cold pass, which every later pass must return too
        private final Map<String, MaterializedResult> expected = new LinkedHashMap<>();

        Bench(DistributedQueryRunner runner, DataNodeMetrics dataNodes, HdfsCluster hdfs, Report report)
        {
            this.runner = runner;
            this.dataNodes = dataNodes;
            this.hdfs = hdfs;
            this.hdfsCpu = new ProcessCpu(hdfs.process().pid());
            this.report = report;
            this.worker = runner.getServers().stream().filter(server -> !server.isCoordinator()).findFirst().orElseThrow();
        }

        void loadData()
        {
            long start = System.nanoTime();
            String source = "tpch.\"sf%s\"".formatted(scale);
            for (String table : List.of("lineitem", "orders", "customer", "part", "supplier", "nation", "region")) {
                runner.execute("CREATE TABLE %s.%s.%s WITH (format = 'PARQUET') AS SELECT * FROM %s.%s".formatted(HIVE, SCHEMA, table, source, table));
            }
            for (int round = 1; round <= pollutionRounds; round++) {
                // distinct files with the same rows: each is scanned once per pollution catalog, then never again
                runner.execute("CREATE TABLE %s.%s.scan_%s WITH (format = 'PARQUET') AS SELECT * FROM %s.%s.lineitem".formatted(HIVE, SCHEMA, round, HIVE, SCHEMA));
            }
            report.loadSeconds = (System.nanoTime() - start) / 1e9;
            for (String table : List.of("lineitem", "orders", "customer", "part", "supplier", "nation", "region", "scan_1")) {
                MaterializedResult size = runner.execute("SELECT count(*), sum(size) FROM (SELECT DISTINCT \"$path\", \"$file_size\" AS size FROM %s.%s.%s)".formatted(HIVE, SCHEMA, table));
                MaterializedResult rows = runner.execute("SELECT count(*) FROM %s.%s.%s".formatted(HIVE, SCHEMA, table));
                report.tables.put(table, new TableSize((Long) rows.getOnlyValue(), (Long) size.getMaterializedRows().getFirst().getField(0), (Long) size.getMaterializedRows().getFirst().getField(1)));
            }
            log("data loaded in %.1fs: %s".formatted(report.loadSeconds, report.tables));
        }

        void repeatedWorkload()
        {
            // the JVM's code warm for every catalog alike: the query set once through stock hive (no cache to fill)...
            QUERIES.values().forEach(query -> runner.execute(query.formatted(HIVE)));
            // ...and each catalog loaded on the worker (catalogs load there with their first task) by a one-row table
            // that no measured query reads
            runner.execute("CREATE TABLE %s.%s.warmup WITH (format = 'PARQUET') AS SELECT 1 AS x".formatted(HIVE, SCHEMA));
            for (String catalog : ImmutableList.<String>builder().addAll(TIMED_CATALOGS).addAll(POLLUTION_CATALOGS).build()) {
                runner.execute("SELECT count(*) FROM %s.%s.warmup".formatted(catalog, SCHEMA));
            }

            // cold: each catalog's first pass over its empty cache, one catalog at a time, DataNode bytes around each
            long before = dataNodes.bytesRead();
            for (String catalog : TIMED_CATALOGS) {
                CacheCounters cacheBefore = cacheCounters(catalog);
                for (Map.Entry<String, String> query : QUERIES.entrySet()) {
                    Timed timed = time(query.getValue().formatted(catalog));
                    report.cold.put(key(catalog, query.getKey()), timed.millis());
                    MaterializedResult reference = expected.putIfAbsent(query.getKey(), timed.result());
                    if (reference != null) {
                        report.compare(catalog, query.getKey(), reference, timed.result());
                    }
                }
                long after = dataNodes.bytesRead();
                report.coldRemoteBytes.put(catalog, after - before);
                report.coldCacheCounters.put(catalog, cacheCounters(catalog).minus(cacheBefore));
                before = after;
            }

            // warm: the catalogs interleaved, in a shuffled order, so that drift, load spikes and GC spread over all of them
            Map<String, CacheCounters> warmBefore = new LinkedHashMap<>();
            TIMED_CATALOGS.forEach(catalog -> warmBefore.put(catalog, cacheCounters(catalog)));
            Map<String, CacheCounters> coordinatorBefore = new LinkedHashMap<>();
            TIMED_CATALOGS.forEach(catalog -> coordinatorBefore.put(catalog, coordinatorCacheCounters(catalog)));
            HitPathProfile profile = profiling ? HitPathProfile.start() : null;
            warmPasses(report.warm, report.warmSamples, report.warmPasses, report.warmThreadCpu);
            if (profile != null) {
                HitPathProfile.Samples samples = profile.stop();
                report.profile.putAll(samples.categories());
                report.profileLeaves.putAll(samples.leaves());
            }
            TIMED_CATALOGS.forEach(catalog -> report.warmCacheCounters.put(catalog, cacheCounters(catalog).minus(warmBefore.get(catalog))));
            TIMED_CATALOGS.forEach(catalog -> report.coordinatorCacheCounters.put(catalog, coordinatorCacheCounters(catalog).minus(coordinatorBefore.get(catalog))));

            // remote bytes of one more warm pass per catalog, alone, DataNode counters around it
            before = dataNodes.bytesRead();
            for (String catalog : TIMED_CATALOGS) {
                for (String query : QUERIES.values()) {
                    runner.execute(query.formatted(catalog));
                }
                long after = dataNodes.bytesRead();
                report.warmRemoteBytes.put(catalog, after - before);
                before = after;
            }
            // the part of it that planning alone reads: the coordinator's file metastore reads (table metadata on HDFS)
            for (String catalog : TIMED_CATALOGS) {
                for (String query : QUERIES.values()) {
                    runner.execute("EXPLAIN " + query.formatted(catalog));
                }
                long after = dataNodes.bytesRead();
                report.planningRemoteBytes.put(catalog, after - before);
                before = after;
            }
            log(OverdriveMetrics.describe(OVERDRIVE));
            log("repeated workload done: DataNode bytes cold %s, warm pass %s; cache counters cold %s, warm %s".formatted(report.coldRemoteBytes, report.warmRemoteBytes, report.coldCacheCounters, report.warmCacheCounters));
        }

        // the miss path: stock hive and overdrive cold, round after round, Overdrive's cache flushed before each of its
        // passes (stock hive has no cache to empty), the two alternated and their order swapped every round so that
        // neither always runs first. Each pass: every query's sample (Trino's CPU among them), the cache's own counters,
        // and a JFR profile of where the JVM's CPU went
        void missPath()
        {
            for (int round = 0; round < coldRounds; round++) {
                for (String catalog : round % 2 == 0 ? List.of(HIVE, OVERDRIVE) : List.of(OVERDRIVE, HIVE)) {
                    if (catalog.equals(OVERDRIVE)) {
                        MaterializedResult flushed = runner.execute("SELECT * FROM TABLE(%s.system.flush_cache())".formatted(OVERDRIVE));
                        log("miss path round %d: flushed %s".formatted(round + 1, flushed.getMaterializedRows()));
                    }
                    CacheCounters before = cacheCounters(catalog);
                    CacheCounters coordinatorBefore = coordinatorCacheCounters(catalog);
                    HitPathProfile profile = profiling ? HitPathProfile.start() : null;
                    Map<String, Sample> pass = new LinkedHashMap<>();
                    for (Map.Entry<String, String> query : QUERIES.entrySet()) {
                        Timed timed = time(query.getValue().formatted(catalog));
                        pass.put(query.getKey(), timed.sample());
                        report.compare(catalog + " (miss path)", query.getKey(), expected.get(query.getKey()), timed.result());
                    }
                    if (profile != null) {
                        HitPathProfile.Samples samples = profile.stop();
                        samples.categories().forEach((category, count) -> report.missProfile.computeIfAbsent(catalog, _ -> new LinkedHashMap<>()).merge(category, count, Long::sum));
                        samples.owners().forEach((category, owners) -> owners.forEach((owner, count) ->
                                report.missOwners.computeIfAbsent(catalog, _ -> new HashMap<>()).computeIfAbsent(category, _ -> new HashMap<>()).merge(owner, count, Long::sum)));
                        samples.allocated().forEach((category, bytes) -> report.missAllocated.computeIfAbsent(catalog, _ -> new LinkedHashMap<>()).merge(category, bytes, Long::sum));
                        samples.allocationOwners().forEach((category, owners) -> owners.forEach((owner, bytes) ->
                                report.missAllocationOwners.computeIfAbsent(catalog, _ -> new HashMap<>()).computeIfAbsent(category, _ -> new HashMap<>()).merge(owner, bytes, Long::sum)));
                    }
                    report.missPasses.computeIfAbsent(catalog, _ -> new ArrayList<>()).add(pass);
                    report.missCacheCounters.merge(catalog, cacheCounters(catalog).minus(before), CacheCounters::plus);
                    report.missCoordinatorCounters.merge(catalog, coordinatorCacheCounters(catalog).minus(coordinatorBefore), CacheCounters::plus);
                }
            }
            log("miss path done: %d rounds, cache counters %s, coordinator tier %s".formatted(coldRounds, report.missCacheCounters, report.missCoordinatorCounters));
        }

        void delayedWarmPasses()
        {
            report.readDelayMillis = readDelayMillis;
            warmPasses(report.delayedWarm, report.delayedSamples, report.delayedPasses, report.delayedThreadCpu);
            log("delayed warm passes done");
        }

        // the repeated workload's warm passes: the catalogs interleaved in rounds, in an order shuffled per round, so that
        // drift and load spikes spread over all of them. Shuffled, not rotated: a rotation repeats every few rounds, and
        // the garbage collector, which runs after about the same allocation each time, then kept falling into the same
        // catalogs' queries. HDFS's request counters around each catalog's pass (between queries of a pass they would
        // cost a round trip to the HDFS process each)
        private void warmPasses(Map<String, List<Double>> wall, Map<String, List<Sample>> samples, Map<String, HdfsCounters> passes, Map<String, Map<String, Long>> threads)
        {
            threadCpu = threads;
            HdfsCounters last = hdfsCounters();
            for (int repetition = 0; repetition < repetitions; repetition++) {
                List<String> order = new ArrayList<>(TIMED_CATALOGS);
                Collections.shuffle(order, new Random(repetition));
                for (String catalog : order) {
                    timedCatalog = catalog;
                    for (Map.Entry<String, String> query : QUERIES.entrySet()) {
                        Timed timed = time(query.getValue().formatted(catalog));
                        wall.computeIfAbsent(key(catalog, query.getKey()), _ -> new ArrayList<>()).add(timed.millis());
                        samples.computeIfAbsent(key(catalog, query.getKey()), _ -> new ArrayList<>()).add(timed.sample());
                    }
                    HdfsCounters now = hdfsCounters();
                    passes.merge(catalog, now.minus(last), HdfsCounters::plus);
                    last = now;
                }
            }
            threadCpu = null;
        }

        private HdfsCounters hdfsCounters()
        {
            return new HdfsCounters(1, hdfs.readRequests(), hdfs.nameNodeOps());
        }

        void scanPollution()
        {
            // warm-up: the hot set enters each (empty) cache
            for (int pass = 0; pass < 3; pass++) {
                for (String catalog : POLLUTION_CATALOGS) {
                    HOT_QUERIES.forEach(query -> runner.execute(query.formatted(catalog)));
                }
            }
            Map<String, CacheCounters> hot = new LinkedHashMap<>();
            Map<String, CacheCounters> all = new LinkedHashMap<>();
            Map<String, CacheCounters> start = new LinkedHashMap<>();
            POLLUTION_CATALOGS.forEach(catalog -> {
                hot.put(catalog, CacheCounters.ZERO);
                start.put(catalog, cacheCounters(catalog));
            });
            // measured: every round reads the hot set, then one large table that no one reads again
            for (int round = 1; round <= pollutionRounds + 1; round++) {
                for (String catalog : POLLUTION_CATALOGS) {
                    CacheCounters before = cacheCounters(catalog);
                    for (String query : HOT_QUERIES) {
                        report.hotLatency.computeIfAbsent(catalog, _ -> new ArrayList<>()).add(time(query.formatted(catalog)).millis());
                    }
                    hot.put(catalog, hot.get(catalog).plus(cacheCounters(catalog).minus(before)));
                    if (round <= pollutionRounds) {
                        runner.execute(SCAN_QUERY.formatted(catalog, "scan_" + round));
                    }
                }
            }
            POLLUTION_CATALOGS.forEach(catalog -> all.put(catalog, cacheCounters(catalog).minus(start.get(catalog))));
            report.pollutionHot.putAll(hot);
            report.pollutionAll.putAll(all);
            POLLUTION_CATALOGS.forEach(catalog -> report.pollutionCached.put(catalog, cachedBytes(catalog)));
            log(OverdriveMetrics.describe(OVERDRIVE_SMALL));
            log(OverdriveMetrics.describe(OVERDRIVE_SMALL_LRU));
            log("scan pollution done: hot %s, all %s, cached %s".formatted(hot, all, report.pollutionCached));
        }

        // wall clock of the client call, the CPU of this JVM (coordinator, worker and client) and of HDFS's over it, and
        // Trino's own statistics of the query
        private Timed time(String sql)
        {
            // outside the measured interval: reading every thread's /proc entry costs a few milliseconds
            Map<Long, Long> threadsBefore = threadCpu == null ? Map.of() : ThreadCpu.snapshot();
            long trinoCpu = ProcessCpu.thisJvmNanos();
            long trinoSystemCpu = trinoProc.systemNanos();
            long allocated = ProcessCpu.thisJvmAllocatedBytes();
            long gcMillis = ProcessCpu.thisJvmGcMillis();
            long hdfsCpuBefore = hdfsCpu.nanos();
            long start = System.nanoTime();
            QueryRunner.MaterializedResultWithPlan result = runner.executeWithPlan(runner.getDefaultSession(), sql);
            long wall = System.nanoTime() - start;
            long trino = ProcessCpu.thisJvmNanos() - trinoCpu;
            long trinoSystem = trinoProc.systemNanos() - trinoSystemCpu;
            long allocatedBytes = ProcessCpu.thisJvmAllocatedBytes() - allocated;
            long gc = ProcessCpu.thisJvmGcMillis() - gcMillis;
            long hdfsCpuUsed = hdfsCpu.nanos() - hdfsCpuBefore;
            if (threadCpu != null) {
                ThreadCpu.addDifference(threadsBefore, ThreadCpu.snapshot(), threadCpu.computeIfAbsent(timedCatalog, _ -> new HashMap<>()));
            }
            QueryStats stats = finalQueryStats(result.queryId());
            Sample sample = new Sample(wall / 1e6, stats.getTotalCpuTime().getValue(MILLISECONDS), stats.getAnalysisTime().getValue(MILLISECONDS), stats.getPlanningTime().getValue(MILLISECONDS),
                    stats.getPlanningCpuTime().getValue(MILLISECONDS), trino / 1e6, trinoSystem / 1e6, allocatedBytes / 1024.0 / 1024.0, gc, hdfsCpuUsed / 1e6);
            return new Timed(sample.wallMillis(), result.result(), sample);
        }

        // the client has every row once the output stage finishes; the tasks' final statistics (their CPU) follow
        private QueryStats finalQueryStats(QueryId queryId)
        {
            QueryManager queryManager = runner.getCoordinator().getQueryManager();
            long deadline = System.nanoTime() + SECONDS.toNanos(10);
            QueryInfo info = queryManager.getFullQueryInfo(queryId);
            while (!info.isFinalQueryInfo() && System.nanoTime() < deadline) {
                sleepUninterruptibly(2, MILLISECONDS);
                info = queryManager.getFullQueryInfo(queryId);
            }
            return info.getQueryStats();
        }

        // the cache's own counters on the worker: Overdrive's MBean, or the worker's AlluxioCacheStats of Trino's cache
        private CacheCounters cacheCounters(String catalog)
        {
            if (catalog.startsWith(OVERDRIVE)) {
                OverdriveMetrics metrics = OverdriveMetrics.read(catalog);
                return new CacheCounters(metrics.bytesFromCache(), metrics.bytesFromRemote(), metrics.admissionRejections());
            }
            if (catalog.startsWith(FS_CACHE)) {
                io.trino.filesystem.alluxio.AlluxioCacheStats stats = trinoCacheStats(catalog);
                return new CacheCounters((long) stats.getCacheReads().getAllTime().getTotal(), (long) stats.getExternalReads().getAllTime().getTotal(), 0);
            }
            return CacheCounters.ZERO;
        }

        // what the coordinator's own cache served for the catalog: Trino's AlluxioCacheStats of the coordinator's
        // connector (fs.cache is installed on every node), or Overdrive's coordinator tier (CoordinatorCacheStats)
        private CacheCounters coordinatorCacheCounters(String catalog)
        {
            Injector injector = connectorInjector(runner.getCoordinator(), catalog);
            if (catalog.startsWith(FS_CACHE)) {
                io.trino.filesystem.alluxio.AlluxioCacheStats stats = injector.getInstance(io.trino.filesystem.alluxio.AlluxioCacheStats.class);
                return new CacheCounters((long) stats.getCacheReads().getAllTime().getTotal(), (long) stats.getExternalReads().getAllTime().getTotal(), 0);
            }
            if (catalog.startsWith(OVERDRIVE)) {
                return injector.getExistingBinding(Key.get(CoordinatorCacheStats.class)) == null
                        ? CacheCounters.ZERO
                        : coordinatorCounters(injector.getInstance(CoordinatorCacheStats.class));
            }
            return CacheCounters.ZERO;
        }

        private static CacheCounters coordinatorCounters(CoordinatorCacheStats stats)
        {
            return new CacheCounters(stats.getBytesFromMemory(), stats.getBytesFromStorage(), 0);
        }

        private Injector connectorInjector(TestingTrinoServer server, String catalog)
        {
            CatalogHandle handle = runner.getCoordinator().getInstance(Key.get(CatalogManager.class)).getCatalog(new CatalogName(catalog)).orElseThrow().getCatalogHandle();
            Connector connector = server.getInstance(Key.get(ConnectorServicesProvider.class)).getConnectorServices(handle).getConnector();
            if (connector instanceof OverdriveConnector overdrive) {
                return overdrive.injector();
            }
            return ((HiveConnector) connector).getInjector();
        }

        private long cachedBytes(String catalog)
        {
            if (catalog.startsWith(OVERDRIVE)) {
                return OverdriveMetrics.read(catalog).bytesCached();
            }
            return directorySize(WORK.resolve("cache-" + catalog));
        }

        // Trino exports AlluxioCacheStats on the coordinator too, under the same name: in one JVM the MBean may be the
        // coordinator's (always zero), so read the worker's instance from its connector
        private io.trino.filesystem.alluxio.AlluxioCacheStats trinoCacheStats(String catalog)
        {
            return connectorInjector(worker, catalog).getInstance(io.trino.filesystem.alluxio.AlluxioCacheStats.class);
        }
    }

    static Map<String, String> fsCache(Path work, String catalog, String size)
    {
        // fs.cache.page-size stays at its default (1MB), like cache.page-size
        return Map.of(
                "fs.cache.enabled", "true",
                "fs.cache.directories", work.resolve("cache-" + catalog).toString(),
                "fs.cache.max-sizes", size);
    }

    static Map<String, String> overdriveCache(Path work, String catalog, String size, boolean admission)
    {
        return Map.of(
                "cache.enabled", "true",
                "cache.base-directory", work.resolve("cache-" + catalog).toString(),
                "cache.max-size", size,
                "cache.admission", Boolean.toString(admission));
    }

    private static Map<String, String> queries()
    {
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("Q1", """
                SELECT returnflag, linestatus, sum(quantity), sum(extendedprice), sum(extendedprice * (1 - discount)),
                    sum(extendedprice * (1 - discount) * (1 + tax)), avg(quantity), avg(extendedprice), avg(discount), count(*)
                FROM %1$s.tpch.lineitem
                WHERE shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
                GROUP BY returnflag, linestatus
                ORDER BY returnflag, linestatus""");
        queries.put("Q3", """
                SELECT l.orderkey, sum(l.extendedprice * (1 - l.discount)) AS revenue, o.orderdate, o.shippriority
                FROM %1$s.tpch.customer c, %1$s.tpch.orders o, %1$s.tpch.lineitem l
                WHERE c.mktsegment = 'BUILDING' AND c.custkey = o.custkey AND l.orderkey = o.orderkey
                    AND o.orderdate < DATE '1995-03-15' AND l.shipdate > DATE '1995-03-15'
                GROUP BY l.orderkey, o.orderdate, o.shippriority
                ORDER BY revenue DESC, o.orderdate, l.orderkey
                LIMIT 10""");
        queries.put("Q5", """
                SELECT n.name, sum(l.extendedprice * (1 - l.discount)) AS revenue
                FROM %1$s.tpch.customer c, %1$s.tpch.orders o, %1$s.tpch.lineitem l, %1$s.tpch.supplier s, %1$s.tpch.nation n, %1$s.tpch.region r
                WHERE c.custkey = o.custkey AND l.orderkey = o.orderkey AND l.suppkey = s.suppkey AND c.nationkey = s.nationkey
                    AND s.nationkey = n.nationkey AND n.regionkey = r.regionkey AND r.name = 'ASIA'
                    AND o.orderdate >= DATE '1994-01-01' AND o.orderdate < DATE '1995-01-01'
                GROUP BY n.name
                ORDER BY revenue DESC""");
        queries.put("Q6", """
                SELECT sum(extendedprice * discount) AS revenue
                FROM %1$s.tpch.lineitem
                WHERE shipdate >= DATE '1994-01-01' AND shipdate < DATE '1995-01-01' AND discount BETWEEN 0.05 AND 0.07 AND quantity < 24""");
        queries.put("Q14", """
                SELECT 100.00 * sum(CASE WHEN p.type LIKE 'PROMO%%' THEN l.extendedprice * (1 - l.discount) ELSE 0 END)
                    / sum(l.extendedprice * (1 - l.discount)) AS promo_revenue
                FROM %1$s.tpch.lineitem l, %1$s.tpch.part p
                WHERE l.partkey = p.partkey AND l.shipdate >= DATE '1995-09-01' AND l.shipdate < DATE '1995-10-01'""");
        return queries;
    }

    static void log(String message)
    {
        System.out.println("[overdrive-bench] " + message);
    }

    static String key(String catalog, String query)
    {
        return catalog + "/" + query;
    }

    private static long directorySize(Path directory)
    {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                }
                catch (IOException e) {
                    return 0;
                }
            }).sum();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    record Timed(double millis, MaterializedResult result, Sample sample) {}

    /**
     * One measured query: the wall clock of the client call; from Trino's {@code QueryStats} the CPU of its tasks
     * ({@code totalCpuTime}, the worker's operators), its analysis and planning times and the planning thread's CPU (the
     * coordinator); and the CPU of this JVM (coordinator, worker and client together; and of it the part in the kernel), the
     * heap it allocated and its collectors' time, and the CPU of the HDFS JVM over the call.
     */
    record Sample(double wallMillis, double queryCpuMillis, double analysisMillis, double planningMillis, double planningCpuMillis, double trinoCpuMillis, double trinoSystemCpuMillis, double allocatedMegabytes, double gcMillis, double hdfsCpuMillis)
    {
        /** Analysis (which resolves the tables: the metastore's reads) and planning, the coordinator's work before scheduling. */
        double analysisAndPlanningMillis()
        {
            return analysisMillis + planningMillis;
        }
    }

    /** HDFS requests over a number of catalog passes: DataNode block read requests and NameNode calls. */
    record HdfsCounters(int passes, long dataNodeRequests, NameNodeOps nameNode)
    {
        HdfsCounters minus(HdfsCounters other)
        {
            return new HdfsCounters(1, dataNodeRequests - other.dataNodeRequests, nameNode.minus(other.nameNode));
        }

        HdfsCounters plus(HdfsCounters other)
        {
            return new HdfsCounters(passes + other.passes, dataNodeRequests + other.dataNodeRequests,
                    new NameNodeOps(nameNode.opens() + other.nameNode.opens(), nameNode.fileInfos() + other.nameNode.fileInfos(), nameNode.listings() + other.nameNode.listings()));
        }
    }

    record TableSize(long rows, long files, long bytes) {}

    /** Bytes a cache served from itself and from remote storage, and (Overdrive) pages its admission turned away. */
    record CacheCounters(long fromCache, long fromRemote, long admissionRejections)
    {
        static final CacheCounters ZERO = new CacheCounters(0, 0, 0);

        CacheCounters minus(CacheCounters other)
        {
            return new CacheCounters(fromCache - other.fromCache, fromRemote - other.fromRemote, admissionRejections - other.admissionRejections);
        }

        CacheCounters plus(CacheCounters other)
        {
            return new CacheCounters(fromCache + other.fromCache, fromRemote + other.fromRemote, admissionRejections + other.admissionRejections);
        }

        double byteHitRatio()
        {
            long total = fromCache + fromRemote;
            return total == 0 ? 0 : (double) fromCache / total;
        }
    }

    /** What the run measured, and the Markdown it becomes. */
    final class Report
    {
        final Map<String, TableSize> tables = new LinkedHashMap<>();
        double loadSeconds;
        final Map<String, Double> cold = new LinkedHashMap<>();
        final Map<String, List<Double>> warm = new LinkedHashMap<>();
        final Map<String, List<Double>> delayedWarm = new LinkedHashMap<>();
        final Map<String, List<Sample>> warmSamples = new LinkedHashMap<>();
        final Map<String, List<Sample>> delayedSamples = new LinkedHashMap<>();
        final Map<String, HdfsCounters> warmPasses = new LinkedHashMap<>();
        final Map<String, HdfsCounters> delayedPasses = new LinkedHashMap<>();
        final Map<String, Map<String, Long>> warmThreadCpu = new LinkedHashMap<>();
        final Map<String, Map<String, Long>> delayedThreadCpu = new LinkedHashMap<>();
        final Map<String, CacheCounters> coordinatorCacheCounters = new LinkedHashMap<>();
        final Map<String, Long> profile = new LinkedHashMap<>();
        final Map<String, Map<String, Long>> profileLeaves = new LinkedHashMap<>();
        final Map<String, Long> coldRemoteBytes = new LinkedHashMap<>();
        final Map<String, Long> warmRemoteBytes = new LinkedHashMap<>();
        final Map<String, Long> planningRemoteBytes = new LinkedHashMap<>();
        final Map<String, CacheCounters> coldCacheCounters = new LinkedHashMap<>();
        final Map<String, CacheCounters> warmCacheCounters = new LinkedHashMap<>();
        final Map<String, CacheCounters> pollutionHot = new LinkedHashMap<>();
        final Map<String, CacheCounters> pollutionAll = new LinkedHashMap<>();
        final Map<String, Long> pollutionCached = new LinkedHashMap<>();
        final Map<String, List<Double>> hotLatency = new LinkedHashMap<>();
        // the miss path: per catalog, its cold passes (each query's sample), the cache's counters over them, and JFR samples
        final Map<String, List<Map<String, Sample>>> missPasses = new LinkedHashMap<>();
        final Map<String, CacheCounters> missCacheCounters = new LinkedHashMap<>();
        final Map<String, CacheCounters> missCoordinatorCounters = new LinkedHashMap<>();
        final Map<String, Map<String, Long>> missProfile = new LinkedHashMap<>();
        final Map<String, Map<String, Map<String, Long>>> missOwners = new LinkedHashMap<>();
        final Map<String, Map<String, Long>> missAllocated = new LinkedHashMap<>();
        final Map<String, Map<String, Map<String, Long>>> missAllocationOwners = new LinkedHashMap<>();
        long readDelayMillis;
        boolean resultsMatch = true;
        final List<String> mismatches = new ArrayList<>();

        void compare(String catalog, String query, MaterializedResult expected, MaterializedResult actual)
        {
            List<MaterializedRow> expectedRows = expected.getMaterializedRows();
            List<MaterializedRow> actualRows = actual.getMaterializedRows();
            boolean same = expectedRows.size() == actualRows.size();
            for (int row = 0; same && row < expectedRows.size(); row++) {
                MaterializedRow a = expectedRows.get(row);
                MaterializedRow b = actualRows.get(row);
                same = a.getFieldCount() == b.getFieldCount();
                for (int field = 0; same && field < a.getFieldCount(); field++) {
                    Object x = a.getField(field);
                    Object y = b.getField(field);
                    // sums of doubles may differ in the last bits with the order rows arrive in
                    same = x instanceof Double dx && y instanceof Double dy
                            ? Math.abs(dx - dy) <= 1e-9 * Math.max(1, Math.abs(dx))
                            : java.util.Objects.equals(x, y);
                }
            }
            if (!same) {
                resultsMatch = false;
                mismatches.add(catalog + " " + query);
            }
        }

        // the warm passes with their CPU samples: on loopback, and with the DataNode delay where it ran
        Map<String, Map<String, List<Sample>>> cpuVariants()
        {
            Map<String, Map<String, List<Sample>>> variants = new LinkedHashMap<>();
            variants.put("loopback", warmSamples);
            if (!delayedSamples.isEmpty()) {
                variants.put("%d ms DataNode delay".formatted(readDelayMillis), delayedSamples);
            }
            return variants;
        }

        // the Trino JVM's CPU per pass of the 5 queries by thread group, native threads included (ThreadCpu)
        private void renderThreadCpu(StringBuilder out, Map<String, Map<String, Long>> threads)
        {
            if (threads.isEmpty()) {
                return;
            }
            out.append("The Trino JVM's CPU per pass of the 5 queries by thread, native threads (JIT compilers, garbage collector) included: ");
            out.append("`/proc/self/task/<tid>/stat` utime + stime around each query, summed by group, divided by the %d passes (ms):\n\n".formatted(repetitions));
            out.append("| threads |");
            TIMED_CATALOGS.forEach(catalog -> out.append(" %s |".formatted(label(catalog))));
            out.append(" overdrive - fs.cache |\n|---|");
            TIMED_CATALOGS.forEach(_ -> out.append("---:|"));
            out.append("---:|\n");
            for (String group : ThreadCpu.GROUPS.keySet()) {
                out.append("| %s |".formatted(group));
                TIMED_CATALOGS.forEach(catalog -> out.append(" %s |".formatted(formatMillis(threadMillisPerPass(threads, catalog, group)))));
                out.append(" %+.1f |\n".formatted(threadMillisPerPass(threads, OVERDRIVE, group) - threadMillisPerPass(threads, FS_CACHE, group)));
            }
            out.append("| **all** |");
            TIMED_CATALOGS.forEach(catalog -> out.append(" %s |".formatted(formatMillis(threadMillisPerPass(threads, catalog, null)))));
            out.append(" %+.1f |\n".formatted(threadMillisPerPass(threads, OVERDRIVE, null) - threadMillisPerPass(threads, FS_CACHE, null)));
            // the JIT compilers and the collector work for all queries at once: what they do during one query is largely
            // what earlier ones left (classes to compile, heap to collect)
            out.append("| **all but JIT and GC** (the queries' own threads) |");
            TIMED_CATALOGS.forEach(catalog -> out.append(" %s |".formatted(formatMillis(ownThreadMillisPerPass(threads, catalog)))));
            out.append(" %+.1f (ratio %.2f) |\n\n".formatted(ownThreadMillisPerPass(threads, OVERDRIVE) - ownThreadMillisPerPass(threads, FS_CACHE),
                    ownThreadMillisPerPass(threads, OVERDRIVE) / ownThreadMillisPerPass(threads, FS_CACHE)));
        }

        private double ownThreadMillisPerPass(Map<String, Map<String, Long>> threads, String catalog)
        {
            return threadMillisPerPass(threads, catalog, null) - threadMillisPerPass(threads, catalog, ThreadCpu.JIT) - threadMillisPerPass(threads, catalog, ThreadCpu.GC);
        }

        // a group's (or with null every group's) CPU per pass, milliseconds
        private double threadMillisPerPass(Map<String, Map<String, Long>> threads, String catalog, String group)
        {
            Map<String, Long> groups = threads.getOrDefault(catalog, Map.of());
            long nanos = group == null ? groups.values().stream().mapToLong(Long::longValue).sum() : groups.getOrDefault(group, 0L);
            return nanos / 1e6 / repetitions;
        }

        // the miss path's rounds: each catalog's pass per round, the ratios of pass totals with their intervals, and the profile
        void renderMissPath(StringBuilder out)
        {
            if (missPasses.isEmpty()) {
                return;
            }
            int rounds = missPasses.get(HIVE).size();
            out.append("\n#### The miss path: cold passes, %d rounds\n\n".formatted(rounds));
            out.append("Each round one cold pass of the 5 queries through stock `hive` (no cache) and one through `overdrive` right after its cache was ");
            out.append("emptied (`flush_cache`), so that every read is a miss that fetches from HDFS and fills the cache; the two in turn, the order swapped every round. ");
            out.append("Mean per pass; Trino's task CPU from its `QueryStats` (`totalCpuTime`), the JVM's CPU from `/proc` (coordinator, worker and client).\n\n");
            out.append("| catalog | wall (ms) | task CPU (ms) | Trino JVM CPU (ms) | heap allocated (MB) | worker cache: from cache / from remote | coordinator tier: from cache / from remote |\n");
            out.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (String catalog : List.of(HIVE, OVERDRIVE)) {
                List<Map<String, Sample>> passes = missPasses.get(catalog);
                CacheCounters counters = missCacheCounters.get(catalog);
                CacheCounters coordinator = missCoordinatorCounters.get(catalog);
                out.append("| %s | %s | %s | %s | %.0f | %s | %s |\n".formatted(label(catalog), formatMillis(meanPass(passes, Sample::wallMillis)), formatMillis(meanPass(passes, Sample::queryCpuMillis)),
                        formatMillis(meanPass(passes, Sample::trinoCpuMillis)), meanPass(passes, Sample::allocatedMegabytes),
                        catalog.equals(HIVE) ? "(no cache)" : "%s / %s".formatted(formatBytes(counters.fromCache() / rounds), formatBytes(counters.fromRemote() / rounds)),
                        catalog.equals(HIVE) ? "(no cache)" : "%s / %s".formatted(formatBytes(coordinator.fromCache() / rounds), formatBytes(coordinator.fromRemote() / rounds))));
            }
            out.append("\n`overdrive` over `hive`, the totals of the pass (sum of the 5 queries), 95% bootstrap interval over the rounds:\n\n");
            out.append("| figure | ratio | 95% interval | verdict | each round |\n|---|---:|---:|---|---|\n");
            Map<String, ToDoubleFunction<Sample>> figures = new LinkedHashMap<>();
            figures.put("wall clock", Sample::wallMillis);
            figures.put("task CPU (Trino's `QueryStats`)", Sample::queryCpuMillis);
            figures.put("Trino JVM CPU", Sample::trinoCpuMillis);
            figures.put("heap allocated", Sample::allocatedMegabytes);
            figures.forEach((figure, value) -> {
                RatioInterval.Estimate estimate = RatioInterval.estimate(missRounds(OVERDRIVE, value), missRounds(HIVE, value), RatioInterval.Statistic.TOTAL);
                out.append("| %s | %s | %s | %s | %s |\n".formatted(figure, estimate.ratioText(), estimate.intervalText(), estimate.verdict().label(),
                        estimate.roundRatios().stream().map(ratio -> "%.2f".formatted(ratio)).collect(joining(", "))));
            });
            if (!missProfile.isEmpty()) {
                out.append("\nWhere the JVM's CPU went during these passes: JFR `jdk.ExecutionSample` every 10 ms (Java code only), per pass, each sample ");
                out.append("counted in the first of these categories one of its stack frames belongs to:\n\n| category | `hive` | `overdrive` |\n|---|---:|---:|\n");
                for (String category : missProfile.get(HIVE).keySet()) {
                    if (!category.equals("all")) {
                        out.append("| %s | %.1f | %.1f |\n".formatted(category, missProfile.get(HIVE).getOrDefault(category, 0L) / (double) rounds,
                                missProfile.getOrDefault(OVERDRIVE, Map.of()).getOrDefault(category, 0L) / (double) rounds));
                    }
                }
                out.append("| all samples | %.1f | %.1f |\n\n".formatted(missProfile.get(HIVE).get("all") / (double) rounds, missProfile.getOrDefault(OVERDRIVE, Map.of()).getOrDefault("all", 0L) / (double) rounds));
                out.append("Heap allocated per pass (MB), as JFR's `jdk.ObjectAllocationSample` weighs its samples, by the same categories. A thread's first sample ");
                out.append("in a recording weighs what it allocated since its previous sample, before the recording too, so the totals overstate: compare shares, not totals. ");
                out.append("A sample counts in the first category one of its frames belongs to, so HDFS's allocations under Overdrive's frames count as Overdrive's:\n\n| category | `hive` | `overdrive` |\n|---|---:|---:|\n");
                for (String category : missAllocated.getOrDefault(HIVE, Map.of()).keySet()) {
                    out.append("| %s | %.1f | %.1f |\n".formatted(category.equals("all") ? "all samples" : category,
                            missAllocated.get(HIVE).getOrDefault(category, 0L) / 1048576.0 / rounds,
                            missAllocated.getOrDefault(OVERDRIVE, Map.of()).getOrDefault(category, 0L) / 1048576.0 / rounds));
                }
                out.append("\n");
                String overdriveCategory = HitPathProfile.CATEGORIES.keySet().iterator().next();
                out.append("In `overdrive`'s passes, Overdrive's own methods that the CPU samples ran under (the first Overdrive frame from the top of the stack; all rounds): %s.\n\n".formatted(
                        top(missOwners.getOrDefault(OVERDRIVE, Map.of()).getOrDefault(overdriveCategory, Map.of()), "%d")));
                out.append("And those the heap was allocated under (MB, all rounds): %s.\n\n".formatted(
                        top(missAllocationOwners.getOrDefault(OVERDRIVE, Map.of()).getOrDefault(overdriveCategory, Map.of()), "MB")));
            }
        }

        // the ten largest, "`method` count" (or "`method` 12.3" for bytes, in MB)
        private static String top(Map<String, Long> owners, String unit)
        {
            if (owners.isEmpty()) {
                return "none";
            }
            return owners.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .limit(10)
                    .map(owner -> unit.equals("MB") ? "`%s` %.1f".formatted(owner.getKey(), owner.getValue() / 1048576.0) : "`%s` %d".formatted(owner.getKey(), owner.getValue()))
                    .collect(joining(", "));
        }

        private double meanPass(List<Map<String, Sample>> passes, ToDoubleFunction<Sample> value)
        {
            return passes.stream().mapToDouble(pass -> pass.values().stream().mapToDouble(value).sum()).average().orElse(Double.NaN);
        }

        // a catalog's miss-path rounds for RatioInterval: each query's value, in microseconds (or KB)
        private List<RatioInterval.Round> missRounds(String catalog, ToDoubleFunction<Sample> value)
        {
            return missPasses.get(catalog).stream()
                    .map(pass -> {
                        Map<String, List<Long>> byQuery = new LinkedHashMap<>();
                        pass.forEach((query, sample) -> byQuery.put(query, List.of(Math.round(value.applyAsDouble(sample) * 1000))));
                        return new RatioInterval.Round(byQuery);
                    })
                    .toList();
        }

        void renderCpu(StringBuilder out)
        {
            out.append("\n#### Warm CPU per query\n\n");
            out.append("The warm passes above (loopback, then with the %d ms DataNode delay), measured for CPU as well as wall time. ".formatted(readDelayMillis));
            out.append("Per query: *wall*, the client call; *analysis* and *planning*, Trino's `QueryStats.analysisTime` (resolving the tables: ");
            out.append("the file metastore's reads) and `planningTime` (optimizing, with table statistics), the coordinator's work before it schedules; *query CPU*, `QueryStats.totalCpuTime` (the CPU of the query's tasks: the worker's operators and ");
            out.append("readers, cache hits included); *Trino JVM CPU*, the CPU time of the one JVM that runs the coordinator, the worker and the client ");
            out.append("(`OperatingSystemMXBean.getProcessCpuTime`, every thread: planning, scheduling, HTTP, GC) over the call, and *of which kernel* its `stime` in `/proc/self/stat` (system calls: reading cached pages from local files, network), with the heap it allocated (`ThreadMXBean.getTotalThreadAllocatedBytes`) and its collectors' time (`GarbageCollectorMXBean.getCollectionTime`); *HDFS JVM CPU*, the ");
            out.append("NameNode's and DataNodes' process (`/proc/<pid>/stat` utime + stime, 10 ms ticks) over the call. CPU figures are means over the ");
            out.append("%d warm runs of each query; wall P50/P95 by nearest rank. HDFS requests are counted by the HDFS process itself around each ".formatted(repetitions));
            out.append("catalog's pass of the 5 queries. `coordinator cache` is what the catalog's cache served on the coordinator during the loopback ");
            out.append("warm passes: Trino's `AlluxioCacheStats` of the coordinator's `fs.cache`, Overdrive's `CoordinatorCacheStats`. ");
            out.append("`overdrive_no_coordinator` is Overdrive with `cache.coordinator.enabled=false`, as it was before the coordinator tier existed: a control, ");
            out.append("timed in the same rounds.\n\n");
            for (Map.Entry<String, Map<String, List<Sample>>> variant : cpuVariants().entrySet()) {
                Map<String, List<Sample>> samples = variant.getValue();
                Map<String, HdfsCounters> passes = variant.getKey().equals("loopback") ? warmPasses : delayedPasses;
                out.append("**%s**, per catalog, sums over the 5 queries (ms):\n\n".formatted(variant.getKey()));
                out.append("| catalog | wall P50 | wall P95 | analysis P50 | planning P50 | query CPU | planning CPU | Trino JVM CPU | of which kernel | heap allocated (MiB) | GC | HDFS JVM CPU | DataNode read requests per pass | NameNode opens / file infos / listings per pass |");
                boolean loopback = variant.getKey().equals("loopback");
                out.append(loopback ? " coordinator cache per pass: from cache / from storage |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" : "\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (String catalog : TIMED_CATALOGS) {
                    HdfsCounters counters = passes.get(catalog);
                    out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f / %.1f / %.1f |".formatted(label(catalog),
                            formatMillis(sumOfPercentiles(samples, catalog, 50, Sample::wallMillis)),
                            formatMillis(sumOfPercentiles(samples, catalog, 95, Sample::wallMillis)),
                            formatMillis(sumOfPercentiles(samples, catalog, 50, Sample::analysisMillis)),
                            formatMillis(sumOfPercentiles(samples, catalog, 50, Sample::planningMillis)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::queryCpuMillis)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::planningCpuMillis)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::trinoCpuMillis)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::trinoSystemCpuMillis)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::allocatedMegabytes)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::gcMillis)),
                            formatMillis(sumOfMeans(samples, catalog, Sample::hdfsCpuMillis)),
                            (double) counters.dataNodeRequests() / counters.passes(),
                            (double) counters.nameNode().opens() / counters.passes(), (double) counters.nameNode().fileInfos() / counters.passes(), (double) counters.nameNode().listings() / counters.passes()));
                    if (loopback) {
                        CacheCounters coordinator = coordinatorCacheCounters.getOrDefault(catalog, CacheCounters.ZERO);
                        out.append(switch (catalog) {
                            case HIVE -> " (no cache) |";
                            case OVERDRIVE_NO_COORDINATOR -> " (off) |";
                            default -> " %s / %s |".formatted(formatBytes(coordinator.fromCache() / repetitions), formatBytes(coordinator.fromRemote() / repetitions));
                        });
                    }
                    out.append("\n");
                }
                out.append("\n**%s**, per query: overdrive against fs.cache (ms; ratio = overdrive / fs.cache):\n\n".formatted(variant.getKey()));
                out.append("| query | wall P50 fs.cache / overdrive | wall P95 fs.cache / overdrive | P95 ratio | analysis + planning P50 fs.cache / overdrive | query CPU fs.cache / overdrive | ratio | Trino JVM CPU fs.cache / overdrive | ratio | tier off: P95 ratio / analysis + planning P50 |\n");
                out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (String query : QUERIES.keySet()) {
                    List<Sample> fs = samples.get(key(FS_CACHE, query));
                    List<Sample> od = samples.get(key(OVERDRIVE, query));
                    List<Sample> off = samples.get(key(OVERDRIVE_NO_COORDINATOR, query));
                    out.append("| %s | %s / %s | %s / %s | %.2f | %s / %s | %s / %s | %.2f | %s / %s | %.2f | %.2f / %s |\n".formatted(query,
                            formatMillis(percentileOf(fs, 50, Sample::wallMillis)), formatMillis(percentileOf(od, 50, Sample::wallMillis)),
                            formatMillis(percentileOf(fs, 95, Sample::wallMillis)), formatMillis(percentileOf(od, 95, Sample::wallMillis)),
                            percentileOf(od, 95, Sample::wallMillis) / percentileOf(fs, 95, Sample::wallMillis),
                            formatMillis(percentileOf(fs, 50, Sample::analysisAndPlanningMillis)), formatMillis(percentileOf(od, 50, Sample::analysisAndPlanningMillis)),
                            formatMillis(meanOf(fs, Sample::queryCpuMillis)), formatMillis(meanOf(od, Sample::queryCpuMillis)), meanOf(od, Sample::queryCpuMillis) / meanOf(fs, Sample::queryCpuMillis),
                            formatMillis(meanOf(fs, Sample::trinoCpuMillis)), formatMillis(meanOf(od, Sample::trinoCpuMillis)), meanOf(od, Sample::trinoCpuMillis) / meanOf(fs, Sample::trinoCpuMillis),
                            percentileOf(off, 95, Sample::wallMillis) / percentileOf(fs, 95, Sample::wallMillis), formatMillis(percentileOf(off, 50, Sample::analysisAndPlanningMillis))));
                }
                // split halves: the same ratios over the even and over the odd rounds, to show how stable they are
                List<String> halves = new ArrayList<>();
                for (int half = 0; half < 2; half++) {
                    Map<String, List<Sample>> part = half(samples, half);
                    halves.add("%s rounds %.2f (P95 wall) / %.2f (P50 wall) / %.2f (Trino JVM CPU)".formatted(half == 0 ? "even" : "odd",
                            sumOfPercentiles(part, OVERDRIVE, 95, Sample::wallMillis) / sumOfPercentiles(part, FS_CACHE, 95, Sample::wallMillis),
                            sumOfPercentiles(part, OVERDRIVE, 50, Sample::wallMillis) / sumOfPercentiles(part, FS_CACHE, 50, Sample::wallMillis),
                            sumOfMeans(part, OVERDRIVE, Sample::trinoCpuMillis) / sumOfMeans(part, FS_CACHE, Sample::trinoCpuMillis)));
                }
                out.append("| **sum** | %s / %s | %s / %s | **%.2f** | %s / %s | %s / %s | %.2f | %s / %s | **%.2f** | %.2f / %s |\n\n".formatted(
                        formatMillis(sumOfPercentiles(samples, FS_CACHE, 50, Sample::wallMillis)), formatMillis(sumOfPercentiles(samples, OVERDRIVE, 50, Sample::wallMillis)),
                        formatMillis(sumOfPercentiles(samples, FS_CACHE, 95, Sample::wallMillis)), formatMillis(sumOfPercentiles(samples, OVERDRIVE, 95, Sample::wallMillis)),
                        sumOfPercentiles(samples, OVERDRIVE, 95, Sample::wallMillis) / sumOfPercentiles(samples, FS_CACHE, 95, Sample::wallMillis),
                        formatMillis(sumOfPercentiles(samples, FS_CACHE, 50, Sample::analysisAndPlanningMillis)), formatMillis(sumOfPercentiles(samples, OVERDRIVE, 50, Sample::analysisAndPlanningMillis)),
                        formatMillis(sumOfMeans(samples, FS_CACHE, Sample::queryCpuMillis)), formatMillis(sumOfMeans(samples, OVERDRIVE, Sample::queryCpuMillis)),
                        sumOfMeans(samples, OVERDRIVE, Sample::queryCpuMillis) / sumOfMeans(samples, FS_CACHE, Sample::queryCpuMillis),
                        formatMillis(sumOfMeans(samples, FS_CACHE, Sample::trinoCpuMillis)), formatMillis(sumOfMeans(samples, OVERDRIVE, Sample::trinoCpuMillis)),
                        sumOfMeans(samples, OVERDRIVE, Sample::trinoCpuMillis) / sumOfMeans(samples, FS_CACHE, Sample::trinoCpuMillis),
                        sumOfPercentiles(samples, OVERDRIVE_NO_COORDINATOR, 95, Sample::wallMillis) / sumOfPercentiles(samples, FS_CACHE, 95, Sample::wallMillis),
                        formatMillis(sumOfPercentiles(samples, OVERDRIVE_NO_COORDINATOR, 50, Sample::analysisAndPlanningMillis))));
                out.append("Stability of the sum ratios (overdrive / fs.cache) over half the rounds each: %s.\n\n".formatted(String.join("; ", halves)));
                renderThreadCpu(out, loopback ? warmThreadCpu : delayedThreadCpu);
                if (loopback && !profile.isEmpty()) {
                    out.append("Where the Trino JVM's CPU went during these loopback warm passes, all %d catalogs interleaved: JFR `jdk.ExecutionSample` every 10 ms ".formatted(TIMED_CATALOGS.size()));
                    out.append("(threads running Java code; native code and the kernel, such as a `read` copying a cached page, are not sampled), each sample ");
                    out.append("counted in the first of these categories one of its stack frames belongs to:\n\n| category | samples | share |\n|---|---:|---:|\n");
                    long all = profile.get("all");
                    profile.forEach((category, samplesOf) -> {
                        if (!category.equals("all")) {
                            out.append("| %s | %,d | %.1f%% |\n".formatted(category, samplesOf, 100.0 * samplesOf / Math.max(1, all)));
                        }
                    });
                    out.append("| all samples | %,d | 100%% |\n\n".formatted(all));
                    profileLeaves.forEach((category, leaves) -> {
                        if (category.startsWith("Overdrive") || category.startsWith("Trino's fs.cache")) {
                            out.append("%s, by the method running (the most frequent): %s.\n\n".formatted(category, leaves.entrySet().stream()
                                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                                    .limit(8)
                                    .map(leaf -> "`%s` %d".formatted(leaf.getKey(), leaf.getValue()))
                                    .collect(joining(", "))));
                        }
                    });
                }
            }
        }

        String render(Instant started, Duration elapsed, double loadAtStart, double loadAtEnd)
        {
            StringBuilder out = new StringBuilder();
            out.append("### Page cache benchmark (`./overdrive bench cache`)\n\n");
            out.append(("Run %s, %.0f s. Machine: %s CPUs (`nproc`), %s RAM, %s, JDK %s (%s), Trino %s. Load average (1 min) %.2f at start, before this " +
                    "benchmark started its processes; %.2f at the end, which counts this benchmark's own threads.\n\n").formatted(
                    started.toString().replaceAll("\\.\\d+Z$", "Z"), elapsed.toMillis() / 1e3, Runtime.getRuntime().availableProcessors(), memory(), cpuModel(),
                    System.getProperty("java.version"), System.getProperty("java.vm.name"), ProjectLayout.TRINO_VERSION, loadAtStart, loadAtEnd));
            if (loadAtStart > 1.5) {
                out.append("**Warning: load average above 1.5 at start: other work shared the cores, so latencies are skewed (bytes and hit ratios are not).**\n\n");
            }
            out.append("Setup: one in-JVM Trino (coordinator not scheduling, **1 worker**), real HDFS in its own JVM (3 DataNodes, replication 3, loopback), ");
            out.append("TPC-H scale factor %s as Parquet, loaded in %.0f s. Page size 1MB for both caches (`fs.cache.page-size` and `cache.page-size` defaults).\n\n".formatted(scale, loadSeconds));
            out.append("| table | rows | files | Parquet bytes |\n|---|---:|---:|---:|\n");
            tables.forEach((table, size) -> out.append("| %s | %,d | %d | %s |\n".formatted(table.equals("scan_1") ? "scan_1 .. scan_" + pollutionRounds + " (each)" : table, size.rows(), size.files(), formatBytes(size.bytes()))));

            out.append("\n#### Repeated workload: latency\n\n");
            out.append("TPC-H Q1, Q3, Q5, Q6, Q14. First the query set once through stock `hive` and a one-row table read through every catalog, so ");
            out.append("that the JVM's code is warm and each catalog is loaded on the worker. Cold: the catalog's first pass with its cache empty, ");
            out.append("one catalog after the other, queries in that order (a later query finds the pages an earlier one read from a shared table). ");
            out.append("Warm: %d passes per catalog, catalogs interleaved in an order shuffled every round. P50/P95 by nearest rank over the %d warm runs of each query. ".formatted(repetitions, repetitions));
            out.append("Milliseconds, wall clock of the client call. The HDFS files are in the OS page cache throughout: a remote read here is a loopback ");
            out.append("DataNode read, not a network or disk read.\n\n");
            out.append("| query | hive cold | hive warm P50 / P95 | fs.cache cold | fs.cache warm P50 / P95 | overdrive cold | overdrive warm P50 / P95 | overdrive P95 / fs.cache P95 |\n");
            out.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
            double sumFs = 0;
            double sumOverdrive = 0;
            int queriesNoWorse = 0;
            for (String query : QUERIES.keySet()) {
                out.append("| ").append(query);
                for (String catalog : REPEATED_CATALOGS) {
                    List<Double> samples = warm.get(key(catalog, query));
                    out.append(" | ").append(formatMillis(cold.get(key(catalog, query))))
                            .append(" | ").append(formatMillis(percentile(samples, 50))).append(" / ").append(formatMillis(percentile(samples, 95)));
                }
                double fs = percentile(warm.get(key(FS_CACHE, query)), 95);
                double od = percentile(warm.get(key(OVERDRIVE, query)), 95);
                sumFs += fs;
                sumOverdrive += od;
                if (od <= fs) {
                    queriesNoWorse++;
                }
                out.append(" | ").append("%.2f".formatted(od / fs)).append(" |\n");
            }
            out.append("| **sum** | | | | %s | | %s | %.2f |\n".formatted(formatMillis(sumFs), formatMillis(sumOverdrive), sumOverdrive / sumFs));

            out.append("\n#### Repeated workload: remote bytes\n\n");
            out.append("DataNode `BytesRead` (sum over the 3 DataNodes, JMX `DataNodeActivity-*`; it includes the 4-byte checksum sent with every 512 bytes) ");
            out.append("around each catalog's cold pass, around one more warm pass of each catalog run alone after the timed passes, and around `EXPLAIN` of ");
            out.append("the 5 queries (planning only: the coordinator reading the file metastore's table metadata on HDFS). The caches' own counters are ");
            out.append("averaged over the %d timed warm passes.\n\n".formatted(repetitions));
            out.append("| catalog | cold pass: DataNode bytes | warm pass: DataNode bytes | warm vs stock hive | of which planning (`EXPLAIN`) | cache's own count per warm pass: from cache / from remote |\n");
            out.append("|---|---:|---:|---:|---:|---:|\n");
            long hiveWarm = warmRemoteBytes.get(HIVE);
            for (String catalog : TIMED_CATALOGS) {
                CacheCounters counters = warmCacheCounters.get(catalog);
                String own = catalog.equals(HIVE) ? "(no cache)" : "%s / %s".formatted(formatBytes(counters.fromCache() / repetitions), formatBytes(counters.fromRemote() / repetitions));
                out.append("| %s | %s | %s | %s | %s | %s |\n".formatted(label(catalog), formatBytes(coldRemoteBytes.get(catalog)), formatBytes(warmRemoteBytes.get(catalog)),
                        catalog.equals(HIVE) ? "" : "%+.1f%%".formatted(100.0 * (warmRemoteBytes.get(catalog) - hiveWarm) / hiveWarm), formatBytes(planningRemoteBytes.get(catalog)), own));
            }

            if (!delayedWarm.isEmpty()) {
                out.append("\n#### Repeated workload, warm, with a %d ms delay per DataNode read request\n\n".formatted(readDelayMillis));
                out.append("Every DataNode waits %d ms before serving each block read request (a `DataNodeFaultInjector` hook), to mimic remote object storage. ".formatted(readDelayMillis));
                out.append("Warm passes only (%d per catalog, interleaved): Trino's cache cannot be emptied, so there is no cold pass with the delay.\n\n".formatted(repetitions));
                out.append("| query | hive P50 / P95 | fs.cache P50 / P95 | overdrive P50 / P95 | overdrive P95 / fs.cache P95 |\n|---|---:|---:|---:|---:|\n");
                for (String query : QUERIES.keySet()) {
                    out.append("| ").append(query);
                    for (String catalog : REPEATED_CATALOGS) {
                        List<Double> samples = delayedWarm.get(key(catalog, query));
                        out.append(" | ").append(formatMillis(percentile(samples, 50))).append(" / ").append(formatMillis(percentile(samples, 95)));
                    }
                    out.append(" | %.2f |\n".formatted(percentile(delayedWarm.get(key(OVERDRIVE, query)), 95) / percentile(delayedWarm.get(key(FS_CACHE, query)), 95)));
                }
            }

            renderCpu(out);
            renderMissPath(out);

            out.append("\n#### Scan pollution\n\n");
            out.append("Caches of %s each (`fs.cache.max-sizes` = `cache.max-size`), holding the hot table (`orders`, %s) but not one scan table (%s). ".formatted(
                    smallCache, formatBytes(tables.get("orders").bytes()), formatBytes(tables.get("scan_1").bytes())));
            long cacheBytes = io.airlift.units.DataSize.valueOf(smallCache).toBytes();
            if (tables.get("orders").bytes() > cacheBytes || tables.get("scan_1").bytes() < cacheBytes) {
                out.append("**Warning: with these sizes the hot table does not fit or a scan does not fill the cache; the workload does not test pollution as intended.** ");
            }
            out.append("Warm-up: the two hot queries 3 times. Then %d rounds of: the two hot queries, then a full scan (every column) of a lineitem copy ".formatted(pollutionRounds));
            out.append("read once and never again (`scan_1` .. `scan_%d`); then the hot queries once more. Hit ratio = bytes from cache / (from cache + from remote), ".formatted(pollutionRounds));
            out.append("each cache's own counters; \"hot\" counts only the hot queries of the measured rounds. `overdrive_small_lru` is Overdrive with `cache.admission=false`, a control.\n\n");
            out.append("| catalog | hot-query byte hit ratio | hot bytes from cache / remote | all reads (hot + scans) hit ratio | hot query P50 / P95 (ms) | admission rejections | bytes in cache at end |\n");
            out.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (String catalog : POLLUTION_CATALOGS) {
                CacheCounters hot = pollutionHot.get(catalog);
                CacheCounters all = pollutionAll.get(catalog);
                out.append("| %s | **%s** | %s / %s | %s | %s / %s | %s | %s |\n".formatted(label(catalog), formatRatio(hot.byteHitRatio()), formatBytes(hot.fromCache()), formatBytes(hot.fromRemote()),
                        formatRatio(all.byteHitRatio()), formatMillis(percentile(hotLatency.get(catalog), 50)), formatMillis(percentile(hotLatency.get(catalog), 95)),
                        catalog.startsWith(OVERDRIVE) ? "%,d".formatted(all.admissionRejections()) : "n/a", formatBytes(pollutionCached.get(catalog))));
            }

            out.append("\n#### Goals\n\n");
            double reduction = 1 - (double) warmRemoteBytes.get(OVERDRIVE) / hiveWarm;
            double points = 100 * (pollutionHot.get(OVERDRIVE_SMALL).byteHitRatio() - pollutionHot.get(FS_CACHE_SMALL).byteHitRatio());
            out.append("| goal | measured | verdict |\n|---|---|---|\n");
            out.append("| warm P95 no worse than Trino's fs.cache | overdrive/fs.cache P95: %.2f over the sum of the 5 queries; no worse on %d of %d queries | %s |\n".formatted(
                    sumOverdrive / sumFs, queriesNoWorse, QUERIES.size(), sumOverdrive <= sumFs ? "met" : "not met"));
            out.append("| remote bytes -90%% on the repeated workload | DataNode bytes of a warm pass: %s with overdrive vs %s with stock hive (%.1f%% less) | %s |\n".formatted(
                    formatBytes(warmRemoteBytes.get(OVERDRIVE)), formatBytes(hiveWarm), 100 * reduction, reduction >= 0.9 ? "met" : "not met"));
            out.append("| hit ratio under scan pollution >= 20 points above Trino's | hot-query byte hit ratio %s vs %s: %+.1f points | %s |\n".formatted(
                    formatRatio(pollutionHot.get(OVERDRIVE_SMALL).byteHitRatio()), formatRatio(pollutionHot.get(FS_CACHE_SMALL).byteHitRatio()), points, points >= 20 ? "met" : "not met"));
            for (Map.Entry<String, Map<String, List<Sample>>> variant : cpuVariants().entrySet()) {
                double ratio = sumOfPercentiles(variant.getValue(), OVERDRIVE, 95, Sample::wallMillis) / sumOfPercentiles(variant.getValue(), FS_CACHE, 95, Sample::wallMillis);
                double cpuRatio = sumOfMeans(variant.getValue(), OVERDRIVE, Sample::trinoCpuMillis) / sumOfMeans(variant.getValue(), FS_CACHE, Sample::trinoCpuMillis);
                out.append("| warm P95 <= 0.9x Trino's fs.cache, %s | overdrive/fs.cache P95: %.2f over the sum of the 5 queries; Trino JVM CPU per query: %.2f | %s |\n".formatted(
                        variant.getKey(), ratio, cpuRatio, ratio <= 0.9 ? "met" : "not met"));
            }
            out.append("\nResults: every catalog returned the same rows as stock hive for every query: %s.\n".formatted(resultsMatch ? "yes" : "NO, " + mismatches));
            return out.toString();
        }
    }

    static double sumOfPercentiles(Map<String, List<Sample>> samples, String catalog, double percent, ToDoubleFunction<Sample> value)
    {
        return QUERIES.keySet().stream().mapToDouble(query -> percentileOf(samples.get(key(catalog, query)), percent, value)).sum();
    }

    static double sumOfMeans(Map<String, List<Sample>> samples, String catalog, ToDoubleFunction<Sample> value)
    {
        return QUERIES.keySet().stream().mapToDouble(query -> meanOf(samples.get(key(catalog, query)), value)).sum();
    }

    static double percentileOf(List<Sample> samples, double percent, ToDoubleFunction<Sample> value)
    {
        return percentile(samples.stream().map(value::applyAsDouble).toList(), percent);
    }

    static double meanOf(List<Sample> samples, ToDoubleFunction<Sample> value)
    {
        return samples.stream().mapToDouble(value).average().orElseThrow();
    }

    // the samples of every other round (each query runs once per round), starting with round 0 or 1
    static Map<String, List<Sample>> half(Map<String, List<Sample>> samples, int first)
    {
        Map<String, List<Sample>> half = new LinkedHashMap<>();
        samples.forEach((key, values) -> half.put(key, IntStream.range(0, values.size()).filter(index -> index % 2 == first).mapToObj(values::get).toList()));
        return half;
    }

    static String label(String catalog)
    {
        return switch (catalog) {
            case HIVE -> "`hive` (no cache)";
            case FS_CACHE -> "`hive_fscache` (Trino fs.cache)";
            case OVERDRIVE -> "`overdrive`";
            case OVERDRIVE_NO_COORDINATOR -> "`overdrive_no_coordinator` (`cache.coordinator.enabled=false`)";
            default -> "`" + catalog + "`";
        };
    }

    private static String memory()
    {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return "%.1f GiB".formatted(Long.parseLong(line.replaceAll("\\D", "")) / 1024.0 / 1024.0);
                }
            }
        }
        catch (IOException | RuntimeException ignored) {
            // not Linux
        }
        return "? GiB";
    }

    private static String cpuModel()
    {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        }
        catch (IOException | RuntimeException ignored) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }
}
