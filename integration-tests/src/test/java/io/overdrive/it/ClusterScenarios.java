package io.overdrive.it;

import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.OpenMetrics;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * What an operator's cluster must show, run against a coordinator and two workers over HDFS and an S3 server: in
 * containers ({@code TestClusterScenariosOnContainers}, the S3 server a container of its own) and the same on local
 * processes ({@link TestClusterScenariosOnProcesses}). Catalogs: stock {@code hive} and {@code overdrive} (overdrive_hive
 * with the page cache and soft affinity), over the same tables; metrics are read the way Prometheus reads them, at
 * {@code /metrics}. The scenarios run in order on one cluster: the same rows, warm runs from the caches where soft
 * affinity placed the pages (on HDFS and on S3), the caches restored after every worker restarted, a worker killed.
 */
@TestInstance(PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class ClusterScenarios
{
    public static final String S3_BUCKET = "lake";
    private static final String PAGE_CACHE = "JMX_io_overdrive_cache_page_NAME_overdrive_TYPE_PageCacheStats_ATTRIBUTE_";
    private static final String PLACEMENT = "JMX_io_overdrive_scheduler_affinity_NAME_overdrive_TYPE_PlacementStats_ATTRIBUTE_";
    private static final List<String> QUERIES = List.of(
            "SELECT orderpriority, count(*), sum(totalprice) FROM %s.scenarios.orders GROUP BY 1 ORDER BY 1",
            "SELECT c.mktsegment, count(*), max(o.totalprice) FROM %1$s.scenarios.orders o JOIN %1$s.scenarios.customer c ON o.custkey = c.custkey GROUP BY 1 ORDER BY 1",
            "SELECT count(*), min(orderkey), max(orderkey), sum(custkey) FROM %s.scenarios.orders WHERE orderdate >= DATE '1995-01-01'");
    private static final String LINEITEM_QUERY = "SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice) FROM overdrive.%s GROUP BY 1, 2 ORDER BY 1, 2";
    /**
     * The coordinator's {@code config.properties} entries on top of a node's usual ones: it gives up on a worker that
     * stopped answering after 10 s instead of Trino's default minute. A query with a task on the killed worker then
     * fails (and the users' next query runs) 10 s after the kill, not a minute; so does the count of active nodes, which
     * is itself a query that may have a task there. Loopback refuses a dead worker's connections at once, so nothing
     * else fails for it.
     */
    public static final Map<String, String> COORDINATOR_PROPERTIES = Map.of(
            "query.remote-task.max-error-duration", "10s",
            "exchange.max-error-duration", "10s");

    private ScenarioCluster cluster;
    private String s3Table;
    private Instant s3TableWritten;

    /**
     * Starts the cluster with the catalogs {@code catalogs} gives for its storage (name to properties,
     * {@code connector.name} among them).
     */
    protected abstract ScenarioCluster startCluster(Function<Storage, Map<String, Map<String, String>>> catalogs);

    /**
     * Where the cluster's tables are: the NameNode's {@code hdfs://host:port}, which also holds the metastore, and the
     * catalog properties of an S3 server with the bucket {@value #S3_BUCKET}.
     */
    public record Storage(URI nameNode, Map<String, String> s3)
    {
        public Storage
        {
            requireNonNull(nameNode, "nameNode is null");
            s3 = Map.copyOf(s3);
        }
    }

    public static Map<String, Map<String, String>> catalogs(Storage storage)
    {
        Map<String, String> hive = new LinkedHashMap<>(HiveCatalogs.hiveOnHdfs(storage.nameNode(), "/scenarios/metastore"));
        hive.putAll(storage.s3());
        // tables outside the metastore's directory (on S3) are external tables, written too
        hive.put("hive.non-managed-table-writes-enabled", "true");
        Map<String, String> overdrive = HiveCatalogs.withEveryFeature(hive, "100ms");
        // each page is cached on its first read and before the read returns, so that the second run of a query is
        // served from the caches as soon as the first has finished (the defaults admit a page on its second read and
        // write it in the background)
        overdrive.put("cache.admission", "false");
        overdrive.put("cache.async-write-enabled", "false");
        Map<String, Map<String, String>> catalogs = new LinkedHashMap<>();
        catalogs.put("hive", withConnector("hive", hive));
        catalogs.put("overdrive", withConnector("overdrive_hive", overdrive));
        catalogs.put("tpch", Map.of("connector.name", "tpch"));
        return catalogs;
    }

    private static Map<String, String> withConnector(String connector, Map<String, String> properties)
    {
        Map<String, String> catalog = new LinkedHashMap<>();
        catalog.put("connector.name", connector);
        catalog.putAll(properties);
        return catalog;
    }

    @BeforeAll
    void start()
    {
        long start = System.nanoTime();
        cluster = startCluster(ClusterScenarios::catalogs);
        System.out.printf("[overdrive-it] %s: coordinator + 2 workers up in %.1fs%n", getClass().getSimpleName(), (System.nanoTime() - start) / 1e9);
        execute("CREATE SCHEMA hive.scenarios");
        // partitioned, so that the table has several files for placement to spread
        execute("CREATE TABLE hive.scenarios.orders WITH (format = 'PARQUET', partitioned_by = ARRAY['orderpriority']) AS " +
                "SELECT orderkey, custkey, orderstatus, totalprice, orderdate, clerk, orderpriority FROM tpch.tiny.orders");
        execute("CREATE TABLE hive.scenarios.customer WITH (format = 'ORC') AS SELECT * FROM tpch.tiny.customer");
        // the S3 table now, so that it is old enough for the caches by the time the S3 scenarios read it
        execute("CREATE TABLE hive.scenarios.lineitem_s3 WITH (format = 'PARQUET', external_location = 's3://%s/scenarios-%s/lineitem') AS SELECT * FROM tpch.tiny.lineitem"
                .formatted(S3_BUCKET, System.nanoTime()));
        s3TableWritten = Instant.now();
    }

    @AfterAll
    void stop()
    {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void resultsAreTheSameThroughOverdriveAndStockHive()
    {
        for (String sql : QUERIES) {
            List<List<Object>> expected = query(sql.formatted("hive"));
            assertThat(expected).isNotEmpty();
            assertThat(ResultRows.same(query(sql.formatted("overdrive")), expected)).as(sql).isTrue();
        }
    }

    @Test
    @Order(2)
    void secondRunIsServedFromTheWorkersCachesWhereSoftAffinityPlacedIt()
    {
        execute("CREATE TABLE hive.scenarios.lineitem WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.lineitem");
        assertSecondRunServedFromTheCachesWhereSoftAffinityPlacedIt("scenarios.lineitem");
    }

    @Test
    @Order(3)
    void onS3TheSecondRunIsServedFromTheWorkersCaches()
    {
        assertSecondRunServedFromTheCachesWhereSoftAffinityPlacedIt(s3Table());
    }

    @Test
    @Order(4)
    void afterTheWorkersRestartTheirRestoredCachesServeTheS3TableWithoutAGet()
    {
        String sql = LINEITEM_QUERY.formatted(s3Table());
        List<List<Object>> expected = query(sql.replace("overdrive.", "hive."));
        // every page the query needs is in the workers' caches (the cache writes each page before the read returns)
        assertThat(ResultRows.same(query(sql), expected)).isTrue();
        List<Map<String, Double>> before = workerMetrics();
        assertThat(sum(before.stream().map(metrics -> metrics.getOrDefault("BytesCached", 0.0)).toList())).as("bytes cached before the restart").isPositive();

        long start = System.nanoTime();
        cluster.restartWorkers();
        // the restore runs in the background; a read of a page it has not reached restores that page itself, and waiting
        // for the end makes the count of restored pages whole
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (workerMetrics().stream().anyMatch(metrics -> metrics.getOrDefault("RestoresRunning", 1.0) > 0) && System.nanoTime() < deadline) {
            sleepUninterruptibly(200, MILLISECONDS);
        }
        System.out.printf("[overdrive-it] %s: workers restarted and restored in %.1fs%n", getClass().getSimpleName(), (System.nanoTime() - start) / 1e9);
        List<Map<String, Double>> restored = workerMetrics();
        for (int worker = 0; worker < restored.size(); worker++) {
            assertThat(restored.get(worker).getOrDefault("RestoresRunning", 1.0)).as("worker %s's restore running", worker).isZero();
            assertThat(restored.get(worker).getOrDefault("RestoreDiscardedCorrupt", 0.0)).as("worker %s's pages found damaged", worker).isZero();
        }
        assertThat(sum(restored.stream().map(metrics -> metrics.getOrDefault("PagesRestored", 0.0)).toList())).as("pages restored").isPositive();

        assertThat(ResultRows.same(query(sql), expected)).as("rows after the restart").isTrue();
        List<Map<String, Double>> after = workerMetrics();
        assertThat(sum(delta(restored, after, "BytesFromRemote"))).as("bytes read from S3 after the restart").isZero();
        assertThat(sum(delta(restored, after, "BytesFromCache"))).as("bytes read from the restored caches").isPositive();
    }

    /**
     * The table in the S3 server's bucket, created with the others; an external one, as the metastore stays on HDFS and
     * Trino's file metastore reads a managed table from under its own directory.
     */
    private String s3Table()
    {
        if (s3Table == null) {
            assertThat(query("SELECT DISTINCT substr(\"$path\", 1, 5) FROM hive.scenarios.lineitem_s3")).containsExactly(List.of("s3://"));
            // the caches keep an S3 object once it is cache.min-file-age old
            TestingS3.awaitCacheable(s3TableWritten);
            s3Table = "scenarios.lineitem_s3";
        }
        return s3Table;
    }

    private void assertSecondRunServedFromTheCachesWhereSoftAffinityPlacedIt(String table)
    {
        String sql = LINEITEM_QUERY.formatted(table);
        List<Map<String, Double>> before = workerMetrics();
        double placedBefore = coordinatorMetric(PLACEMENT + "Preferred_TotalCount");
        List<List<Object>> first = query(sql);
        List<Map<String, Double>> afterFirst = workerMetrics();
        List<List<Object>> second = query(sql);
        List<Map<String, Double>> afterSecond = workerMetrics();

        assertThat(second).isEqualTo(first);
        assertThat(ResultRows.same(first, query(sql.replace("overdrive.", "hive.")))).isTrue();
        assertThat(sum(delta(before, afterFirst, "BytesFromRemote"))).as("first run reads storage").isPositive();
        assertThat(sum(delta(afterFirst, afterSecond, "BytesFromRemote"))).as("second run reads no storage").isZero();
        assertThat(sum(delta(afterFirst, afterSecond, "BytesFromCache"))).as("second run reads the caches").isPositive();
        // each worker reads from its cache what it fetched itself in the first run: the splits went where they went before
        for (int worker = 0; worker < before.size(); worker++) {
            boolean fetched = delta(before, afterFirst, "BytesFromRemote").get(worker) > 0;
            boolean hit = delta(afterFirst, afterSecond, "BytesFromCache").get(worker) > 0;
            assertThat(hit).as("worker %s read from its cache in the second run iff it fetched in the first", worker).isEqualTo(fetched);
        }
        assertThat(coordinatorMetric(PLACEMENT + "Preferred_TotalCount")).as("splits placed on their preferred worker").isGreaterThan(placedBefore);
    }

    @Test
    @Order(5)
    void killedWorkerFailsNoLaterQuery()
            throws Exception
    {
        Map<String, List<List<Object>>> expected = new LinkedHashMap<>();
        for (String sql : QUERIES) {
            expected.put(sql, query(sql.formatted("hive")));
        }
        // users keep querying while the worker dies; their queries may fail until the coordinator notices
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger finished = new AtomicInteger();
        ExecutorService users = Executors.newFixedThreadPool(2);
        List<Future<?>> running = new ArrayList<>();
        for (int user = 0; user < 2; user++) {
            running.add(users.submit(() -> {
                while (!stop.get()) {
                    for (String sql : QUERIES) {
                        try {
                            query(sql.formatted("overdrive"));
                            finished.incrementAndGet();
                        }
                        catch (RuntimeException ignored) {
                            // a query that ran on the killed worker
                        }
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (finished.get() < 4 && System.nanoTime() < deadline) {
            sleepUninterruptibly(100, MILLISECONDS);
        }
        cluster.killWorker(1);
        System.out.printf("[overdrive-it] %s: worker 2 killed after %s queries%n", getClass().getSimpleName(), finished.get());
        assertThat(cluster.awaitActiveNodes(2, Duration.ofMinutes(3))).as("the coordinator noticed the dead worker").isTrue();
        stop.set(true);
        for (Future<?> user : running) {
            user.get();
        }
        users.shutdown();

        for (int round = 0; round < 2; round++) {
            for (String sql : QUERIES) {
                assertThat(ResultRows.same(query(sql.formatted("overdrive")), expected.get(sql))).as(sql).isTrue();
            }
        }
    }

    private List<Map<String, Double>> workerMetrics()
    {
        return cluster.workers().stream()
                .map(worker -> {
                    Map<String, Double> values = new LinkedHashMap<>();
                    for (OpenMetrics.Sample sample : OpenMetrics.scrape(worker)) {
                        if (sample.name().startsWith(PAGE_CACHE)) {
                            values.put(sample.name().substring(PAGE_CACHE.length()), sample.value());
                        }
                    }
                    return values;
                })
                .toList();
    }

    private static List<Double> delta(List<Map<String, Double>> before, List<Map<String, Double>> after, String attribute)
    {
        List<Double> deltas = new ArrayList<>();
        for (int worker = 0; worker < before.size(); worker++) {
            deltas.add(after.get(worker).getOrDefault(attribute, 0.0) - before.get(worker).getOrDefault(attribute, 0.0));
        }
        return deltas;
    }

    private static double sum(List<Double> values)
    {
        return values.stream().mapToDouble(Double::doubleValue).sum();
    }

    private double coordinatorMetric(String name)
    {
        return OpenMetrics.value(OpenMetrics.scrape(cluster.coordinator()), name).orElse(0.0);
    }

    private List<List<Object>> query(String sql)
    {
        try (Connection connection = cluster.connect()) {
            return TrinoProcessCluster.query(connection, sql);
        }
        catch (SQLException e) {
            throw new RuntimeException(sql + ": " + e.getMessage(), e);
        }
    }

    private void execute(String sql)
    {
        try (Connection connection = cluster.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException e) {
            throw new RuntimeException(sql + ": " + e.getMessage(), e);
        }
    }
}
