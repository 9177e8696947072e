package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.S3Storage;
import io.overdrive.it.harness.SlowProxy;
import io.overdrive.it.harness.TrinoProcessCluster.TrinoNode;
import io.overdrive.it.harness.TrinoProcessCluster;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.trino.jdbc.TrinoStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static java.util.stream.Collectors.counting;
import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.toMap;
import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Soft affinity on real HDFS with four worker processes: a {@code SOFT_AFFINITY} catalog at the placement defaults
 * caches each file on at most 2 workers (below the load floor a file stays on its first worker; a second copy only if
 * the workers changed) while a {@code NO_PREFERENCE} catalog over the same tables spreads copies around; both answer exactly like stock {@code hive}. Workers die: one killed mid-query under
 * {@code retry-policy=QUERY}, one under {@code TASK}, one between queries; the queries succeed and placement avoids
 * the dead. Four workers, so that one is still alive after the three kills. Peer reads: splits off their file's worker
 * read its cache, and among faulty peers (another secret, a stall, an answer cut short) every fault costs
 * a storage read, never a row. The same placement over S3 (a real S3
 * server): each file cached where its splits ran, and warm queries send S3 no request.
 */
@TestInstance(PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestSoftAffinityMultiProcess
{
    private static final List<String> QUERIES = List.of(
            "SELECT orderpriority, count(*), sum(totalprice) FROM %s.affinity.orders GROUP BY 1 ORDER BY 1",
            "SELECT custkey, max(totalprice) FROM %s.affinity.orders WHERE orderdate > DATE '1995-01-01' GROUP BY 1 ORDER BY 1",
            "SELECT count(*), min(orderkey), max(orderkey) FROM %s.affinity.orders");

    private static final List<String> MANY_FILES_QUERIES = List.of(
            "SELECT month, count(*), sum(totalprice), max(orderkey) FROM %s.affinity.orders_by_month GROUP BY 1 ORDER BY 1",
            "SELECT orderpriority, count(*), max(totalprice), min(clerk), max(custkey) FROM %s.affinity.orders_by_month GROUP BY 1 ORDER BY 1");

    // Every order 2,000 times, each hashed: a scan that keeps the workers busy for several seconds on 2 cores, long
    // enough to kill one while it runs its splits. Exact aggregates (count, checksum), so results compare exactly.
    private static final String LONG_QUERY = "SELECT orderpriority, count(*), " +
            "to_hex(checksum(sha256(to_utf8(CAST(orderkey AS varchar) || ':' || CAST(x AS varchar))))) " +
            "FROM %s.affinity.orders CROSS JOIN UNNEST(sequence(1, 2000)) AS t(x) GROUP BY 1 ORDER BY 1";

    private static final String PLACEMENT_STATS = "io.overdrive.scheduler.affinity:type=PlacementStats,name=soft,*";
    // the coordinator's own node list (Trino 483 exports CoordinatorNodeManager under its "trino" JMX domain)
    private static final String NODE_MANAGER = "trino.node:name=CoordinatorNodeManager";
    private static final Duration MEMBERSHIP_REFRESH = Duration.ofSeconds(1);
    private static final String PEER_STATS = "io.overdrive.cache.peer:type=PeerStats,name=peers,*";
    private static final String PEER_SECRET = "secret-of-the-peers-catalog-" + System.nanoTime();

    private TrinoProcessCluster cluster;
    private List<List<Object>> longQueryExpected;

    @BeforeAll
    void startCluster()
    {
        HdfsCluster hdfs = TestingHdfs.shared();
        Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/soft-affinity/metastore");
        // the same catalogs over S3: stock hive and overdrive_hive under soft affinity, tables and metastore in the bucket
        S3Storage s3 = TestingS3.shared();
        Map<String, String> hiveOnS3 = HiveCatalogs.hiveOnS3(s3, "/soft-affinity-" + System.nanoTime() + "/metastore");
        Path work = TestingHdfs.workDirectory().resolve("soft-affinity");
        long start = System.nanoTime();
        cluster = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), work)
                .workers(4)
                .heapSize("900m")
                .catalog("soft", "overdrive_hive", withCache(hive, "cache-soft", Map.of(
                        "node-selection-strategy", "SOFT_AFFINITY",
                        "node-selection.membership-refresh-interval", MEMBERSHIP_REFRESH.toSeconds() + "s")))
                .catalog("spread", "overdrive_hive", withCache(hive, "cache-spread", Map.of()))
                // for the skewed queries alone; a half-life far beyond the test, so that its load account is the raw sum
                .catalog("skew", "overdrive_hive", withCache(hive, "cache-skew", Map.of(
                        "node-selection-strategy", "SOFT_AFFINITY",
                        "node-selection.load-half-life", "1h",
                        // the relative bound from the first split: these splits weigh a few hundredths of a standard
                        // split, so all 120 together stay below the default floor of 16 standard splits
                        "node-selection.load-floor", "0",
                        "node-selection.membership-refresh-interval", "1s",
                        // split weights in proportion to the (small) files' sizes, as they are for files near 64 MB
                        "hive.max-split-size", "1MB",
                        "hive.minimum-assigned-split-weight", "0.01")))
                // peer reads on: the relative bound from the first split, so that some splits run off their file's
                // worker, whose cache they then read
                .catalog("peers", "overdrive_hive", withCache(hive, "cache-peers", Map.of(
                        "node-selection-strategy", "SOFT_AFFINITY",
                        "node-selection.load-floor", "0",
                        "node-selection.membership-refresh-interval", MEMBERSHIP_REFRESH.toSeconds() + "s",
                        "cache.peer.shared-secret", PEER_SECRET)))
                // peer reads among faulty peers, their services 2 ports above Trino's: worker-1's catalog file has another
                // secret; worker-2's and worker-3's services listen 3 above, behind proxies on the port the others ask
                // (one stalls, one cuts its answers short); worker-4 is sound. A failed peer is asked again after 1s
                .catalog("peer_faults", "overdrive_hive", withCache(hive, "cache-peer-faults", Map.of(
                        "node-selection-strategy", "SOFT_AFFINITY",
                        "node-selection.load-floor", "0",
                        "node-selection.membership-refresh-interval", MEMBERSHIP_REFRESH.toSeconds() + "s",
                        "cache.peer.shared-secret", PEER_SECRET,
                        "cache.peer.port-offset", "2",
                        "cache.peer.retry-after", "1s")))
                .nodeCatalogProperties("worker-1", "peer_faults", Map.of("cache.peer.shared-secret", "another-secret-than-the-other-nodes-" + System.nanoTime()))
                .nodeCatalogProperties("worker-2", "peer_faults", Map.of("cache.peer.port-offset", "3"))
                .nodeCatalogProperties("worker-3", "peer_faults", Map.of("cache.peer.port-offset", "3"))
                .catalog("hive", "hive", hive)
                // Iceberg tables under the same shipped placement as soft's. Writes collect no column sketches: their
                // aggregation comes with Trino's own Iceberg plugin, which this cluster does not load (its 450 MB would
                // slow every node's start)
                .catalog("soft_iceberg", "overdrive_iceberg", withCache(HiveCatalogs.icebergOnHdfs(hdfs, "/soft-affinity-iceberg/metastore"), "cache-soft-iceberg", Map.of(
                        "node-selection-strategy", "SOFT_AFFINITY",
                        "node-selection.membership-refresh-interval", MEMBERSHIP_REFRESH.toSeconds() + "s",
                        "iceberg.extended-statistics.collect-on-write", "false")))
                .catalog("soft_s3", "overdrive_hive", withCache(hiveOnS3, "cache-soft-s3", Map.of("node-selection-strategy", "SOFT_AFFINITY")))
                .catalog("hive_s3", "hive", hiveOnS3)
                .catalog("tpch", "tpch", Map.of())
                // The coordinator gives up on a worker that stopped answering after 10 s instead of 1 minute: it fails
                // the worker's tasks (so a query attempt that lost one fails and is retried), and its exchange client
                // stops reading a dead first attempt's output (until then a retried query, done, does not finish).
                // Loopback refuses a dead worker's connections at once, so nothing else fails for it.
                .coordinatorProperty("query.remote-task.max-error-duration", "10s")
                .coordinatorProperty("exchange.max-error-duration", "10s")
                // retry-policy=TASK spools task output through an exchange manager: the filesystem one on a local
                // directory every process of this machine shares (Trino 483's takes file, s3, gs and abfs, not hdfs)
                .exchangeManager(Map.of(
                        "exchange-manager.name", "filesystem",
                        "exchange.base-directories", work.resolve("exchange").toUri().toString()))
                .start();
        System.out.printf("[overdrive-it] %s: coordinator + 4 workers up in %.1fs%n", getClass().getSimpleName(), (System.nanoTime() - start) / 1e9);
        cluster.execute("CREATE SCHEMA hive.affinity");
        // partitioned, so that the table has many files
        cluster.execute("CREATE TABLE hive.affinity.orders WITH (format = 'PARQUET', partitioned_by = ARRAY['orderpriority']) AS " +
                "SELECT orderkey, custkey, orderstatus, totalprice, orderdate, clerk, orderpriority FROM tpch.tiny.orders");
        // a file per month: 80 small files, so that each worker runs splits of files that another worker caches (peer reads)
        cluster.execute("CREATE TABLE hive.affinity.orders_by_month WITH (format = 'PARQUET', partitioned_by = ARRAY['month']) AS " +
                "SELECT orderkey, custkey, totalprice, orderpriority, clerk, format_datetime(orderdate, 'yyyy-MM') AS month FROM tpch.tiny.orders");
    }

    private static Map<String, String> withCache(Map<String, String> hive, String directory, Map<String, String> extra)
    {
        Map<String, String> properties = new LinkedHashMap<>(hive);
        properties.put("cache.enabled", "true");
        // relative: each worker process has its own working directory, so its own cache
        properties.put("cache.base-directory", directory);
        properties.put("cache.max-size", "1GB");
        properties.putAll(extra);
        return properties;
    }

    @AfterAll
    void stopCluster()
    {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void eachFileIsCachedOnAtMostItsPreferredWorkers()
            throws IOException
    {
        for (int round = 0; round < 4; round++) {
            for (String sql : QUERIES) {
                List<List<Object>> expected = cluster.query(sql.formatted("hive"));
                assertThat(ResultRows.same(cluster.query(sql.formatted("soft")), expected)).as("soft: %s", sql).isTrue();
                assertThat(ResultRows.same(cluster.query(sql.formatted("spread")), expected)).as("spread: %s", sql).isTrue();
            }
        }
        Map<String, Integer> softCopies = copiesPerFile("cache-soft", "soft");
        Map<String, Integer> spreadCopies = copiesPerFile("cache-spread", "spread");
        assertThat(softCopies).as("files cached under soft affinity").isNotEmpty();
        assertThat(softCopies.values()).as("copies of each file under SOFT_AFFINITY").allSatisfy(copies -> assertThat(copies).isLessThanOrEqualTo(2));
        double softAverage = softCopies.values().stream().mapToInt(Integer::intValue).average().orElseThrow();
        double spreadAverage = spreadCopies.values().stream().mapToInt(Integer::intValue).average().orElseThrow();
        assertThat(spreadAverage).as("NO_PREFERENCE spreads copies (soft %.2f, spread %.2f)", softAverage, spreadAverage).isGreaterThan(softAverage);

        // the coordinator's placement metrics, over JMX
        long preferred = JmxAttributes.sum(cluster.coordinator().jmxPort(), "io.overdrive.scheduler.affinity:type=PlacementStats,*", "Preferred.TotalCount");
        assertThat(preferred).isPositive();
    }

    @Test
    @Order(2)
    void concurrentQueriesOnHotFilesStayWithinTheLoadBound()
            throws Exception
    {
        // two hot files of similar size (two partitions), read by 6 clients at once: a bound per query would send each
        // query's two splits to the same two workers every time (max/avg 1.5 or 3); the catalog's shared bound spreads them
        // every query reads the same three columns, so that the bytes a split reads follow its weight (the file's size)
        // whichever query it belongs to: the bytes per worker then measure the placement, not the mix of queries
        List<String> hot = List.of(
                "SELECT count(*), sum(totalprice), min(orderdate), max(custkey) FROM %s.affinity.orders WHERE orderpriority IN ('1-URGENT', '2-HIGH')",
                "SELECT orderpriority, max(totalprice), min(orderdate), count(DISTINCT custkey) FROM %s.affinity.orders WHERE orderpriority IN ('1-URGENT', '2-HIGH') GROUP BY 1 ORDER BY 1",
                "SELECT count(DISTINCT custkey), sum(totalprice), max(orderdate) FROM %s.affinity.orders WHERE orderpriority IN ('1-URGENT', '2-HIGH')");
        List<List<List<Object>>> expected = hot.stream().map(sql -> cluster.query(sql.formatted("hive"))).toList();
        int clients = 6;
        int queriesPerClient = 10;
        List<Future<List<String>>> results = new ArrayList<>();
        try (ExecutorService executor = Executors.newFixedThreadPool(clients)) {
            for (int client = 0; client < clients; client++) {
                int first = client;
                results.add(executor.submit(() -> {
                    List<String> wrong = new ArrayList<>();
                    for (int query = 0; query < queriesPerClient; query++) {
                        int index = (first + query) % hot.size();
                        if (!ResultRows.same(cluster.query(hot.get(index).formatted("skew")), expected.get(index))) {
                            wrong.add(hot.get(index));
                        }
                    }
                    return wrong;
                }));
            }
        }
        for (Future<List<String>> result : results) {
            assertThat(result.get()).as("queries whose rows differ from stock hive").isEmpty();
        }

        long[] bytes = cluster.workers().stream()
                .mapToLong(worker -> JmxAttributes.sum(worker.jmxPort(), "io.overdrive.cache.page:type=PageCacheStats,name=skew,*", "BytesFromCache")
                        + JmxAttributes.sum(worker.jmxPort(), "io.overdrive.cache.page:type=PageCacheStats,name=skew,*", "BytesFromRemote"))
                .toArray();
        double average = Arrays.stream(bytes).average().orElseThrow();
        double imbalance = Arrays.stream(bytes).max().orElseThrow() / average;
        double loadImbalance = JmxAttributes.value(cluster.coordinator().jmxPort(), "io.overdrive.scheduler.affinity:type=PlacementStats,name=skew,*", "LoadImbalance");
        System.out.printf("skewed queries: bytes read per worker %s, max/avg %.3f; placement load max/avg %.3f%n", Arrays.toString(bytes), imbalance, loadImbalance);
        // the bound (1 + the default epsilon) plus the largest split's share of the average: a worker just below the
        // bound takes one more split; the hot partitions' files differ in size, so allow twice an average split of the 120
        double loadBound = 1 + new NodeSelectionConfig().getLoadBalanceEpsilon() + 2.0 * bytes.length / (clients * queriesPerClient * 2);
        assertThat(loadImbalance).isLessThanOrEqualTo(loadBound);
        // the bytes a worker read follow its placed weight up to what the weights do not see (footers, dictionary
        // pages, the two files' different compression): 0.1 on top of the placement's bound; a bound per query gives 1.5 or more
        assertThat(imbalance).as("bytes read per worker %s", Arrays.toString(bytes)).isLessThanOrEqualTo(loadBound + 0.1);
        assertThat(Arrays.stream(bytes).min().orElseThrow()).as("bytes read by the least busy worker").isPositive();
    }

    @Test
    @Order(3)
    void sessionPropertiesSwitchFeaturesOffForOneQuery()
            throws SQLException
    {
        String pageStats = "io.overdrive.cache.page:type=PageCacheStats,name=soft,*";
        String sql = QUERIES.getFirst();
        List<List<Object>> expected = cluster.query(sql.formatted("hive"));

        // cache_enabled=false and soft_affinity_enabled=false: files cached by the first test are read from storage,
        // the cache is left as it was, and the coordinator places none of the query's splits
        long fromCache = cluster.sumOverWorkers(pageStats, "BytesFromCache");
        long fromRemote = cluster.sumOverWorkers(pageStats, "BytesFromRemote");
        long bypassed = cluster.sumOverWorkers(pageStats, "NotCachedSessionBypass");
        long cached = cluster.sumOverWorkers(pageStats, "BytesCached");
        long placed = total(placedSplits());
        assertThat(ResultRows.same(querySession(sql.formatted("soft"), Map.of("soft.cache_enabled", "false", "soft.soft_affinity_enabled", "false")), expected)).as(sql).isTrue();
        assertThat(cluster.sumOverWorkers(pageStats, "BytesFromCache")).as("bytes from the cache").isEqualTo(fromCache);
        assertThat(cluster.sumOverWorkers(pageStats, "BytesFromRemote")).as("bytes from storage").isGreaterThan(fromRemote);
        assertThat(cluster.sumOverWorkers(pageStats, "NotCachedSessionBypass") - bypassed).as("files read past the cache").isGreaterThanOrEqualTo(splitsPerScan());
        assertThat(cluster.sumOverWorkers(pageStats, "BytesCached")).as("bytes cached").isEqualTo(cached);
        assertThat(total(placedSplits())).as("splits placed by soft affinity").isEqualTo(placed);

        // the same query with the session's defaults reads those files from the cache, placed as before
        assertThat(ResultRows.same(cluster.query(sql.formatted("soft")), expected)).as(sql).isTrue();
        assertThat(cluster.sumOverWorkers(pageStats, "BytesFromCache")).as("bytes from the cache").isGreaterThan(fromCache);
        assertThat(total(placedSplits())).as("splits placed by soft affinity").isEqualTo(placed + splitsPerScan());

        // cache_populate=NEVER on a table no query has read: nothing written; an ordinary query then fills the cache,
        // and a NEVER query reads what it filled
        cluster.execute("CREATE TABLE hive.affinity.session_lines WITH (format = 'PARQUET') AS SELECT orderkey, returnflag, extendedprice FROM tpch.tiny.lineitem");
        String lines = "SELECT returnflag, count(*), sum(extendedprice), max(orderkey) FROM %s.affinity.session_lines GROUP BY 1 ORDER BY 1";
        List<List<Object>> linesExpected = cluster.query(lines.formatted("hive"));
        Map<String, String> never = Map.of("soft.cache_populate", "'NEVER'");
        long written = cluster.sumOverWorkers(pageStats, "PagesWritten");
        long declined = cluster.sumOverWorkers(pageStats, "NotCachedSessionNever");
        assertThat(ResultRows.same(querySession(lines.formatted("soft"), never), linesExpected)).as(lines).isTrue();
        assertThat(cluster.sumOverWorkers(pageStats, "PagesWritten")).as("pages written for a NEVER query").isEqualTo(written);
        assertThat(cluster.sumOverWorkers(pageStats, "NotCachedSessionNever")).as("pages a NEVER query did not write").isGreaterThan(declined);

        assertThat(ResultRows.same(cluster.query(lines.formatted("soft")), linesExpected)).as(lines).isTrue();
        assertThat(cluster.sumOverWorkers(pageStats, "PagesWritten")).as("pages written by an ordinary query").isGreaterThan(written);
        long linesFromCache = cluster.sumOverWorkers(pageStats, "BytesFromCache");
        assertThat(ResultRows.same(querySession(lines.formatted("soft"), never), linesExpected)).as(lines).isTrue();
        assertThat(cluster.sumOverWorkers(pageStats, "BytesFromCache")).as("a NEVER query reads cached pages").isGreaterThan(linesFromCache);
    }

    @Test
    @Order(4)
    void warmCacheFillsThePreferredWorkers()
    {
        cluster.execute("CREATE TABLE hive.affinity.warm_orders WITH (format = 'PARQUET', partitioned_by = ARRAY['orderstatus']) AS " +
                "SELECT orderkey, custkey, totalprice, orderdate, orderstatus FROM tpch.tiny.orders");
        String pageStats = "io.overdrive.cache.page:type=PageCacheStats,name=soft,*";
        List<List<Object>> warmed = cluster.query("SELECT node_id, path, cached_here, bytes_from_storage FROM TABLE(soft.system.warm_cache(schema_name => 'affinity', table_name => 'warm_orders'))");
        assertThat(warmed).as("a row per split, one file per orderstatus").hasSize(3);
        // each split ran on the worker placement prefers for its file, which caches it
        assertThat(warmed).allSatisfy(row -> assertThat(row.get(2)).as("cached where it ran: %s", row).isEqualTo(true));
        long warmedBytes = warmed.stream().mapToLong(row -> ((Number) row.get(3)).longValue()).sum();
        assertThat(warmedBytes).isPositive();

        // the next query's splits go to those workers, and read (almost) nothing from storage
        String sql = "SELECT orderstatus, count(*), sum(totalprice), max(orderdate), min(custkey), max(orderkey) FROM %s.affinity.warm_orders GROUP BY 1 ORDER BY 1";
        List<List<Object>> expected = cluster.query(sql.formatted("hive"));
        long remote = cluster.sumOverWorkers(pageStats, "BytesFromRemote");
        assertThat(ResultRows.same(cluster.query(sql.formatted("soft")), expected)).as(sql).isTrue();
        assertThat(cluster.sumOverWorkers(pageStats, "BytesFromRemote") - remote).as("storage bytes after the warm-up (it read %s)", warmedBytes)
                .isLessThanOrEqualTo(warmedBytes / 20);

        // what the cache did, from SQL: every worker's counters, as its JMX shows them, joinable with the node list
        Map<Object, Object> hits = cluster.query("SELECT m.node_id, m.value FROM soft.system.cache_metrics m JOIN system.runtime.nodes n ON m.node_id = n.node_id " +
                        "WHERE m.mbean = 'PageCacheStats' AND m.attribute = 'Hits'").stream()
                .collect(toMap(List::getFirst, List::getLast));
        assertThat(hits.keySet()).as("workers with a page cache").isEqualTo(cluster.workers().stream().map(TrinoNode::name).collect(toSet()));
        for (TrinoNode worker : cluster.workers()) {
            assertThat(((Number) hits.get(worker.name())).longValue()).as("Hits of %s, from SQL and over JMX", worker.name())
                    .isEqualTo(JmxAttributes.sum(worker.jmxPort(), pageStats, "Hits"));
        }
        assertThat(cluster.query("SELECT DISTINCT mbean FROM soft.system.cache_metrics WHERE node_id = 'coordinator'"))
                .as("the coordinator places splits").contains(List.of("PlacementStats"));

        // what each worker holds of the table, from SQL: the warmed files on the workers that warmed them, read since
        Map<Object, List<Object>> cached = cluster.query("SELECT c.node_id, c.cached_files, c.cached_bytes, c.hits, c.last_access > now() - INTERVAL '10' MINUTE " +
                        "FROM soft.system.cached_tables c JOIN system.runtime.nodes n ON c.node_id = n.node_id " +
                        "WHERE c.schema_name = 'affinity' AND c.table_name = 'warm_orders'").stream()
                .collect(toMap(List::getFirst, row -> row));
        Map<Object, Long> warmedFiles = warmed.stream().collect(groupingBy(List::getFirst, counting()));
        warmedFiles.forEach((node, files) -> {
            assertThat(cached).as("a row for %s, which warmed %s files", node, files).containsKey(node);
            assertThat(((Number) cached.get(node).get(1)).longValue()).as("files cached on %s", node).isGreaterThanOrEqualTo(files);
            assertThat(cached.get(node).get(4)).as("accessed recently on %s", node).isEqualTo(true);
        });
        assertThat(cached.values().stream().mapToLong(row -> ((Number) row.get(3)).longValue()).sum()).as("reads of warm_orders served from the cache").isPositive();
        // every worker's bytes over all tables and directories, as its JMX shows them
        for (TrinoNode worker : cluster.workers()) {
            String node = "'" + worker.name() + "'";
            long jmxBytes = JmxAttributes.sum(worker.jmxPort(), pageStats, "BytesCached");
            assertThat(((Number) cluster.query("SELECT coalesce(sum(cached_bytes), 0) FROM soft.system.cached_tables WHERE node_id = " + node).getFirst().getFirst()).longValue())
                    .as("bytes cached on %s, per table from SQL and over JMX", worker.name()).isEqualTo(jmxBytes);
            assertThat(cluster.query("SELECT in_use, used_bytes FROM soft.system.cache_directories WHERE node_id = " + node))
                    .as("the cache directory of %s", worker.name()).containsExactly(List.of(true, jmxBytes));
        }
    }

    @Test
    @Order(5)
    void cancelledWarmUpStopsReading()
            throws Exception
    {
        String pageStats = "io.overdrive.cache.page:type=PageCacheStats,name=soft,*";
        // 96 small files (buckets, so that the file metastore holds one table, not 96 partitions), each read whole in one
        // storage request; one split at a time per worker (the session below)
        cluster.execute("CREATE TABLE hive.affinity.warm_many WITH (format = 'PARQUET', bucketed_by = ARRAY['orderkey'], bucket_count = 96) AS " +
                "SELECT orderkey, totalprice, comment FROM tpch.tiny.orders");
        long tableBytes = ((Number) cluster.query("SELECT sum(size) FROM (SELECT DISTINCT \"$path\", \"$file_size\" AS size FROM hive.affinity.warm_many)").getFirst().getFirst()).longValue();
        HdfsCluster hdfs = TestingHdfs.shared();
        // every storage request takes five seconds (the metastore's too): the warm-up takes several rounds of them, each
        // far longer than it takes to see the first round's bytes and cancel
        hdfs.setReadDelay(Duration.ofSeconds(5));
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (Connection connection = cluster.connect(); Statement statement = connection.createStatement()) {
            try (Statement session = connection.createStatement()) {
                // fewer splits at once per worker: more rounds of reads, so that a cancel lands in the middle
                session.execute("SET SESSION max_drivers_per_task = 1");
            }
            AtomicReference<String> queryId = new AtomicReference<>();
            statement.unwrap(TrinoStatement.class).setProgressMonitor(stats -> queryId.compareAndSet(null, stats.getQueryId()));
            long remoteAtStart = cluster.sumOverWorkers(pageStats, "BytesFromRemote");
            Future<List<List<Object>>> warmUp = executor.submit(() -> rows(statement, "SELECT * FROM TABLE(soft.system.warm_cache(schema_name => 'affinity', table_name => 'warm_many'))"));
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (cluster.sumOverWorkers(pageStats, "BytesFromRemote") == remoteAtStart) {
                assertThat(System.nanoTime()).as("the warm-up reads storage within three minutes").isLessThan(deadline);
                assertThat(warmUp.isDone()).as("warm-up still running").isFalse();
                sleepUninterruptibly(100, MILLISECONDS);
            }
            statement.cancel();
            // the client's cancel ends the query on the server (checked below, from the query list)
            assertThatThrownBy(() -> warmUp.get(1, MINUTES)).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SQLException.class);

            // reads under way when it was cancelled finish (five seconds each); then nothing more is read
            long settled = cluster.sumOverWorkers(pageStats, "BytesFromRemote");
            long settleDeadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (true) {
                sleepUninterruptibly(5, SECONDS);
                long now = cluster.sumOverWorkers(pageStats, "BytesFromRemote");
                if (now == settled) {
                    break;
                }
                settled = now;
                assertThat(System.nanoTime()).as("reads stop within a minute of the cancel").isLessThan(settleDeadline);
            }
            long read = settled - remoteAtStart;
            System.out.printf("[overdrive-it] %s: cancelled warm-up read %s of the table's %s bytes%n", getClass().getSimpleName(), read, tableBytes);
            assertThat(read).as("bytes the cancelled warm-up read, of the table's %s", tableBytes).isLessThan(tableBytes * 3 / 4);
            assertThat(cluster.query("SELECT state, error_code FROM system.runtime.queries WHERE query_id = '%s'".formatted(queryId.get())))
                    .containsExactly(List.of("FAILED", "USER_CANCELED"));
        }
        finally {
            hdfs.setReadDelay(Duration.ZERO);
            executor.shutdownNow();
        }
    }

    // runs the query in a session with the given session properties (values as SQL literals)
    private List<List<Object>> querySession(String sql, Map<String, String> session)
            throws SQLException
    {
        try (Connection connection = cluster.connect(); Statement statement = connection.createStatement()) {
            for (Map.Entry<String, String> property : session.entrySet()) {
                statement.execute("SET SESSION %s = %s".formatted(property.getKey(), property.getValue()));
            }
            return rows(statement, sql);
        }
    }

    @Test
    @Order(6)
    void icebergFilesArePlacedAndCachedAsHiveFilesAre()
            throws IOException
    {
        cluster.execute("CREATE SCHEMA soft_iceberg.affinity");
        // partitioned, so that the table has many files
        cluster.execute("CREATE TABLE soft_iceberg.affinity.orders WITH (format = 'PARQUET', partitioning = ARRAY['orderpriority']) AS " +
                "SELECT orderkey, custkey, orderstatus, totalprice, orderdate, clerk, orderpriority FROM tpch.tiny.orders");
        String placement = "io.overdrive.scheduler.affinity:type=PlacementStats,name=soft_iceberg,*";
        String pageStats = "io.overdrive.cache.page:type=PageCacheStats,name=soft_iceberg,*";
        // the same rows as stock hive's copy of the table
        List<List<List<Object>>> expected = QUERIES.stream().map(sql -> cluster.query(sql.formatted("hive"))).toList();
        for (int query = 0; query < QUERIES.size(); query++) {
            assertThat(ResultRows.same(cluster.query(QUERIES.get(query).formatted("soft_iceberg")), expected.get(query))).as("cold: %s", QUERIES.get(query)).isTrue();
        }
        Map<String, Integer> copies = copiesPerFile("cache-soft-iceberg", "soft_iceberg");
        assertThat(copies).as("Iceberg files cached under soft affinity").hasSizeGreaterThanOrEqualTo(5);
        assertThat(copies.values()).as("copies of each file: at most its 2 preferred workers").allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(2));
        assertThat(JmxAttributes.sum(cluster.coordinator().jmxPort(), placement, "Preferred.TotalCount")).as("splits placed on a preferred worker").isPositive();

        // warm: every split on a worker that caches its file, nothing read from storage
        long fromRemote = cluster.sumOverWorkers(pageStats, "BytesFromRemote");
        for (int query = 0; query < QUERIES.size(); query++) {
            assertThat(ResultRows.same(cluster.query(QUERIES.get(query).formatted("soft_iceberg")), expected.get(query))).as("warm: %s", QUERIES.get(query)).isTrue();
        }
        assertThat(cluster.sumOverWorkers(pageStats, "BytesFromRemote") - fromRemote).as("bytes from storage, warm").isZero();
    }

    @Test
    @Order(6)
    void onS3EachFileIsCachedWhereItIsPlacedAndWarmQueriesSendNoRequest()
    {
        S3Storage s3 = TestingS3.shared();
        cluster.execute("CREATE SCHEMA hive_s3.affinity");
        cluster.execute("CREATE TABLE hive_s3.affinity.orders WITH (format = 'PARQUET', partitioned_by = ARRAY['orderpriority']) AS " +
                "SELECT orderkey, custkey, orderstatus, totalprice, orderdate, clerk, orderpriority FROM tpch.tiny.orders");
        Instant written = Instant.now();
        long files = ((Number) cluster.query("SELECT count(DISTINCT \"$path\") FROM hive_s3.affinity.orders").getFirst().getFirst()).longValue();
        assertThat(cluster.query("SELECT DISTINCT \"$path\" FROM hive_s3.affinity.orders"))
                .allSatisfy(row -> assertThat((String) row.getFirst()).startsWith("s3://" + TestingS3.BUCKET + "/"));
        // the caches keep an S3 object once it is cache.min-file-age old
        TestingS3.awaitCacheable(written);
        for (String sql : QUERIES) {
            List<List<Object>> expected = cluster.query(sql.formatted("hive_s3"));
            long requests = s3.getRequests();
            assertThat(ResultRows.same(cluster.query(sql.formatted("soft_s3")), expected)).as("cold: %s", sql).isTrue();
            long coldRequests = s3.getRequests() - requests;
            requests = s3.getRequests();
            long bytes = s3.getBytes();
            assertThat(ResultRows.same(cluster.query(sql.formatted("soft_s3")), expected)).as("warm: %s", sql).isTrue();
            assertThat(s3.getRequests() - requests).as("GETs of the warm run of %s (the cold run sent %s)", sql, coldRequests).isZero();
            assertThat(s3.getBytes() - bytes).as("bytes of the warm run of %s", sql).isZero();
        }
        // every file is cached by the worker its splits went to, and the workers together hold each file
        List<List<Object>> cached = cluster.query("SELECT node_id, cached_files FROM soft_s3.system.cached_tables WHERE schema_name = 'affinity' AND table_name = 'orders'");
        assertThat(cached).extracting(row -> (String) row.getFirst()).isSubsetOf(cluster.workers().stream().map(TrinoNode::name).toList());
        assertThat(cached.stream().mapToLong(row -> ((Number) row.getLast()).longValue()).sum()).as("files cached over the workers").isGreaterThanOrEqualTo(files);
    }

    /**
     * Peer reads: a split placed off its file's worker (the load bound moved it) reads the pages that worker caches from
     * it, checksums verified, instead of storage; the rows are stock {@code hive}'s.
     */
    @Test
    @Order(6)
    void splitsOffTheirFilesWorkerReadThatWorkersCache()
    {
        long hits = 0;
        long offPreferred = 0;
        for (int round = 0; round < 10 && (hits == 0 || offPreferred == 0); round++) {
            for (String sql : MANY_FILES_QUERIES) {
                assertThat(ResultRows.same(cluster.query(sql.formatted("peers")), cluster.query(sql.formatted("hive")))).as("peers: %s", sql).isTrue();
            }
            hits = cluster.sumOverWorkers(PEER_STATS, "Hits");
            offPreferred = JmxAttributes.sum(cluster.coordinator().jmxPort(), "io.overdrive.scheduler.affinity:type=PlacementStats,name=peers,*", "Alternative.TotalCount")
                    + JmxAttributes.sum(cluster.coordinator().jmxPort(), "io.overdrive.scheduler.affinity:type=PlacementStats,name=peers,*", "Fallback.TotalCount");
        }
        System.out.printf("[overdrive-it] %s: peer reads %s, hits %s (%s bytes), misses %s, timeouts %s; splits off their preferred worker %s%n",
                getClass().getSimpleName(), cluster.sumOverWorkers(PEER_STATS, "Reads"), hits, cluster.sumOverWorkers(PEER_STATS, "HitBytes"),
                cluster.sumOverWorkers(PEER_STATS, "Misses"), cluster.sumOverWorkers(PEER_STATS, "Timeouts"), offPreferred);
        assertThat(offPreferred).as("splits placed off their file's first worker").isPositive();
        assertThat(hits).as("peer reads answered from another worker's cache").isPositive();
        assertThat(cluster.sumOverWorkers(PEER_STATS, "ServedBytes")).isGreaterThanOrEqualTo(cluster.sumOverWorkers(PEER_STATS, "HitBytes"));
        // one secret on every node, one page size, intact pages
        assertThat(cluster.sumOverWorkers(PEER_STATS, "Unauthenticated")).isZero();
        assertThat(cluster.sumOverWorkers(PEER_STATS, "Refused")).isZero();
        assertThat(cluster.sumOverWorkers(PEER_STATS, "ChecksumFailures")).isZero();

        // the load signal: every worker answers the coordinator's polls from its real task executor's counts, and the
        // placer balances by those reports
        String placement = "io.overdrive.scheduler.affinity:type=PlacementStats,name=peers,*";
        long byReports = JmxAttributes.sum(cluster.coordinator().jmxPort(), placement, "PlacedByReportedLoads.TotalCount");
        long byAccount = JmxAttributes.sum(cluster.coordinator().jmxPort(), placement, "PlacedByPlacedLoads.TotalCount");
        long polls = JmxAttributes.sum(cluster.coordinator().jmxPort(), placement, "LoadPolls.TotalCount");
        long pollFailures = JmxAttributes.sum(cluster.coordinator().jmxPort(), placement, "LoadPollFailures.TotalCount");
        System.out.printf("[overdrive-it] %s: load polls %s (failed %s), worker answers %s (unknown %s); splits placed by reported loads %s, by the placed account %s%n",
                getClass().getSimpleName(), polls, pollFailures, cluster.sumOverWorkers(PEER_STATS, "LoadAnswers"), cluster.sumOverWorkers(PEER_STATS, "LoadUnknown"), byReports, byAccount);
        assertThat(cluster.sumOverWorkers(PEER_STATS, "LoadUnknown")).as("workers that could not read Trino's task executor").isZero();
        assertThat(cluster.sumOverWorkers(PEER_STATS, "LoadAnswers")).as("load answers").isPositive();
        assertThat(byReports).as("splits placed by the workers' reported loads").isPositive();
    }

    /**
     * Peer reads among faulty peers in one catalog: a peer whose catalog file has another secret, a peer that stalls, a
     * peer that dies while it answers. (Damaged bytes from a peer: {@code TestPeerReads}.) Every query returns stock {@code hive}'s rows; each
     * fault is counted where it happened; and no failed peer read took much longer than {@code cache.peer.read-timeout}
     * (the stalled peer answers after 30 s), so that a fault costs at most that plus the storage read it falls back to.
     */
    @Test
    @Order(7)
    void faultyPeersCostAStorageReadNeverARow()
    {
        String stats = "io.overdrive.cache.peer:type=PeerStats,name=peer_faults,*";
        TrinoNode otherSecret = cluster.worker("worker-1");
        TrinoNode stalling = cluster.worker("worker-2");
        TrinoNode dying = cluster.worker("worker-3");
        TrinoNode sound = cluster.worker("worker-4");
        try (SlowProxy stalled = SlowProxy.start("127.0.0.1", stalling.httpPort() + 3, stalling.httpPort() + 2);
                SlowProxy cutting = SlowProxy.start("127.0.0.1", dying.httpPort() + 3, dying.httpPort() + 2)) {
            stalled.setDelay(Duration.ofSeconds(30));
            cutting.setDamage(SlowProxy.Damage.CUT);
            // the sound worker asks each faulty one (the next worker of each of its own files' orders, as its cold reads
            // of them miss): refused by the other secret, timed out by the stall, cut mid-answer
            runUntil(() -> JmxAttributes.sum(sound.jmxPort(), stats, "Refused") > 0
                    && JmxAttributes.sum(sound.jmxPort(), stats, "Timeouts") > 0
                    && cutting.cutConnections() > 0
                    && JmxAttributes.sum(sound.jmxPort(), stats, "ConnectionFailures") + JmxAttributes.sum(sound.jmxPort(), stats, "ChecksumFailures") > 0);
            System.out.printf("[overdrive-it] %s: faulty peers: reads %s, hits %s, timeouts %s, connection failures %s (answers cut %s), checksum failures %s, refused %s, skipped while down %s; refused as unauthenticated %s%n",
                    getClass().getSimpleName(), cluster.sumOverWorkers(stats, "Reads"), cluster.sumOverWorkers(stats, "Hits"), cluster.sumOverWorkers(stats, "Timeouts"),
                    cluster.sumOverWorkers(stats, "ConnectionFailures"), cutting.cutConnections(), cluster.sumOverWorkers(stats, "ChecksumFailures"),
                    cluster.sumOverWorkers(stats, "Refused"), cluster.sumOverWorkers(stats, "SkippedPeerDown"), cluster.sumOverWorkers(stats, "Unauthenticated"));
        }
        // the node with the other secret refused the others' requests, and they refused its
        assertThat(JmxAttributes.sum(otherSecret.jmxPort(), stats, "Unauthenticated")).as("requests %s refused", otherSecret.name()).isPositive();
        assertThat(JmxAttributes.sum(otherSecret.jmxPort(), stats, "Refused")).as("requests of %s refused", otherSecret.name()).isPositive();
        assertThat(JmxAttributes.sum(otherSecret.jmxPort(), stats, "Hits")).as("hits of the node with another secret").isZero();
        assertThat(JmxAttributes.sum(otherSecret.jmxPort(), stats, "Served")).as("answers of the node with another secret").isZero();
        // a failed peer read waits for the read timeout (250ms) at most, give or take a busy machine's scheduling
        for (TrinoNode worker : cluster.workers()) {
            assertThat(JmxAttributes.value(worker.jmxPort(), stats, "FailureTime.AllTime.Max")).as("longest failed peer read on %s, ms", worker.name())
                    .isLessThan(5_000);
        }
    }

    // runs the queries on peer_faults, each compared with stock hive's rows, until the condition holds (10 rounds at most)
    private void runUntil(BooleanSupplier condition)
    {
        for (int round = 0; round < 10; round++) {
            for (String sql : MANY_FILES_QUERIES) {
                assertThat(ResultRows.same(cluster.query(sql.formatted("peer_faults")), cluster.query(sql.formatted("hive")))).as("peer_faults: %s", sql).isTrue();
            }
            if (condition.getAsBoolean()) {
                return;
            }
            // a failed peer is asked again after the catalog's cache.peer.retry-after
            sleepUninterruptibly(1100, MILLISECONDS);
        }
        String stats = "io.overdrive.cache.peer:type=PeerStats,name=peer_faults,*";
        StringBuilder counters = new StringBuilder();
        for (TrinoNode worker : cluster.workers()) {
            counters.append("\n  %s: %s".formatted(worker.name(), JmxAttributes.counters(worker.jmxPort(), stats)));
        }
        throw new AssertionError("the faults were not all met in 10 rounds of queries on peer_faults; peer counters:" + counters);
    }

    @Test
    @Order(8)
    void workerKilledMidQuerySucceedsUnderQueryRetry()
            throws Exception
    {
        // the whole query runs again: the retry asks the connector for splits anew, and placement sees the new workers
        KilledMidQuery run = killWorkerMidQuery(Map.of(
                "retry_policy", "QUERY",
                // Trino's default waits 10 s before the retry
                "retry_initial_delay", "1s"));
        assertThat(ResultRows.same(run.rows(), longQueryExpected())).as("rows under QUERY retry equal stock hive's: %s", run.rows()).isTrue();
        assertThat(run.retriedTasks()).as("tasks of a second attempt").isNotEmpty();

        long splitsPerScan = splitsPerScan();
        assertThat(total(run.placedAfter()) - total(run.placedBefore()))
                .as("splits placed: the first attempt's scan and at least one retry's (%s each)", splitsPerScan)
                .isGreaterThanOrEqualTo(2 * splitsPerScan);
    }

    @Test
    @Order(9)
    void workerKilledMidQuerySucceedsUnderTaskRetry()
            throws Exception
    {
        // only the lost tasks run again, with the splits the connector gave them; the engine puts them on live workers
        KilledMidQuery run = killWorkerMidQuery(Map.of(
                "retry_policy", "TASK",
                "retry_initial_delay", "1s",
                // Trino's default of 5GB per task exceeds these 400MB workers, so it would run one task per worker
                "fault_tolerant_execution_task_memory", "100MB"));
        assertThat(ResultRows.same(run.rows(), longQueryExpected())).as("rows under TASK retry equal stock hive's: %s", run.rows()).isTrue();
        assertThat(run.retriedTasks()).as("retried tasks").isNotEmpty();

        assertThat(total(run.placedAfter()) - total(run.placedBefore()))
                .as("splits placed: one scan, the connector is not asked again when tasks are retried")
                .isEqualTo(splitsPerScan());
    }

    @Test
    @Order(10)
    void stoppedWorkerFailsNoLaterQuery()
    {
        List<TrinoNode> live = liveWorkers();
        long nodesBefore = cluster.activeNodes();
        live.getLast().process().kill();
        // wait until the engine has noticed (until then, stock Trino fails queries that touch the dead node whatever
        // the connector does); from then on placement must route around it within its refresh interval
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline && activeNodesOrUnknown() != nodesBefore - 1) {
            sleepUninterruptibly(1000, MILLISECONDS);
        }
        assertThat(cluster.activeNodes()).isEqualTo(nodesBefore - 1);
        for (int round = 0; round < 3; round++) {
            for (String sql : QUERIES) {
                assertThat(ResultRows.same(cluster.query(sql.formatted("soft")), cluster.query(sql.formatted("hive")))).as(sql).isTrue();
            }
        }
    }

    /**
     * Runs {@link #LONG_QUERY} on {@code soft} with the session properties, kills (SIGKILL) a worker that runs some of
     * its splits, and waits for the result. Asserts what holds whatever the retry policy: the query had placed splits
     * on that worker, and once the coordinator had dropped it (and placement had re-read the workers), placement put
     * nothing more there.
     */
    private KilledMidQuery killWorkerMidQuery(Map<String, String> session)
            throws Exception
    {
        List<TrinoNode> live = liveWorkers();
        assertThat(live).as("live workers").hasSizeGreaterThanOrEqualTo(2);
        longQueryExpected();
        Map<String, Long> before = placedSplits();
        AtomicReference<String> queryId = new AtomicReference<>();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (Connection connection = cluster.connect(); Statement statement = connection.createStatement()) {
            for (Map.Entry<String, String> property : session.entrySet()) {
                statement.execute("SET SESSION %s = '%s'".formatted(property.getKey(), property.getValue()));
            }
            statement.unwrap(TrinoStatement.class).setProgressMonitor(stats -> queryId.compareAndSet(null, stats.getQueryId()));
            long start = System.nanoTime();
            Future<List<List<Object>>> result = executor.submit(() -> rows(statement, LONG_QUERY.formatted("soft")));

            TrinoNode victim = awaitWorkerRunningSplits(queryId, live, before, result);
            Map<String, Long> atKill = placedSplits();
            victim.process().kill();
            System.out.printf("[overdrive-it] %s: %s killed %.1fs into query %s (%s), splits placed so far %s%n",
                    getClass().getSimpleName(), victim.name(), seconds(start), queryId.get(), session, difference(atKill, before));

            awaitActiveWorkers(live.size() - 1);
            System.out.printf("[overdrive-it] %s: coordinator dropped %s %.1fs into the query%n", getClass().getSimpleName(), victim.name(), seconds(start));
            // placement re-reads the workers once per refresh interval
            sleepUninterruptibly(2 * MEMBERSHIP_REFRESH.toMillis(), MILLISECONDS);
            Map<String, Long> atDrop = placedSplits();

            List<List<Object>> rows = result.get(3, MINUTES);
            Map<String, Long> after = placedSplits();
            System.out.printf("[overdrive-it] %s: query %s succeeded in %.1fs; splits placed after the drop %s%n",
                    getClass().getSimpleName(), queryId.get(), seconds(start), difference(after, atDrop));

            assertThat(atKill.getOrDefault(victim.name(), 0L)).as("splits placed on %s before it was killed", victim.name())
                    .isGreaterThan(before.getOrDefault(victim.name(), 0L));
            assertThat(after.getOrDefault(victim.name(), 0L)).as("splits placed on %s after the coordinator dropped it", victim.name())
                    .isEqualTo(atDrop.getOrDefault(victim.name(), 0L));

            List<List<Object>> retried = cluster.query("SELECT task_id, node_id FROM system.runtime.tasks WHERE query_id = '%s'".formatted(queryId.get())).stream()
                    .filter(task -> attempt((String) task.getFirst()) > 0)
                    .toList();
            assertThat(retried).as("retried tasks of %s", queryId.get()).allSatisfy(task -> assertThat(task.get(1)).isNotEqualTo(victim.name()));
            return new KilledMidQuery(rows, retried, before, after);
        }
        finally {
            executor.shutdownNow();
        }
    }

    private record KilledMidQuery(List<List<Object>> rows, List<List<Object>> retriedTasks, Map<String, Long> placedBefore, Map<String, Long> placedAfter) {}

    // a live worker that runs splits of the query and got some of its splits from placement; the one with the most
    private TrinoNode awaitWorkerRunningSplits(AtomicReference<String> queryId, List<TrinoNode> live, Map<String, Long> before, Future<?> result)
    {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (result.isDone()) {
                throw new AssertionError("query %s ended before a worker could be killed: %s".formatted(queryId.get(), outcome(result)));
            }
            if (queryId.get() != null) {
                Set<Object> running = cluster.query("SELECT node_id FROM system.runtime.tasks WHERE query_id = '%s' AND state = 'RUNNING' AND running_splits > 0".formatted(queryId.get())).stream()
                        .map(List::getFirst)
                        .collect(toSet());
                Map<String, Long> placed = difference(placedSplits(), before);
                TrinoNode victim = live.stream()
                        .filter(worker -> running.contains(worker.name()) && placed.getOrDefault(worker.name(), 0L) > 0)
                        .max(Comparator.comparingLong(worker -> placed.get(worker.name())))
                        .orElse(null);
                if (victim != null) {
                    return victim;
                }
            }
            sleepUninterruptibly(200, MILLISECONDS);
        }
        throw new AssertionError("no worker ran splits of query %s within a minute".formatted(queryId.get()));
    }

    private static String outcome(Future<?> result)
    {
        try {
            return "rows " + result.get();
        }
        catch (Exception e) {
            return e.toString();
        }
    }

    // the coordinator's own count, over JMX: a query (system.runtime.nodes) could itself be scheduled on the dead worker
    private void awaitActiveWorkers(int count)
    {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (JmxAttributes.sum(cluster.coordinator().jmxPort(), NODE_MANAGER, "ActiveWorkerCount") != count) {
            assertThat(System.nanoTime()).as("coordinator sees %s active workers within a minute", count).isLessThan(deadline);
            sleepUninterruptibly(200, MILLISECONDS);
        }
    }

    private synchronized List<List<Object>> longQueryExpected()
    {
        if (longQueryExpected == null) {
            long start = System.nanoTime();
            longQueryExpected = cluster.query(LONG_QUERY.formatted("hive"));
            System.out.printf("[overdrive-it] %s: the long query on stock hive took %.1fs%n", getClass().getSimpleName(), seconds(start));
        }
        return longQueryExpected;
    }

    // Hive makes one split per file here (every file is far below the split size)
    private long splitsPerScan()
    {
        return ((Number) cluster.query("SELECT count(DISTINCT \"$path\") FROM hive.affinity.orders").getFirst().getFirst()).longValue();
    }

    private Map<String, Long> placedSplits()
    {
        String splitsPerNode = JmxAttributes.text(cluster.coordinator().jmxPort(), PLACEMENT_STATS, "SplitsPerNode");
        if (splitsPerNode.isBlank()) {
            return Map.of();
        }
        // "worker-1=12, worker-2=7"
        return Arrays.stream(splitsPerNode.split(", "))
                .map(entry -> entry.split("="))
                .collect(toMap(entry -> entry[0], entry -> Long.parseLong(entry[1])));
    }

    private static Map<String, Long> difference(Map<String, Long> later, Map<String, Long> earlier)
    {
        Map<String, Long> difference = new LinkedHashMap<>();
        later.forEach((node, count) -> difference.put(node, count - earlier.getOrDefault(node, 0L)));
        return difference;
    }

    private static long total(Map<String, Long> splits)
    {
        return splits.values().stream().mapToLong(Long::longValue).sum();
    }

    // task ids are <query>.<stage>.<partition>.<attempt>
    private static int attempt(String taskId)
    {
        return Integer.parseInt(taskId.substring(taskId.lastIndexOf('.') + 1));
    }

    private static List<List<Object>> rows(Statement statement, String sql)
            throws SQLException
    {
        try (ResultSet resultSet = statement.executeQuery(sql)) {
            return TrinoProcessCluster.rows(resultSet);
        }
    }

    private static double seconds(long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private List<TrinoNode> liveWorkers()
    {
        return cluster.workers().stream().filter(worker -> worker.process().isAlive()).toList();
    }

    private long activeNodesOrUnknown()
    {
        try {
            return cluster.activeNodes();
        }
        catch (RuntimeException e) {
            return -1;
        }
    }

    // file id -> on how many workers some page of it is cached, from the page files on disk
    private Map<String, Integer> copiesPerFile(String directory, String catalog)
            throws IOException
    {
        Map<String, Integer> copies = new HashMap<>();
        for (TrinoNode worker : cluster.workers()) {
            // <cache.base-directory>/<catalog>/LOCAL/<page size>/<bucket>/<file id>/<page>
            Path local = worker.home().resolve(directory).resolve(catalog).resolve("LOCAL");
            if (!Files.isDirectory(local)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(local)) {
                files.filter(Files::isRegularFile)
                        .map(page -> page.getParent().getFileName().toString())
                        .distinct()
                        .forEach(fileId -> copies.merge(fileId, 1, Integer::sum));
            }
        }
        return copies;
    }
}
