package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.OpenMetrics;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.S3Storage;
import io.overdrive.it.harness.TrinoProcessCluster;
import io.overdrive.it.harness.TrinoProcessCluster.TrinoNode;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ClusterScenarios} on a coordinator and two workers as local processes, over the tests' shared HDFS and S3
 * server. First, on the same cluster, a drop-in install, proven: the three JVMs, assembled from trino-main, each load
 * the stock plugins and Overdrive's packaged plugin zips from its {@code plugin/} folder; a table written through
 * {@code overdrive_hive} on HDFS reads back through both catalogs; every Overdrive MBean is served at {@code /metrics}.
 */
class TestClusterScenariosOnProcesses
        extends ClusterScenarios
{
    private static final String METRICS_OBJECT_NAMES = "io.overdrive.*:*";

    private HdfsCluster hdfs;
    private TrinoProcessCluster trino;

    @Override
    protected ScenarioCluster startCluster(Function<Storage, Map<String, Map<String, String>>> catalogs)
    {
        hdfs = TestingHdfs.shared();
        int coordinatorPort = TrinoProcessCluster.freePort();
        TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("scenarios"))
                .workers(2)
                .heapSize("1g")
                .coordinatorPort(coordinatorPort)
                // what the container image's entrypoint sets on every node, and docs/operations.md tells operators to
                // set, so that /metrics serves Overdrive's MBeans
                .coordinatorProperty("metrics.jmx-object-names", METRICS_OBJECT_NAMES)
                .workerProperty("metrics.jmx-object-names", METRICS_OBJECT_NAMES)
                // two shards, both this cluster's own tpch catalog: enough for the shards connector's MBeans to exist
                .catalog("shards", "overdrive_shards", Map.of("shards.uris", "http://127.0.0.1:%1$s/tpch/tiny,http://127.0.0.1:%1$s/tpch/tiny".formatted(coordinatorPort)));
        COORDINATOR_PROPERTIES.forEach(builder::coordinatorProperty);
        S3Storage s3 = TestingS3.shared();
        if (!s3.bucket().equals(S3_BUCKET)) {
            throw new IllegalStateException("the scenarios' tables are in the bucket %s, the shared S3 server's is %s".formatted(S3_BUCKET, s3.bucket()));
        }
        for (Map.Entry<String, Map<String, String>> catalog : catalogs.apply(new Storage(hdfs.nameNodeUri(), s3.catalogProperties())).entrySet()) {
            builder.catalog(catalog.getKey(), catalog.getValue().get("connector.name"), catalog.getValue());
        }
        trino = builder.start();
        return new ScenarioCluster()
        {
            @Override
            public Connection connect()
                    throws SQLException
            {
                return trino.connect();
            }

            @Override
            public URI coordinator()
            {
                return trino.coordinator().httpUri();
            }

            @Override
            public List<URI> workers()
            {
                return trino.workers().stream().map(TrinoNode::httpUri).toList();
            }

            @Override
            public void killWorker(int index)
            {
                trino.workers().get(index).process().kill();
            }

            @Override
            public void restartWorkers()
            {
                trino.restartWorkers(worker -> {});
            }

            @Override
            public void close()
            {
                trino.close();
            }
        };
    }

    @Test
    @Order(-3)
    void clusterHasCoordinatorAndTwoWorkers()
    {
        assertThat(trino.query("SELECT node_id, coordinator FROM system.runtime.nodes WHERE state = 'active' ORDER BY node_id"))
                .containsExactly(List.of("coordinator", true), List.of("worker-1", false), List.of("worker-2", false));
        assertThat(trino.query("SELECT catalog_name, connector_name FROM system.metadata.catalogs WHERE catalog_name IN ('overdrive', 'hive') ORDER BY 1"))
                .containsExactly(List.of("hive", "hive"), List.of("overdrive", "overdrive_hive"));
    }

    @Test
    @Order(-2)
    void tableWrittenThroughOverdriveReadsBackThroughBothCatalogs()
    {
        // the file metastore puts the schema's directory under hive.metastore.catalog.dir on HDFS
        trino.execute("CREATE SCHEMA overdrive.smoke");
        for (String format : List.of("PARQUET", "ORC")) {
            String table = "orders_" + format.toLowerCase();
            assertThat(trino.execute("CREATE TABLE overdrive.smoke.%s WITH (format = '%s') AS SELECT * FROM tpch.tiny.orders".formatted(table, format))).isEqualTo(15000);

            String columns = "orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment";
            List<List<Object>> expected = trino.query("SELECT %s FROM tpch.tiny.orders ORDER BY orderkey".formatted(columns));
            assertThat(trino.query("SELECT %s FROM overdrive.smoke.%s ORDER BY orderkey".formatted(columns, table))).isEqualTo(expected);
            assertThat(trino.query("SELECT %s FROM hive.smoke.%s ORDER BY orderkey".formatted(columns, table))).isEqualTo(expected);
            assertThat((String) trino.query("SELECT \"$path\" FROM overdrive.smoke.%s LIMIT 1".formatted(table)).getFirst().getFirst()).startsWith(hdfs.nameNodeUri().toString());
        }
        // the split work really ran on both worker JVMs
        assertThat(trino.query("SELECT count(DISTINCT node_id) FROM system.runtime.tasks WHERE node_id LIKE 'worker-%'").getFirst().getFirst()).isEqualTo(2L);
    }

    @Test
    @Order(-1)
    void everyOverdriveMBeanIsScrapedAtMetrics()
    {
        // a query through each catalog, so that the catalogs' MBeans exist on every node they run on
        assertThat(trino.query("SELECT count(*) FROM shards.tiny.nation")).containsExactly(List.of(50L));
        trino.execute("CREATE SCHEMA IF NOT EXISTS overdrive.metrics");
        trino.execute("CREATE TABLE IF NOT EXISTS overdrive.metrics.region AS SELECT * FROM tpch.tiny.region");
        assertThat(trino.query("SELECT count(*) FROM overdrive.metrics.region")).containsExactly(List.of(5L));

        Set<String> types = new TreeSet<>();
        for (TrinoNode node : trino.nodes()) {
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
        List<OpenMetrics.Sample> worker = OpenMetrics.scrape(trino.workers().getFirst().httpUri());
        assertThat(OpenMetrics.value(worker, "JMX_io_overdrive_cache_page_NAME_overdrive_TYPE_PageCacheStats_ATTRIBUTE_Hits")).isPresent();
        assertThat(OpenMetrics.value(worker, "JMX_io_overdrive_merge_shards_NAME_shards_shard_1_TYPE_ShardStats_ATTRIBUTE_Queries")).isPresent();
        List<OpenMetrics.Sample> coordinator = OpenMetrics.scrape(trino.coordinator().httpUri());
        assertThat(OpenMetrics.value(coordinator, "JMX_io_overdrive_scheduler_affinity_NAME_overdrive_TYPE_PlacementStats_ATTRIBUTE_Preferred_TotalCount"))
                .hasValueSatisfying(splits -> assertThat(splits).isPositive());
        // the coordinator runs no splits: it plans a repeated query from its memory tier's copy of the table's metadata
        assertThat(trino.query("SELECT count(*) FROM overdrive.metrics.region")).containsExactly(List.of(5L));
        coordinator = OpenMetrics.scrape(trino.coordinator().httpUri());
        assertThat(OpenMetrics.value(coordinator, "JMX_io_overdrive_cache_coordinator_NAME_overdrive_TYPE_CoordinatorCacheStats_ATTRIBUTE_Hits"))
                .hasValueSatisfying(hits -> assertThat(hits).isPositive());
    }
}
