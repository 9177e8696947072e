package io.overdrive.it;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Key;
import io.overdrive.cache.connector.OverdriveConnector;
import io.overdrive.cache.coordinator.CoordinatorCacheStats;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.S3Storage;
import io.trino.connector.CatalogHandle;
import io.trino.connector.ConnectorServicesProvider;
import io.trino.metadata.CatalogManager;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.catalog.CatalogName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.trino.tpch.TpchTable.NATION;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator's memory tier on real HDFS: a coordinator that runs no splits and one worker, the {@code overdrive}
 * catalog and the stock {@code hive} catalog over one file metastore on HDFS. A repeated query plans from memory (no
 * HDFS block read at all once the worker's pages are cached too), and every change to a table's metadata is seen at
 * once, whether it is made through the same catalog (which drops the entries) or through the other one, behind the
 * tier's back (the cache key changes with the file). The same on S3, with a catalog pair whose file metastore and
 * tables live in a bucket of a real S3 server, and with table filters: an excluded table is never cached.
 */
public class TestCoordinatorCacheOnHdfs
        extends AbstractTestQueryFramework
{
    private static final String CATALOG = OverdriveQueryRunner.OVERDRIVE_CATALOG;
    // stock hive and overdrive_hive (the cache, its coordinator tier, a table filter) over S3
    private static final String S3_HIVE = "hive_s3";
    private static final String S3_CATALOG = "overdrive_s3";
    private static final String S3_SCHEMA = "tier_on_s3";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        Path cacheDirectory = Files.createDirectories(TestingHdfs.workDirectory().resolve("coordinator-cache-on-hdfs-" + System.nanoTime()));
        S3Storage s3 = TestingS3.shared();
        Map<String, String> s3Catalog = HiveCatalogs.hiveOnS3(s3, "/coordinator-cache-" + System.nanoTime() + "/metastore");
        QueryRunner queryRunner = OverdriveQueryRunner.builder(TestingHdfs.shared(), "coordinator-cache")
                .workers(1)
                .overdriveProperty("cache.enabled", "true")
                .overdriveProperty("cache.base-directory", cacheDirectory.toString())
                .overdriveProperty("cache.max-size", "1GB")
                .extraCatalog(S3_HIVE, "hive", s3Catalog)
                .extraCatalog(S3_CATALOG, "overdrive_hive", ImmutableMap.<String, String>builder()
                        .putAll(s3Catalog)
                        .put("cache.enabled", "true")
                        .put("cache.base-directory", cacheDirectory.toString())
                        .put("cache.max-size", "1GB")
                        .put("cache.exclude-tables", "*.uncached_*")
                        .buildOrThrow())
                .initialTables(List.of(NATION))
                .build();
        queryRunner.execute("CREATE SCHEMA %s.%s".formatted(S3_HIVE, S3_SCHEMA));
        return queryRunner;
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

    @Test
    void s3TablesPlanFromMemoryAndExcludedTablesAreNeverCached()
    {
        S3Storage s3 = TestingS3.shared();
        for (String table : List.of("cached_orders", "uncached_orders")) {
            computeActual("CREATE TABLE %s.%s.%s WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.orders".formatted(S3_HIVE, S3_SCHEMA, table));
        }
        // the tier keeps an S3 object once it is cache.min-file-age old
        TestingS3.awaitCacheable(Instant.now());
        String sql = "SELECT orderpriority, count(*), sum(totalprice), max(clerk) FROM %s.%s.%s GROUP BY 1 ORDER BY 1";
        for (String table : List.of("cached_orders", "uncached_orders")) {
            List<?> expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA, table)).getMaterializedRows();
            assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, table)).getMaterializedRows()).as("%s, cold", table).isEqualTo(expected);
            assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, table)).getMaterializedRows()).as("%s, second", table).isEqualTo(expected);
        }
        CoordinatorCacheStats stats = coordinatorStats(S3_CATALOG);
        long hits = stats.getHits();
        long gets = s3.getRequests();
        computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, "cached_orders"));
        assertThat(s3.getRequests()).as("GETs of a warm query of a cached table: none, planning included").isEqualTo(gets);
        assertThat(stats.getHits()).as("the table's metadata files, from the coordinator's memory").isGreaterThan(hits);

        // cache.exclude-tables: the excluded table's data is read from S3 every time, its pages never cached
        gets = s3.getRequests();
        computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, "uncached_orders"));
        assertThat(s3.getRequests()).as("GETs of a warm query of an excluded table").isGreaterThan(gets);
        assertThat(computeActual("SELECT table_name FROM %s.system.cached_tables WHERE schema_name = '%s'".formatted(S3_CATALOG, S3_SCHEMA)).getOnlyColumnAsSet())
                .containsExactly("cached_orders");

        // a change behind the tier's back, through stock hive on the same bucket, is seen at once
        computeActual("INSERT INTO %s.%s.cached_orders SELECT * FROM tpch.tiny.orders WHERE orderkey < 100".formatted(S3_HIVE, S3_SCHEMA));
        assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, "cached_orders")).getMaterializedRows())
                .isEqualTo(computeActual(sql.formatted(S3_HIVE, S3_SCHEMA, "cached_orders")).getMaterializedRows());
        for (String table : List.of("cached_orders", "uncached_orders")) {
            computeActual("DROP TABLE %s.%s.%s".formatted(S3_HIVE, S3_SCHEMA, table));
        }
    }

    private CoordinatorCacheStats coordinatorStats()
    {
        return coordinatorStats(CATALOG);
    }

    // the coordinator's instance: only a coordinator that runs no splits has one
    private CoordinatorCacheStats coordinatorStats(String catalog)
    {
        DistributedQueryRunner runner = getDistributedQueryRunner();
        TestingTrinoServer coordinator = runner.getCoordinator();
        CatalogHandle handle = coordinator.getInstance(Key.get(CatalogManager.class)).getCatalog(new CatalogName(catalog)).orElseThrow().getCatalogHandle();
        OverdriveConnector connector = (OverdriveConnector) coordinator.getInstance(Key.get(ConnectorServicesProvider.class)).getConnectorServices(handle).getConnector();
        return connector.injector().getInstance(CoordinatorCacheStats.class);
    }
}
