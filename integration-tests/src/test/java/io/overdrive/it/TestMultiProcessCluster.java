package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A drop-in install, proven: a coordinator and two workers in separate JVMs assembled from trino-main, each loading
 * the stock plugins and Overdrive's packaged plugin zips from its {@code plugin/} folder, over real HDFS.
 */
@TestInstance(PER_CLASS)
class TestMultiProcessCluster
{
    private TrinoProcessCluster cluster;
    private HdfsCluster hdfs;

    @BeforeAll
    void startCluster()
    {
        hdfs = TestingHdfs.shared();
        Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/multi-process/metastore");
        long start = System.nanoTime();
        cluster = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("multi-process"))
                .workers(2)
                .heapSize("1g")
                .catalog("overdrive", "overdrive_hive", hive)
                .catalog("hive", "hive", hive)
                .catalog("tpch", "tpch", Map.of())
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
}
