package io.overdrive.it;

import com.google.inject.Key;
import io.overdrive.cache.connector.OverdriveConnector;
import io.overdrive.cache.coordinator.CoordinatorCacheStats;
import io.trino.connector.CatalogHandle;
import io.trino.connector.ConnectorServicesProvider;
import io.trino.metadata.CatalogManager;
import io.trino.plugin.hive.HiveConnector;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.catalog.CatalogName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.trino.tpch.TpchTable.NATION;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator's memory tier on real HDFS: a coordinator that runs no splits and one worker, the {@code overdrive}
 * catalog and the stock {@code hive} catalog over one file metastore on HDFS. A repeated query plans from memory (no
 * HDFS block read at all once the worker's pages are cached too), and every change to a table's metadata is seen at
 * once, whether it is made through the same catalog (which drops the entries) or through the other one, behind the
 * tier's back (the cache key changes with the file).
 */
public class TestCoordinatorCacheOnHdfs
        extends AbstractTestQueryFramework
{
    private static final String CATALOG = OverdriveQueryRunner.OVERDRIVE_CATALOG;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        Path cacheDirectory = Files.createDirectories(TestingHdfs.workDirectory().resolve("coordinator-cache-on-hdfs-" + System.nanoTime()));
        return OverdriveQueryRunner.builder(TestingHdfs.shared(), "coordinator-cache")
                .workers(1)
                .overdriveProperty("cache.enabled", "true")
                .overdriveProperty("cache.base-directory", cacheDirectory.toString())
                .overdriveProperty("cache.max-size", "1GB")
                .initialTables(List.of(NATION))
                .build();
    }

    @Test
    void repeatedQueryPlansFromMemory()
    {
        String sql = "SELECT regionkey, count(*), max(name) FROM nation GROUP BY regionkey";
        computeActual(sql);
        computeActual(sql);

        CoordinatorCacheStats stats = coordinatorStats();
        long hits = stats.getHits();
        long misses = stats.getMisses();
        long blockReads = TestingHdfs.shared().readRequests();
        assertThat(query(sql)).matches("SELECT regionkey, count(*), max(name) FROM hive.tpch.nation GROUP BY regionkey");
        assertThat(stats.getHits()).as("the table's metadata files, from memory").isGreaterThan(hits);
        assertThat(stats.getMisses()).isEqualTo(misses);
        // the stock catalog's own query reads its metadata from HDFS; the overdrive query itself read none
        long afterBoth = TestingHdfs.shared().readRequests();
        computeActual(sql);
        assertThat(TestingHdfs.shared().readRequests()).as("HDFS block reads of a warm query: none, planning included").isEqualTo(afterBoth);
        assertThat(afterBoth).isGreaterThan(blockReads);
    }

    @Test
    void metadataChangesThroughTheCatalogAreSeenAtOnce()
    {
        assertUpdate("CREATE TABLE changes_here AS SELECT 1 AS x", 1);
        assertQuery("SELECT count(*), sum(x) FROM changes_here", "VALUES (1, 1)");
        assertQuery("SELECT count(*), sum(x) FROM changes_here", "VALUES (1, 1)");

        assertUpdate("INSERT INTO changes_here VALUES 2", 1);
        assertQuery("SELECT count(*), sum(x) FROM changes_here", "VALUES (2, 3)");
        assertUpdate("ALTER TABLE changes_here ADD COLUMN y varchar");
        assertUpdate("INSERT INTO changes_here VALUES (3, 'three')", 1);
        assertQuery("SELECT x, y FROM changes_here ORDER BY x", "VALUES (1, NULL), (2, NULL), (3, 'three')");
        assertUpdate("COMMENT ON TABLE changes_here IS 'same catalog'");
        assertQuery("SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'overdrive' AND schema_name = 'tpch' AND table_name = 'changes_here'", "VALUES 'same catalog'");

        assertUpdate("DROP TABLE changes_here");
        assertThat(query("SELECT * FROM changes_here")).failure().hasMessageContaining("Table 'overdrive.tpch.changes_here' does not exist");
        assertUpdate("CREATE TABLE changes_here AS SELECT 'again' AS z", 1);
        assertQuery("SELECT z FROM changes_here", "VALUES 'again'");
        assertThat(coordinatorStats().getExpirations()).as("the catalog's writes dropped the entries they replaced").isPositive();
        assertUpdate("DROP TABLE changes_here");
    }

    @Test
    void metadataChangesThroughAnotherCatalogAreSeenAtOnce()
    {
        // the stock hive catalog writes the same file metastore: the overdrive catalog's tier is not told, the key
        // (path, modification time, length) of the changed file is what keeps its old content from being served
        computeActual("CREATE TABLE hive.tpch.changes_elsewhere AS SELECT 1 AS x");
        assertQuery("SELECT count(*), sum(x) FROM changes_elsewhere", "VALUES (1, 1)");
        assertQuery("SELECT count(*), sum(x) FROM changes_elsewhere", "VALUES (1, 1)");
        long hits = coordinatorStats().getHits();

        computeActual("INSERT INTO hive.tpch.changes_elsewhere VALUES 2");
        assertQuery("SELECT count(*), sum(x) FROM changes_elsewhere", "VALUES (2, 3)");
        computeActual("ALTER TABLE hive.tpch.changes_elsewhere ADD COLUMN y varchar");
        computeActual("INSERT INTO hive.tpch.changes_elsewhere VALUES (3, 'three')");
        assertQuery("SELECT x, y FROM changes_elsewhere ORDER BY x", "VALUES (1, NULL), (2, NULL), (3, 'three')");
        computeActual("ALTER TABLE hive.tpch.changes_elsewhere RENAME COLUMN y TO w");
        assertQuery("SELECT x, w FROM changes_elsewhere ORDER BY x", "VALUES (1, NULL), (2, NULL), (3, 'three')");

        computeActual("DROP TABLE hive.tpch.changes_elsewhere");
        assertThat(query("SELECT * FROM changes_elsewhere")).failure().hasMessageContaining("Table 'overdrive.tpch.changes_elsewhere' does not exist");
        computeActual("CREATE TABLE hive.tpch.changes_elsewhere AS SELECT 'again' AS z");
        assertQuery("SELECT * FROM changes_elsewhere", "VALUES 'again'");

        computeActual("CREATE SCHEMA hive.elsewhere");
        computeActual("CREATE TABLE hive.elsewhere.t AS SELECT 7 AS v");
        assertQuery("SELECT v FROM elsewhere.t", "VALUES 7");
        computeActual("DROP TABLE hive.elsewhere.t");
        computeActual("DROP SCHEMA hive.elsewhere");
        assertThat(query("SHOW TABLES FROM elsewhere")).failure().hasMessageContaining("Schema 'elsewhere' does not exist");
        assertThat(coordinatorStats().getHits()).as("the tier served the unchanged files in between").isGreaterThan(hits);
        computeActual("DROP TABLE hive.tpch.changes_elsewhere");
    }

    // the coordinator's instance: only a coordinator that runs no splits has one
    private CoordinatorCacheStats coordinatorStats()
    {
        DistributedQueryRunner runner = getDistributedQueryRunner();
        TestingTrinoServer coordinator = runner.getCoordinator();
        CatalogHandle handle = coordinator.getInstance(Key.get(CatalogManager.class)).getCatalog(new CatalogName(CATALOG)).orElseThrow().getCatalogHandle();
        OverdriveConnector connector = (OverdriveConnector) coordinator.getInstance(Key.get(ConnectorServicesProvider.class)).getConnectorServices(handle).getConnector();
        return ((HiveConnector) connector.hive()).getInjector().getInstance(CoordinatorCacheStats.class);
    }
}
