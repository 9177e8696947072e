package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.OpenMetrics;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.management.ObjectName;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A drop-in install, proven: a coordinator and two workers in separate JVMs assembled from trino-main, each loading
 * the stock plugins and Overdrive's packaged plugin zips from its {@code plugin/} folder, over real HDFS.
 */
@TestInstance(PER_CLASS)
class TestMultiProcessCluster
{
    private static final String METRICS_OBJECT_NAMES = "io.overdrive.*:*";

    private TrinoProcessCluster cluster;
    private HdfsCluster hdfs;

    @BeforeAll
    void startCluster()
    {
        hdfs = TestingHdfs.shared();
        Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/multi-process/metastore");
        long start = System.nanoTime();
        int coordinatorPort = TrinoProcessCluster.freePort();
        cluster = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("multi-process"))
                .workers(2)
                .heapSize("1g")
                .coordinatorPort(coordinatorPort)
                .catalog("overdrive", "overdrive_hive", HiveCatalogs.withEveryFeature(hive, "100ms"))
                .catalog("hive", "hive", hive)
                .catalog("tpch", "tpch", Map.of())
                // two shards, both this cluster's own tpch catalog: enough for the shards connector's MBeans to exist
                .catalog("shards", "overdrive_shards", Map.of("shards.uris", "http://127.0.0.1:%1$s/tpch/tiny,http://127.0.0.1:%1$s/tpch/tiny".formatted(coordinatorPort)))
                // what docs/operations.md tells operators to set on every node, so that /metrics serves Overdrive's MBeans
                .coordinatorProperty("metrics.jmx-object-names", METRICS_OBJECT_NAMES)
                .workerProperty("metrics.jmx-object-names", METRICS_OBJECT_NAMES)
                .start();
        System.out.printf("[overdrive-it] multi-process Trino (coordinator + 2 workers) up in %.1fs%n", (System.nanoTime() - start) / 1e9);
    }

    @AfterAll
    void stopCluster()
    {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void clusterHasCoordinatorAndTwoWorkers()
    {
        assertThat(cluster.query("SELECT node_id, coordinator FROM system.runtime.nodes WHERE state = 'active' ORDER BY node_id"))
                .containsExactly(List.of("coordinator", true), List.of("worker-1", false), List.of("worker-2", false));
        assertThat(cluster.query("SELECT catalog_name, connector_name FROM system.metadata.catalogs WHERE catalog_name IN ('overdrive', 'hive') ORDER BY 1"))
                .containsExactly(List.of("hive", "hive"), List.of("overdrive", "overdrive_hive"));
    }

    @Test
    void tableWrittenThroughOverdriveReadsBackThroughBothCatalogs()
    {
        // the file metastore puts the schema's directory under hive.metastore.catalog.dir on HDFS
        cluster.execute("CREATE SCHEMA overdrive.smoke");
        for (String format : List.of("PARQUET", "ORC")) {
            String table = "orders_" + format.toLowerCase();
            assertThat(cluster.execute("CREATE TABLE overdrive.smoke.%s WITH (format = '%s') AS SELECT * FROM tpch.tiny.orders".formatted(table, format))).isEqualTo(15000);

            String columns = "orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment";
            List<List<Object>> expected = cluster.query("SELECT %s FROM tpch.tiny.orders ORDER BY orderkey".formatted(columns));
            assertThat(cluster.query("SELECT %s FROM overdrive.smoke.%s ORDER BY orderkey".formatted(columns, table))).isEqualTo(expected);
            assertThat(cluster.query("SELECT %s FROM hive.smoke.%s ORDER BY orderkey".formatted(columns, table))).isEqualTo(expected);
            assertThat((String) cluster.query("SELECT \"$path\" FROM overdrive.smoke.%s LIMIT 1".formatted(table)).getFirst().getFirst()).startsWith(hdfs.nameNodeUri().toString());
        }
        // the split work really ran on both worker JVMs
        assertThat(cluster.query("SELECT count(DISTINCT node_id) FROM system.runtime.tasks WHERE node_id LIKE 'worker-%'").getFirst().getFirst()).isEqualTo(2L);
    }

    @Test
    void everyOverdriveMBeanIsScrapedAtMetrics()
    {
        // a query through each catalog, so that the catalogs' MBeans exist on every node they run on
        assertThat(cluster.query("SELECT count(*) FROM shards.tiny.nation")).containsExactly(List.of(50L));
        cluster.execute("CREATE SCHEMA IF NOT EXISTS overdrive.metrics");
        cluster.execute("CREATE TABLE IF NOT EXISTS overdrive.metrics.region AS SELECT * FROM tpch.tiny.region");
        assertThat(cluster.query("SELECT count(*) FROM overdrive.metrics.region")).containsExactly(List.of(5L));

        Set<String> types = new TreeSet<>();
        for (TrinoProcessCluster.TrinoNode node : cluster.nodes()) {
            Map<ObjectName, Set<String>> mbeans = JmxAttributes.numericAttributes(node.jmxPort(), METRICS_OBJECT_NAMES);
            Set<String> scraped = OpenMetrics.scrape(node.httpUri()).stream().map(OpenMetrics.Sample::name).collect(toSet());
            Set<String> expected = new HashSet<>();
            mbeans.forEach((mbean, attributes) -> {
                types.add(mbean.getDomain() + ":type=" + mbean.getKeyProperty("type"));
                for (String attribute : attributes) {
                    // one metric per MBean attribute: two MBeans whose metric names collide would lose one of them
                    assertThat(expected.add(OpenMetrics.metricName(mbean, attribute)))
                            .as("%s on %s has the metric name of another MBean's attribute", mbean, node.name())
                            .isTrue();
                }
            });
            assertThat(scraped).as("/metrics of %s", node.name()).containsAll(expected);
        }
        assertThat(types).containsExactlyInAnyOrder(
                "io.overdrive.cache.page:type=PageCacheStats",
                // on the coordinator, which runs no splits here: its memory tier for the metadata it reads
                "io.overdrive.cache.coordinator:type=CoordinatorCacheStats",
                "io.overdrive.cache.hedge:type=HedgedReadStats",
                "io.overdrive.cache.scan:type=SharedScanStats",
                "io.overdrive.scheduler.affinity:type=PlacementStats",
                "io.overdrive.merge.shards:type=ShardsStats",
                "io.overdrive.merge.shards:type=ShardStats",
                "io.overdrive.merge.shards:type=MergeStats");

        // the names docs/metrics.md gives as examples, spelled out
        List<OpenMetrics.Sample> worker = OpenMetrics.scrape(cluster.workers().getFirst().httpUri());
        assertThat(OpenMetrics.value(worker, "JMX_io_overdrive_cache_page_NAME_overdrive_TYPE_PageCacheStats_ATTRIBUTE_Hits")).isPresent();
        assertThat(OpenMetrics.value(worker, "JMX_io_overdrive_merge_shards_NAME_shards_shard_1_TYPE_ShardStats_ATTRIBUTE_Queries")).isPresent();
        List<OpenMetrics.Sample> coordinator = OpenMetrics.scrape(cluster.coordinator().httpUri());
        assertThat(OpenMetrics.value(coordinator, "JMX_io_overdrive_scheduler_affinity_NAME_overdrive_TYPE_PlacementStats_ATTRIBUTE_Preferred_TotalCount"))
                .hasValueSatisfying(splits -> assertThat(splits).isPositive());
        // the coordinator runs no splits: it plans a repeated query from its memory tier's copy of the table's metadata
        assertThat(cluster.query("SELECT count(*) FROM overdrive.metrics.region")).containsExactly(List.of(5L));
        coordinator = OpenMetrics.scrape(cluster.coordinator().httpUri());
        assertThat(OpenMetrics.value(coordinator, "JMX_io_overdrive_cache_coordinator_NAME_overdrive_TYPE_CoordinatorCacheStats_ATTRIBUTE_Hits"))
                .hasValueSatisfying(hits -> assertThat(hits).isPositive());
    }
}
