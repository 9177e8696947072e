package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HedgeBudget;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.S3Storage;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static io.overdrive.it.harness.HiveCatalogs.withHedgedReads;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Hedged reads on real HDFS (3 DataNodes, replication 3) through real Trino server processes, with the page cache off:
 * one DataNode slowed on the server side, HDFS's own hedging ({@code native}) and Overdrive's wrapper both hedge, win,
 * and answer exactly like stock {@code hive}; on a healthy cluster the adaptive threshold stays within the hedge budget;
 * when every replica fails, the query fails naming the file, nothing hangs, and no read thread or stream is left behind.
 * Server processes, because each catalog then gets its own HDFS client, as in production (in one JVM, HDFS's hedged
 * read pool is static and its file systems are shared between catalogs).
 * <p>
 * Shared scans, on the same cluster (one worker, which every reader of a page shares): concurrent cold scans on slow,
 * bandwidth-limited storage, HDFS and S3, join one remote read per page and answer like stock {@code hive}.
 */
@TestInstance(PER_CLASS)
class TestHedgedReadsMultiProcess
{
    private static final List<String> QUERIES = List.of(
            "SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice), avg(discount) FROM %s.hedge.lineitem GROUP BY 1, 2 ORDER BY 1, 2",
            "SELECT o.orderpriority, count(*) FROM %1$s.hedge.orders o JOIN %1$s.hedge.lineitem l ON o.orderkey = l.orderkey WHERE l.commitdate < l.receiptdate GROUP BY 1 ORDER BY 1",
            "SELECT count(*), sum(totalprice), min(orderdate), max(clerk) FROM %s.hedge.orders");
    private static final List<String> HEDGING_CATALOGS = List.of("native", "wrapper", "adaptive");
    private static final int POOL_SIZE = 16;
    private static final double ADAPTIVE_MAX_RATIO = 0.05;
    // hedged-read.budget-reserve's default
    private static final int BUDGET_RESERVE = 10;
    private static final String SHARED_SCANS = "shared";
    private static final String SHARED_SCANS_S3 = "shared_s3";
    private static final String DEFAULTS = "defaults";
    private static final String LIGHT_SCAN = "SELECT count(*), sum(extendedprice * discount), max(shipdate) FROM %s.hedge.scan_lineitem WHERE quantity < 24";

    private HdfsCluster hdfs;
    private S3Storage s3;
    private Instant s3TableWritten;
    private TrinoProcessCluster cluster;

    @BeforeAll
    void startCluster()
    {
        hdfs = TestingHdfs.shared();
        // small files: Trino reads each whole in one tail read, which Overdrive turns into a positional read for HDFS
        Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/hedged-reads/metastore");
        s3 = TestingS3.shared();
        Map<String, String> hiveOnS3 = HiveCatalogs.hiveOnS3(s3, "/hedged-reads-" + System.nanoTime() + "/metastore");
        // shared scans on S3 without hedging, so that the bytes S3 sends are the scans' own
        Map<String, String> sharedOnS3 = withPageCache(hiveOnS3, TestingHdfs.workDirectory().resolve("hedged-reads-cache-s3"));
        sharedOnS3.put("hedged-read.threadpool-size", "0");
        // When every replica fails a read, HDFS's client tries the block 3 times and waits between tries a random part of
        // 3 s times the try (its dfs.client.retry.window.base): about 20 s before a query over the failing files fails.
        // 100 ms in the catalogs everyReplicaFailingFailsTheQueryNamingTheFile queries: they fail the same way, only sooner
        Map<String, String> failFast = new LinkedHashMap<>(hive);
        failFast.put("hive.config.resources", writeRetryWindow(TestingHdfs.workDirectory().resolve("hedged-reads-hdfs-site.xml")).toString());
        cluster = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("hedged-reads"))
                .workers(1)
                .heapSize("900m")
                .catalog("hive", "hive", hive)
                .catalog("native", "overdrive_hive", withHedgedReads(failFast, POOL_SIZE, "native", "50ms", "1"))
                .catalog("wrapper", "overdrive_hive", withHedgedReads(failFast, POOL_SIZE, "wrapper", "50ms", "1"))
                .catalog("adaptive", "overdrive_hive", withHedgedReads(failFast, POOL_SIZE, "wrapper", "adaptive", Double.toString(ADAPTIVE_MAX_RATIO)))
                // only the switch: HDFS's own hedging at the default threshold, adaptive
                .catalog(DEFAULTS, "overdrive_hive", withPool(hive))
                // the page cache on, shared scans with their defaults
                .catalog(SHARED_SCANS, "overdrive_hive", withPageCache(hive, TestingHdfs.workDirectory().resolve("hedged-reads-cache")))
                .catalog("hive_s3", "hive", hiveOnS3)
                .catalog(SHARED_SCANS_S3, "overdrive_hive", sharedOnS3)
                .catalog("tpch", "tpch", Map.of())
                .start();
        cluster.execute("CREATE SCHEMA hive.hedge");
        // partitioned, so that a query reads many files, and so makes many reads
        cluster.execute("CREATE TABLE hive.hedge.lineitem WITH (format = 'PARQUET', partitioned_by = ARRAY['linenumber']) AS " +
                "SELECT orderkey, partkey, quantity, extendedprice, discount, returnflag, linestatus, commitdate, receiptdate, linenumber FROM tpch.tiny.lineitem");
        cluster.execute("CREATE TABLE hive.hedge.orders WITH (format = 'ORC', partitioned_by = ARRAY['orderpriority']) AS " +
                "SELECT orderkey, totalprice, orderdate, clerk, orderpriority FROM tpch.tiny.orders");
        // one file of a few 1MB pages
        cluster.execute("CREATE TABLE hive.hedge.scan_lineitem WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.lineitem");
        cluster.execute("CREATE SCHEMA hive_s3.hedge");
        cluster.execute("CREATE TABLE hive_s3.hedge.scan_lineitem WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.lineitem");
        s3TableWritten = Instant.now();
    }

    private static Path writeRetryWindow(Path file)
    {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, """
                    <?xml version="1.0"?>
                    <configuration>
                      <property><name>dfs.client.retry.window.base</name><value>100</value></property>
                    </configuration>
                    """);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    private static Map<String, String> withPool(Map<String, String> catalog)
    {
        Map<String, String> properties = new LinkedHashMap<>(catalog);
        properties.put("hedged-read.threadpool-size", Integer.toString(POOL_SIZE));
        return properties;
    }

    private static Map<String, String> withPageCache(Map<String, String> catalog, Path directory)
    {
        try {
            TrinoProcessCluster.deleteRecursively(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> properties = new LinkedHashMap<>(catalog);
        properties.put("cache.enabled", "true");
        properties.put("cache.base-directory", directory.toString());
        properties.put("cache.max-size", "1GB");
        return properties;
    }


    @AfterEach
    void healHdfs()
    {
        hdfs.clearSlowDataNode();
        hdfs.setFailReads(false);
        hdfs.setReadDelay(Duration.ZERO);
        hdfs.clearReadBandwidth();
        s3.setFirstByteLatency(Duration.ZERO, Duration.ZERO, 0);
        s3.setBandwidth(0);
    }

    @AfterAll
    void stopCluster()
    {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void slowDataNodeIsHedgedAroundByBothPaths()
    {
        // every block read from DataNode 0 stalls 300 ms (plus up to 10): a read that lands there is hedged after 50 ms
        hdfs.setSlowDataNode(0, Duration.ofMillis(300), Duration.ofMillis(10));
        Map<String, Counters> runs = new LinkedHashMap<>();
        for (String catalog : List.of("native", "wrapper")) {
            Counters before = counters(catalog);
            long start = System.nanoTime();
            for (int round = 0; round < 2; round++) {
                assertSameAsHive(catalog);
            }
            Counters run = counters(catalog).minus(before);
            System.out.printf("[overdrive-it] slow DataNode, %s: %s, %.1f s with stock hive's runs%n", catalog, run, (System.nanoTime() - start) / 1e9);
            runs.put(catalog, run);
        }
        for (Map.Entry<String, Counters> entry : runs.entrySet()) {
            String catalog = entry.getKey();
            Counters run = entry.getValue();
            assertThat(run.hedges()).as("%s: hedged reads", catalog).isPositive();
            assertThat(run.wins()).as("%s: hedges that won", catalog).isPositive();
            assertThat(run.wins()).as("%s: wins never exceed hedges", catalog).isLessThanOrEqualTo(run.hedges());
        }

        // the same slow DataNode, for a session that switches hedging off: no read of its queries is hedged, by HDFS
        // (its reads are stateful, which HDFS never hedges) or by the wrapper; the rows are the same
        for (String catalog : List.of("native", "wrapper")) {
            String mbean = "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog);
            Counters before = counters(catalog);
            long notHedged = cluster.sumOverWorkers(mbean, "FilesNotHedgedBySession");
            String sql = QUERIES.getLast();
            List<List<Object>> expected = cluster.query(sql.formatted("hive"));
            try (Connection connection = cluster.connect(); Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION %s.hedged_reads_enabled = false".formatted(catalog));
                for (int round = 0; round < 2; round++) {
                    assertThat(ResultRows.same(TrinoProcessCluster.query(connection, sql.formatted(catalog)), expected)).as("%s without hedging: %s", catalog, sql).isTrue();
                }
            }
            catch (SQLException e) {
                throw new RuntimeException(e);
            }
            Counters run = counters(catalog).minus(before);
            System.out.printf("[overdrive-it] slow DataNode, %s, session without hedging: %s%n", catalog, run);
            assertThat(run.hedges()).as("%s: hedged reads of a session without hedging", catalog).isZero();
            assertThat(run.reads()).as("%s: reads through the wrapper", catalog).isZero();
            assertThat(cluster.sumOverWorkers(mbean, "FilesNotHedgedBySession")).as("%s: files opened without hedging", catalog).isGreaterThan(notHedged);
        }
    }

    @Test
    void defaultsAdaptHdfsOwnThresholdAndHedgeASlowReplica()
    {
        String mbean = "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(DEFAULTS);
        int workerJmx = cluster.workers().getFirst().jmxPort();
        // healthy storage: the catalog's reads bring the threshold of its HDFS clients down from the 500 ms they were
        // created with; set every second, so a few rounds of queries suffice
        hdfs.setReadDelay(Duration.ofMillis(5));
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        do {
            assertSameAsHive(DEFAULTS);
        }
        while (cluster.sumOverWorkers(mbean, "NativeThresholdUpdates") == 0 && System.nanoTime() < deadline);
        double threshold = JmxAttributes.value(workerJmx, mbean, "NativeThresholdMillis");
        System.out.printf("[overdrive-it] defaults, healthy: HDFS's hedge threshold %.0f ms after %d updates%n", threshold, cluster.sumOverWorkers(mbean, "NativeThresholdUpdates"));
        assertThat(cluster.sumOverWorkers(mbean, "NativeThresholdUpdates")).as("threshold set on the HDFS clients").isPositive();
        assertThat(cluster.sumOverWorkers(mbean, "NativeThresholdFailures")).as("threshold out of reach").isZero();
        assertThat(threshold).as("adapted threshold (ms)").isGreaterThanOrEqualTo(10).isLessThan(300);

        // one slow replica: the reads that land there run past the adapted threshold and HDFS hedges them (only a
        // threshold really set on the HDFS clients makes HDFS hedge before the 500 ms they were created with), on another replica, and wins
        hdfs.setSlowDataNode(0, Duration.ofMillis(300), Duration.ofMillis(10));
        Counters before = counters(DEFAULTS);
        for (int round = 0; round < 2; round++) {
            assertSameAsHive(DEFAULTS);
        }
        Counters run = counters(DEFAULTS).minus(before);
        System.out.printf("[overdrive-it] defaults, slow DataNode: %s, threshold %.0f ms%n", run, JmxAttributes.value(workerJmx, mbean, "NativeThresholdMillis"));
        assertThat(run.hedges()).as("hedged reads").isPositive();
        assertThat(run.wins()).as("hedges that won").isPositive();
    }

    @Test
    void seedsRandomSlownessGivesTheSameRows()
    {
        // the seed's slow node: every request delayed by a random 0-10 ms
        hdfs.setSlowDataNode(0, Duration.ZERO, Duration.ofMillis(10));
        for (String catalog : HEDGING_CATALOGS) {
            assertSameAsHive(catalog);
        }
    }

    @Test
    void healthyClusterHedgesWithinTheBudget()
    {
        Counters before = counters("adaptive");
        long refusedBefore = refusedByBudget("adaptive");
        long start = System.nanoTime();
        for (int round = 0; round < 3; round++) {
            assertSameAsHive("adaptive");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Counters run = counters("adaptive").minus(before);
        long refused = refusedByBudget("adaptive") - refusedBefore;
        System.out.printf("[overdrive-it] healthy, adaptive: %s, %d refused by the budget, %.1f s%n", run, refused, seconds);
        assertThat(run.reads()).as("reads through the wrapper").isPositive();
        // A pause of the worker (a collection, a busy machine) delays every read in flight at once, so a healthy cluster
        // may hedge a burst of reads: the budget, not the threshold, is what bounds them
        int workers = cluster.workers().size();
        long reads = counters("adaptive").reads();
        double bound = HedgeBudget.maxHedges(ADAPTIVE_MAX_RATIO, BUDGET_RESERVE, reads, seconds, workers);
        assertThat((double) run.hedges()).as("hedges on a healthy cluster (%s, %d reads so far, %.1f s)", run, reads, seconds).isLessThanOrEqualTo(bound);
        // and far fewer than the reads: a threshold that fell to its floor would hedge most of them until the budget stops it
        assertThat(run.hedges()).as("hedges on a healthy cluster (%s)", run).isLessThan(run.reads() / 2);
    }

    private long refusedByBudget(String catalog)
    {
        return cluster.sumOverWorkers("io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog), "HedgesRefusedByBudget");
    }

    @Test
    void everyReplicaFailingFailsTheQueryNamingTheFile()
    {
        for (String catalog : HEDGING_CATALOGS) {
            assertSameAsHive(catalog);
        }
        long transfersBefore = hdfs.activeTransfers();
        hdfs.setFailReads(true);
        for (String catalog : HEDGING_CATALOGS) {
            assertTimeoutPreemptively(Duration.ofMinutes(3), () -> assertThatThrownBy(() -> cluster.query("SELECT sum(extendedprice) FROM %s.hedge.lineitem".formatted(catalog)))
                    .as(catalog)
                    .isInstanceOf(RuntimeException.class)
                    .hasMessageContaining("hedge/lineitem"));
        }
        hdfs.setFailReads(false);
        // nothing left reading: no read or hedge of the worker's wrapper runs, no DataNode serves a stream
        int workerJmx = cluster.workers().getFirst().jmxPort();
        String hedgeStats = "io.overdrive.cache.hedge:type=HedgedReadStats,*";
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while ((JmxAttributes.sum(workerJmx, hedgeStats, "AttemptsRunning") > 0 || hdfs.activeTransfers() > transfersBefore) && System.nanoTime() < deadline) {
            sleepUninterruptibly(200, MILLISECONDS);
        }
        assertThat(JmxAttributes.sum(workerJmx, hedgeStats, "AttemptsRunning")).as("hedged read attempts still running").isZero();
        assertThat(hdfs.activeTransfers()).as("DataNode transfers still open").isLessThanOrEqualTo(transfersBefore);
        for (String catalog : HEDGING_CATALOGS) {
            assertSameAsHive(catalog);
        }
    }

    @Test
    void concurrentColdScansShareRemoteReads()
            throws Exception
    {
        // storage as slow as a data lake's: a page takes about a second to fetch, so the other scans ask for it meanwhile
        // even when planning them staggers their starts
        hdfs.setReadDelay(Duration.ofMillis(100));
        hdfs.setReadBandwidth(1024 * 1024);
        assertConcurrentColdScansShare("hive", SHARED_SCANS, hdfs::bytesRead, "DataNode");
    }

    @Test
    void concurrentColdScansShareS3Reads()
            throws Exception
    {
        // the same on S3: 100 ms before each GET's first byte, 1 MB/s for all GETs together
        // the cache (and so shared scans) reads an S3 object once it is cache.min-file-age old
        TestingS3.awaitCacheable(s3TableWritten);
        s3.setFirstByteLatency(Duration.ofMillis(100), Duration.ZERO, 0);
        s3.setBandwidth(1024 * 1024);
        assertConcurrentColdScansShare("hive_s3", SHARED_SCANS_S3, s3::getBytes, "S3 server");
    }

    // one cold scan of the shared catalog, then five at once: as many storage bytes as one, give or take half
    private void assertConcurrentColdScansShare(String stock, String shared, LongSupplier storageBytes, String storage)
            throws Exception
    {
        List<List<Object>> expected = cluster.query(LIGHT_SCAN.formatted(stock));
        flushSharedScans(shared);
        long before = storageBytes.getAsLong();
        assertThat(ResultRows.same(cluster.query(LIGHT_SCAN.formatted(shared)), expected)).as("one cold scan: same rows as stock hive").isTrue();
        String mbean = "io.overdrive.cache.scan:type=SharedScanStats,name=%s,*".formatted(shared);
        // read-ahead the scan started may still run: its pages would count in the next run
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (cluster.sumOverWorkers(mbean, "PagesInFlight") > 0 && System.nanoTime() < deadline) {
            sleepUninterruptibly(100, MILLISECONDS);
        }
        long oneScan = storageBytes.getAsLong() - before;

        flushSharedScans(shared);
        long coalescedBefore = cluster.sumOverWorkers(mbean, "CoalescedReads");
        before = storageBytes.getAsLong();
        ExecutorService executor = Executors.newFixedThreadPool(5);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<List<Object>>>> scans = new ArrayList<>();
            for (int scan = 0; scan < 5; scan++) {
                scans.add(executor.submit(() -> {
                    go.await();
                    return cluster.query(LIGHT_SCAN.formatted(shared));
                }));
            }
            go.countDown();
            for (Future<List<List<Object>>> scan : scans) {
                assertThat(ResultRows.same(scan.get(3, MINUTES), expected)).as("concurrent cold scan: same rows as stock hive").isTrue();
            }
        }
        finally {
            executor.shutdownNow();
        }
        long fiveScans = storageBytes.getAsLong() - before;
        long coalesced = cluster.sumOverWorkers(mbean, "CoalescedReads") - coalescedBefore;
        System.out.printf("[overdrive-it] shared scans: one cold scan %s bytes from the %s, 5 concurrent %s (%.2fx), %s coalesced page reads%n",
                oneScan, storage, fiveScans, (double) fiveScans / oneScan, coalesced);
        assertThat(coalesced).as("page reads served by another scan's fetch").isPositive();
        assertThat((double) fiveScans).as("%s bytes of 5 concurrent cold scans against one's (%s)", storage, oneScan).isLessThanOrEqualTo(1.5 * oneScan);
    }

    private void flushSharedScans(String catalog)
    {
        cluster.query("SELECT * FROM TABLE(%s.system.flush_cache())".formatted(catalog));
    }

    private void assertSameAsHive(String catalog)
    {
        for (String sql : QUERIES) {
            List<List<Object>> expected = cluster.query(sql.formatted("hive"));
            assertThat(ResultRows.same(cluster.query(sql.formatted(catalog)), expected)).as("%s: %s", catalog, sql).isTrue();
        }
    }

    private Counters counters(String catalog)
    {
        String mbean = "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog);
        return new Counters(
                cluster.sumOverWorkers(mbean, "Reads"),
                cluster.sumOverWorkers(mbean, "HedgedReadOps"),
                cluster.sumOverWorkers(mbean, "HedgedReadOpsWin"));
    }

    private record Counters(long reads, long hedges, long wins)
    {
        Counters minus(Counters other)
        {
            return new Counters(reads - other.reads, hedges - other.hedges, wins - other.wins);
        }
    }
}
