package io.overdrive.it;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Injector;
import com.google.inject.Key;
import io.overdrive.cache.connector.OverdriveConnector;
import io.overdrive.cache.coordinator.CoordinatorCacheStats;
import io.overdrive.it.harness.HedgeBudget;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.S3Storage;
import io.trino.Session;
import io.trino.connector.CatalogHandle;
import io.trino.connector.ConnectorServicesProvider;
import io.trino.metadata.CatalogManager;
import io.trino.plugin.iceberg.IcebergConnector;
import io.trino.plugin.iceberg.catalog.TrinoCatalog;
import io.trino.plugin.iceberg.catalog.TrinoCatalogFactory;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.security.ConnectorIdentity;
import io.trino.spi.security.Identity;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorSession;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import static io.trino.testing.TestingAccessControlManager.TestingPrivilegeType.SELECT_COLUMN;
import static io.trino.testing.TestingAccessControlManager.privilege;
import static io.trino.tpch.TpchTable.CUSTOMER;
import static io.trino.tpch.TpchTable.NATION;
import static io.trino.tpch.TpchTable.ORDERS;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Locale.ENGLISH;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Overdrive's page cache on real HDFS, one worker: the same results as the stock {@code hive} catalog over the same
 * files, and a repeated query reads at least 90% of its bytes from the cache (read from the cache's MBean); flushing
 * from SQL, under Trino's file-based access control; a second {@code overdrive_hive} catalog with
 * {@code cache.include-tables} and {@code cache.exclude-tables} caches only the tables they let in; bytes damaged in the
 * cache's page files are never served. The same runner has a stock {@code hive} and an {@code overdrive_hive} catalog
 * over a real S3 server (s3proxy) with Trino's native S3 file system, whose tables and file metastore live in a
 * bucket. Iceberg tables: {@code overdrive_iceberg} against stock {@code iceberg} over one Iceberg file metastore on HDFS
 * (and one on S3), through every kind of change Iceberg makes, cold and warm.
 */
public class TestPageCacheOnHdfs
        extends AbstractTestQueryFramework
{
    private static final String CATALOG = OverdriveQueryRunner.OVERDRIVE_CATALOG;
    // caches tpch's tables but orders (its own cache and MBean; no other test reads through it)
    private static final String FILTERED = "filtered";
    // may read everything and flush tables and schemas, but not everything (denied by the rules file below)
    private static final String NO_FLUSH_ALL_USER = "no_flush_all";
    // Trino's file-based system access control: every user may do everything, except that the right to flush
    // everything (the procedure <catalog>.system.flush_cache) is denied to one user. Without a "functions" rule only
    // system.builtin functions could be called, flush_cache included
    private static final String ACCESS_CONTROL_RULES = """
            {
              "functions": [{"privileges": ["EXECUTE", "GRANT_EXECUTE"]}],
              "procedures": [
                {"user": "%s", "catalog": "%s", "schema": "system", "procedure": "flush_cache", "privileges": []},
                {"privileges": ["EXECUTE"]}
              ]
            }
            """.formatted(NO_FLUSH_ALL_USER, CATALOG);

    // overdrive_hive with the page cache under the catalog's own file-based access control (hive.security=file): one
    // user may not see the table ACL_SECRET; everyone else may do everything. Every user may read the system schema
    private static final String ACL_CATALOG = "overdrive_acl";
    private static final String ACL_USER = "acl_reader";
    private static final String CATALOG_ACCESS_CONTROL_RULES = """
            {
              "schemas": [
                {"user": "%1$s", "schema": "tpch", "owner": false},
                {"owner": true}
              ],
              "tables": [
                {"user": "%1$s", "schema": "tpch", "table": "acl_secret", "privileges": []},
                {"privileges": ["SELECT", "INSERT", "DELETE", "UPDATE", "OWNERSHIP", "GRANT_SELECT"]}
              ]
            }
            """.formatted(ACL_USER);

    // stock hive and overdrive_hive (with the page cache) over S3; tables of S3_SCHEMA live in the bucket
    private static final String S3_HIVE = "hive_s3";
    private static final String S3_CATALOG = "overdrive_s3";
    private static final String S3_SCHEMA = "on_s3";
    // overdrive_hive over S3 without the cache, hedging every read whose first byte takes over 200 ms through the wrapper
    private static final String S3_HEDGED = "overdrive_s3_hedged";
    // the same at the shipped hedge budget (5% of the reads) without its reserve, after 50 ms; only the budget test reads it
    private static final String S3_BUDGET = "overdrive_s3_budget";
    private static final double BUDGET_RATIO = 0.05;

    // stock iceberg and overdrive_iceberg (with the page cache) over one Iceberg file metastore on HDFS
    private static final String ICEBERG = "iceberg";
    private static final String OVERDRIVE_ICEBERG = "overdrive_iceberg";
    // overdrive_iceberg caching only the tables of ICEBERG_SCHEMA whose names begin with "included"
    private static final String ICEBERG_FILTERED = "overdrive_iceberg_filtered";
    private static final String ICEBERG_SCHEMA = "lake";
    // stock iceberg and overdrive_iceberg over an Iceberg file metastore in the S3 bucket
    private static final String ICEBERG_S3 = "iceberg_s3";
    private static final String OVERDRIVE_ICEBERG_S3 = "overdrive_iceberg_s3";

    private Path cacheDirectory;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        Path workDirectory = Files.createDirectories(TestingHdfs.workDirectory().resolve("page-cache-on-hdfs-" + System.nanoTime()));
        cacheDirectory = Files.createDirectories(workDirectory.resolve("cache"));
        Path accessControlRules = Files.writeString(workDirectory.resolve("access-control.json"), ACCESS_CONTROL_RULES);
        Path catalogAccessControlRules = Files.writeString(workDirectory.resolve("catalog-access-control.json"), CATALOG_ACCESS_CONTROL_RULES);
        S3Storage s3 = TestingS3.shared();
        // the S3 catalogs' file metastore is in the bucket too, under a prefix of this run's own: table metadata and
        // data both come from S3, as on a lake whose metastore keeps its files there
        Map<String, String> s3Catalog = HiveCatalogs.hiveOnS3(s3, "/page-cache-" + System.nanoTime() + "/metastore");
        // snapshots and orphan files may be removed at once (expire_snapshots, remove_orphan_files with any retention)
        Map<String, String> iceberg = ImmutableMap.<String, String>builder()
                .putAll(HiveCatalogs.icebergOnHdfs(TestingHdfs.shared(), "/page-cache-iceberg-" + System.nanoTime() + "/metastore"))
                .put("iceberg.expire-snapshots.min-retention", "0s")
                .put("iceberg.remove-orphan-files.min-retention", "0s")
                .buildOrThrow();
        Map<String, String> icebergOnS3 = HiveCatalogs.icebergOnS3(s3, "/page-cache-iceberg-" + System.nanoTime() + "/metastore");
        QueryRunner queryRunner = OverdriveQueryRunner.builder(TestingHdfs.shared(), "page-cache")
                .workers(1)
                .systemAccessControl("file", Map.of("security.config-file", accessControlRules.toString()))
                .overdriveProperty("cache.enabled", "true")
                .overdriveProperty("cache.base-directory", cacheDirectory.toString())
                .overdriveProperty("cache.max-size", "2GB")
                // partitions stored outside their table's directory, for the flush of such a table
                .overdriveProperty("hive.allow-register-partition-procedure", "true")
                .extraCatalog(FILTERED, "overdrive_hive", Map.of(
                        "cache.enabled", "true",
                        "cache.base-directory", cacheDirectory.toString(),
                        "cache.max-size", "1GB",
                        "cache.include-tables", "tpch.*",
                        "cache.exclude-tables", "*.ord*"))
                .extraCatalog(ACL_CATALOG, "overdrive_hive", Map.of(
                        "cache.enabled", "true",
                        "cache.base-directory", cacheDirectory.toString(),
                        "cache.max-size", "1GB",
                        "hive.security", "file",
                        "security.config-file", catalogAccessControlRules.toString()))
                .extraCatalog(S3_HIVE, "hive", s3Catalog)
                .extraCatalog(S3_CATALOG, "overdrive_hive", ImmutableMap.<String, String>builder()
                        .putAll(s3Catalog)
                        .put("cache.enabled", "true")
                        .put("cache.base-directory", cacheDirectory.toString())
                        .put("cache.max-size", "1GB")
                        .buildOrThrow())
                .extraCatalog(S3_HEDGED, "overdrive_hive", ImmutableMap.<String, String>builder()
                        .putAll(s3Catalog)
                        .put("hedged-read.mode", "WRAPPER")
                        .put("hedged-read.threshold", "200ms")
                        .put("hedged-read.max-ratio", "1.0")
                        .buildOrThrow())
                .extraCatalog(S3_BUDGET, "overdrive_hive", ImmutableMap.<String, String>builder()
                        .putAll(s3Catalog)
                        .put("hedged-read.mode", "WRAPPER")
                        .put("hedged-read.threshold", "50ms")
                        .put("hedged-read.max-ratio", Double.toString(BUDGET_RATIO))
                        .put("hedged-read.budget-reserve", "0")
                        .buildOrThrow())
                .catalog(ICEBERG, "iceberg", iceberg)
                // the coordinator's tier in place of Iceberg's own metadata cache, which the other Iceberg catalogs keep
                .catalog(OVERDRIVE_ICEBERG, "overdrive_iceberg", ImmutableMap.<String, String>builder()
                        .putAll(iceberg)
                        .put("cache.enabled", "true")
                        .put("cache.base-directory", cacheDirectory.toString())
                        .put("cache.max-size", "1GB")
                        .put("cache.coordinator.enabled", "true")
                        .buildOrThrow())
                .catalog(ICEBERG_FILTERED, "overdrive_iceberg", ImmutableMap.<String, String>builder()
                        .putAll(iceberg)
                        .put("cache.enabled", "true")
                        .put("cache.base-directory", cacheDirectory.toString())
                        .put("cache.max-size", "1GB")
                        .put("cache.include-tables", ICEBERG_SCHEMA + ".included*")
                        .buildOrThrow())
                .catalog(ICEBERG_S3, "iceberg", ImmutableMap.<String, String>builder()
                        .putAll(icebergOnS3)
                        // for a test's tables of files added in place
                        .put("iceberg.add-files-procedure.enabled", "true")
                        .buildOrThrow())
                .catalog(OVERDRIVE_ICEBERG_S3, "overdrive_iceberg", ImmutableMap.<String, String>builder()
                        .putAll(icebergOnS3)
                        .put("cache.enabled", "true")
                        .put("cache.base-directory", cacheDirectory.toString())
                        .put("cache.max-size", "1GB")
                        .buildOrThrow())
                .initialTables(List.of(NATION, ORDERS, CUSTOMER))
                .build();
        queryRunner.execute("CREATE SCHEMA %s.%s".formatted(S3_HIVE, S3_SCHEMA));
        queryRunner.execute("CREATE SCHEMA %s.%s".formatted(ICEBERG, ICEBERG_SCHEMA));
        queryRunner.execute("CREATE SCHEMA %s.%s".formatted(ICEBERG_S3, ICEBERG_SCHEMA));
        return queryRunner;
    }

    @Test
    void repeatedQueryReadsFromTheCache()
    {
        for (String format : List.of("PARQUET", "ORC")) {
            String table = "repeated_" + format.toLowerCase();
            assertUpdate("CREATE TABLE %s WITH (format = '%s') AS SELECT * FROM tpch.tiny.lineitem".formatted(table, format), 60175);
            String sql = "SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice), avg(discount) FROM %s GROUP BY 1, 2".formatted(table);

            PageCacheMetrics start = PageCacheMetrics.read(CATALOG);
            assertThat(query(sql)).matches(sql.replace(table, "hive.tpch." + table));
            PageCacheMetrics afterFirst = PageCacheMetrics.read(CATALOG);
            computeActual(sql);
            PageCacheMetrics second = PageCacheMetrics.read(CATALOG).minus(afterFirst);

            PageCacheMetrics first = afterFirst.minus(start);
            assertThat(first.bytesFromRemote()).as("%s: the first run reads HDFS", format).isPositive();
            assertThat(second.cacheShareOfBytes()).as("%s: share of the second run's bytes read from the cache (%s)", format, second).isGreaterThanOrEqualTo(0.9);
            assertThat(second.bytesFromCache()).isPositive();
        }
    }

    @Test
    void cachedReadsReturnTheSameRowsAsStockHive()
    {
        for (String sql : List.of(
                "SELECT * FROM %s.tpch.orders",
                "SELECT c.name, count(*), sum(o.totalprice) FROM %1$s.tpch.customer c JOIN %1$s.tpch.orders o ON c.custkey = o.custkey GROUP BY c.name",
                "SELECT n.name, count(*) FROM %1$s.tpch.customer c JOIN %1$s.tpch.nation n ON c.nationkey = n.nationkey GROUP BY n.name")) {
            // cold, then warm: both must match the stock connector reading HDFS directly
            assertThat(query(sql.formatted(CATALOG))).matches(sql.formatted("hive"));
            assertThat(query(sql.formatted(CATALOG))).matches(sql.formatted("hive"));
        }
        assertThat(PageCacheMetrics.read(CATALOG).hits()).isPositive();
    }

    @Test
    void excludedTableBypassesTheCacheAndIncludedTableIsCached()
    {
        // a worker creates a catalog when its first task needs it, and its cache MBean with it
        assertThat(query("SELECT count(*) FROM %s.tpch.nation".formatted(FILTERED))).matches("VALUES BIGINT '25'");

        // orders is excluded: every run reads HDFS, and the cache is neither looked up nor filled
        String excluded = "SELECT orderstatus, count(*), sum(totalprice) FROM %s.tpch.orders GROUP BY 1";
        long cachedBefore = PageCacheMetrics.read(FILTERED).bytesCached();
        for (int run = 1; run <= 2; run++) {
            PageCacheMetrics before = PageCacheMetrics.read(FILTERED);
            assertThat(query(excluded.formatted(FILTERED))).matches(excluded.formatted("hive"));
            PageCacheMetrics read = PageCacheMetrics.read(FILTERED).minus(before);
            assertThat(read.bytesFromRemote()).as("run %s of orders reads HDFS: %s", run, read).isPositive();
            assertThat(read.notCachedExcludedTable()).as("run %s: files of orders that bypassed the cache", run).isPositive();
            assertThat(read.bytesFromCache()).as("run %s: %s", run, read).isZero();
            assertThat(read.hits()).as("run %s: %s", run, read).isZero();
            assertThat(read.misses()).as("run %s: no cache lookup: %s", run, read).isZero();
        }
        assertThat(PageCacheMetrics.read(FILTERED).bytesCached()).as("nothing of orders is cached").isEqualTo(cachedBefore);

        // customer is included: the second run reads from the cache
        String included = "SELECT mktsegment, count(*), sum(acctbal) FROM %s.tpch.customer GROUP BY 1";
        PageCacheMetrics start = PageCacheMetrics.read(FILTERED);
        assertThat(query(included.formatted(FILTERED))).matches(included.formatted("hive"));
        PageCacheMetrics afterFirst = PageCacheMetrics.read(FILTERED);
        assertThat(query(included.formatted(FILTERED))).matches(included.formatted("hive"));
        PageCacheMetrics second = PageCacheMetrics.read(FILTERED).minus(afterFirst);
        assertThat(afterFirst.minus(start).bytesFromRemote()).as("the first run of customer reads HDFS").isPositive();
        assertThat(second.cacheShareOfBytes()).as("share of the second run's bytes read from the cache (%s)", second).isGreaterThanOrEqualTo(0.9);
        assertThat(PageCacheMetrics.read(FILTERED).minus(start).notCachedExcludedTable()).as("customer is not excluded").isZero();
        assertThat(PageCacheMetrics.read(FILTERED).bytesCached()).isGreaterThan(cachedBefore);
    }

    @Test
    void flushCacheFromSql()
    {
        assertUpdate("CREATE TABLE flush_a WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.orders", 15000);
        assertUpdate("CREATE TABLE flush_b WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.customer", 1500);
        String scanA = "SELECT sum(totalprice), count(*) FROM flush_a";
        String scanB = "SELECT sum(acctbal), count(*) FROM flush_b";
        computeActual(scanA);
        computeActual(scanB);

        // one table: its pages go, the other table's stay
        PageCacheMetrics beforeFlush = PageCacheMetrics.read(CATALOG);
        assertThat(computeActual("SELECT node_id, bytes_cached_before > bytes_cached_after FROM TABLE(system.flush_cache(schema_name => 'tpch', table_name => 'flush_a'))").getMaterializedRows())
                .hasSize(1)
                .allSatisfy(row -> assertThat(row.getField(1)).isEqualTo(true));
        assertThat(PageCacheMetrics.read(CATALOG).bytesCached()).isLessThan(beforeFlush.bytesCached());

        PageCacheMetrics start = PageCacheMetrics.read(CATALOG);
        computeActual(scanB);
        PageCacheMetrics b = PageCacheMetrics.read(CATALOG).minus(start);
        assertThat(b.cacheShareOfBytes()).as("flush_b stays cached: %s", b).isGreaterThanOrEqualTo(0.9);
        start = PageCacheMetrics.read(CATALOG);
        assertThat(query(scanA)).matches(scanA.replace("flush_a", "hive.tpch.flush_a"));
        PageCacheMetrics a = PageCacheMetrics.read(CATALOG).minus(start);
        assertThat(a.bytesFromRemote()).as("flush_a is read from HDFS again: %s", a).isPositive();

        // everything
        assertThat(computeActual("SELECT bytes_cached_after FROM TABLE(system.flush_cache())").getOnlyValue()).isEqualTo(0L);
        assertThat(PageCacheMetrics.read(CATALOG).bytesCached()).isZero();

        assertQueryFails("SELECT * FROM TABLE(system.flush_cache(table_name => 'flush_a'))", "flush_cache: table_name needs schema_name too");
        assertQueryFails("SELECT * FROM TABLE(system.flush_cache(schema_name => 'tpch', table_name => 'no_such_table'))", "flush_cache: table tpch.no_such_table does not exist");
        assertUpdate("DROP TABLE flush_a");
        assertUpdate("DROP TABLE flush_b");
    }

    @Test
    void flushCacheTakesTheRightToReadWhatItFlushes()
    {
        assertUpdate("CREATE TABLE flush_guarded WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.orders", 15000);
        String flushTable = "SELECT bytes_cached_before > bytes_cached_after FROM TABLE(system.flush_cache(schema_name => 'tpch', table_name => 'flush_guarded'))";
        String flushSchema = "SELECT * FROM TABLE(system.flush_cache(schema_name => 'tpch'))";
        String flushAll = "SELECT * FROM TABLE(system.flush_cache())";
        String denied = "Cannot select from columns \\[.*] in table or view overdrive.tpch.flush_guarded";
        Session noFlushAll = Session.builder(getSession())
                .setIdentity(Identity.ofUser(NO_FLUSH_ALL_USER))
                .build();

        // exclusively, so that no other query changes what is cached between the two readings
        executeExclusively(() -> {
            computeActual("SELECT sum(totalprice), count(*) FROM flush_guarded");
            long cached = PageCacheMetrics.read(CATALOG).bytesCached();
            assertThat(cached).isPositive();

            // a table: SELECT on every column, as SELECT * needs
            assertAccessDenied(flushTable, denied, privilege("flush_guarded", SELECT_COLUMN));
            assertAccessDenied(flushTable, denied, privilege("flush_guarded.comment", SELECT_COLUMN));
            // a schema: the same on each of its tables
            assertAccessDenied(flushSchema, denied, privilege("flush_guarded", SELECT_COLUMN));
            // everything: the right to execute the procedure overdrive.system.flush_cache, which the rules deny this user
            assertAccessDenied(noFlushAll, flushAll, "Cannot execute procedure overdrive.system.flush_cache");

            assertThat(PageCacheMetrics.read(CATALOG).bytesCached()).as("nothing is flushed").isEqualTo(cached);
        });

        // a user without the right to flush everything still flushes what it may read
        assertThat(computeActual(noFlushAll, flushTable).getOnlyValue()).isEqualTo(true);
        assertThat(computeActual(noFlushAll, flushSchema).getRowCount()).isEqualTo(1);
        assertUpdate("DROP TABLE flush_guarded");
    }

    @Test
    void flushOfATableCoversItsPartitionsStoredElsewhere()
    {
        // an external table (only those may have partitions outside their directory) whose partitions must lie outside
        // the file metastore's directory, where Hive writes nothing: Parquet files that Iceberg tables write there
        String root = TestingHdfs.shared().nameNodeUri() + "/page-cache-partitions-" + System.nanoTime();
        String files = "CREATE TABLE %s.%s.%s WITH (format = 'PARQUET', location = '%s/%s') AS SELECT orderkey, totalprice FROM tpch.tiny.orders";
        assertUpdate(files.formatted(ICEBERG, ICEBERG_SCHEMA, "flush_parts_inside", root, "flush_parts"), 15000);
        // a partition whose files lie outside the table's directory, in one whose name begins with the table's
        assertUpdate(files.formatted(ICEBERG, ICEBERG_SCHEMA, "flush_parts_elsewhere", root, "flush_parts_elsewhere"), 15000);
        assertUpdate("CREATE TABLE flush_parts (orderkey bigint, totalprice double, part varchar) " +
                "WITH (format = 'PARQUET', partitioned_by = ARRAY['part'], external_location = '%s/flush_parts')".formatted(root));
        assertUpdate("CALL system.register_partition('tpch', 'flush_parts', ARRAY['part'], ARRAY['inside'], '%s/flush_parts/data')".formatted(root));
        assertUpdate("CALL system.register_partition('tpch', 'flush_parts', ARRAY['part'], ARRAY['elsewhere'], '%s/flush_parts_elsewhere/data')".formatted(root));
        String scan = "SELECT part, count(*), sum(totalprice) FROM flush_parts GROUP BY part";
        String cachedFiles = "SELECT coalesce(sum(cached_files), 0) FROM system.cached_tables WHERE schema_name = 'tpch' AND table_name = 'flush_parts'";

        // exclusively, so that no flush of everything empties the cache between the readings
        executeExclusively(() -> {
            assertThat(query(scan)).matches(scan.replace("flush_parts", "hive.tpch.flush_parts"));
            assertThat((long) computeActual(cachedFiles).getOnlyValue()).as("files of both partitions cached").isGreaterThanOrEqualTo(2);

            computeActual("SELECT * FROM TABLE(system.flush_cache(schema_name => 'tpch', table_name => 'flush_parts'))");
            assertThat(computeActual(cachedFiles).getOnlyValue()).as("no file of either partition is left").isEqualTo(0L);

            // the partition elsewhere is read from HDFS again
            PageCacheMetrics start = PageCacheMetrics.read(CATALOG);
            computeActual("SELECT sum(totalprice) FROM flush_parts WHERE part = 'elsewhere'");
            PageCacheMetrics read = PageCacheMetrics.read(CATALOG).minus(start);
            assertThat(read.bytesFromRemote()).as("the partition elsewhere after the flush: %s", read).isPositive();
        });

        assertUpdate("DROP TABLE flush_parts");
        assertUpdate("DROP TABLE %s.%s.flush_parts_inside".formatted(ICEBERG, ICEBERG_SCHEMA));
        assertUpdate("DROP TABLE %s.%s.flush_parts_elsewhere".formatted(ICEBERG, ICEBERG_SCHEMA));
    }

    @Test
    void cachedTablesListsOnlyTheTablesTheUserMaySee()
    {
        assertUpdate("CREATE TABLE acl_open WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE TABLE acl_secret WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.region", 5);
        // read through the catalog under hive.security=file by a user who may read both
        computeActual("SELECT sum(nationkey), max(name) FROM %s.tpch.acl_open".formatted(ACL_CATALOG));
        computeActual("SELECT sum(regionkey), max(name) FROM %s.tpch.acl_secret".formatted(ACL_CATALOG));
        String cachedTables = "SELECT DISTINCT table_name FROM %s.system.cached_tables WHERE schema_name = 'tpch'".formatted(ACL_CATALOG);
        Session aclUser = Session.builder(getSession())
                .setIdentity(Identity.ofUser(ACL_USER))
                .build();

        // exclusively, so that no flush of everything empties the cache before the readings
        executeExclusively(() -> {
            assertThat(computeActual(cachedTables).getOnlyColumnAsSet()).contains("acl_open", "acl_secret");
            // the user the rules deny acl_secret sees neither the table nor its row; the row of acl_open stays
            assertAccessDenied(aclUser, "SELECT * FROM %s.tpch.acl_secret".formatted(ACL_CATALOG), "Cannot select from (table|columns) .*acl_secret.*");
            assertThat(computeActual(aclUser, "SHOW TABLES FROM %s.tpch LIKE 'acl_%%'".formatted(ACL_CATALOG)).getOnlyColumnAsSet()).containsExactly("acl_open");
            assertThat(computeActual(aclUser, cachedTables).getOnlyColumnAsSet()).contains("acl_open").doesNotContain("acl_secret");
        });

        assertUpdate("DROP TABLE acl_open");
        assertUpdate("DROP TABLE acl_secret");
    }

    @Test
    void warmCacheFromSql()
    {
        assertUpdate("CREATE TABLE warm_lines WITH (format = 'PARQUET', partitioned_by = ARRAY['returnflag']) AS " +
                "SELECT orderkey, quantity, extendedprice, shipdate, returnflag FROM tpch.tiny.lineitem", 60175);
        String warm = "SELECT count(*), count(DISTINCT path), sum(rows), sum(bytes_from_storage), sum(bytes_from_cache) " +
                "FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines'))";
        String scan = "SELECT returnflag, count(*), sum(quantity), sum(extendedprice), max(shipdate), min(orderkey) FROM %s GROUP BY 1";

        // alone, so that the storage bytes counted are this test's only
        executeExclusively(() -> {
            computeActual("SELECT * FROM TABLE(system.flush_cache(schema_name => 'tpch', table_name => 'warm_lines'))");
            List<Object> first = computeActual(warm).getMaterializedRows().getFirst().getFields();
            assertThat(first.get(1)).as("files: one per returnflag").isEqualTo(3L);
            assertThat(first.get(2)).as("rows read").isEqualTo(60175L);
            long warmedBytes = (Long) first.get(3);
            assertThat(warmedBytes).as("bytes the warm-up read from storage").isPositive();

            // the next query of those columns reads (almost) nothing from storage
            PageCacheMetrics before = PageCacheMetrics.read(CATALOG);
            assertThat(query(scan.formatted("warm_lines"))).matches(scan.formatted("hive.tpch.warm_lines"));
            PageCacheMetrics after = PageCacheMetrics.read(CATALOG).minus(before);
            assertThat(after.bytesFromRemote()).as("storage bytes of the query after the warm-up (%s), against the warm-up's %s", after, warmedBytes)
                    .isLessThanOrEqualTo(warmedBytes / 20);
            assertThat(after.bytesFromCache()).isPositive();

            // safe to repeat: a second warm-up reads from the cache
            List<Object> second = computeActual(warm).getMaterializedRows().getFirst().getFields();
            assertThat(second.get(2)).isEqualTo(60175L);
            assertThat((Long) second.get(3)).as("bytes a repeated warm-up read from storage").isLessThanOrEqualTo(warmedBytes / 20);
            assertThat((Long) second.get(4)).as("bytes a repeated warm-up read from the cache").isPositive();
        });

        // the query's own statistics: the page source's metrics, in EXPLAIN ANALYZE VERBOSE
        String explained = (String) computeActual("EXPLAIN ANALYZE VERBOSE " + scan.formatted("warm_lines")).getOnlyValue();
        assertThat(explained).contains("overdrive_bytes_from_cache", "overdrive_bytes_from_storage");

        // some partitions, some columns
        List<Object> paths = computeActual("SELECT DISTINCT path FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines', " +
                "columns => ARRAY['quantity'], partitions => ARRAY['returnflag=A', 'returnflag=N*']))").getOnlyColumnAsSet().stream().toList();
        assertThat(paths).hasSize(2).allSatisfy(path -> assertThat((String) path).containsAnyOf("/returnflag=A/", "/returnflag=N/"));

        // what SELECT of the columns takes
        assertAccessDenied("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines'))",
                "Cannot select from columns \\[.*] in table or view overdrive.tpch.warm_lines", privilege("warm_lines.shipdate", SELECT_COLUMN));
        assertAccessDenied("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines', columns => ARRAY['quantity']))",
                "Cannot select from columns \\[quantity] in table or view overdrive.tpch.warm_lines", privilege("warm_lines.quantity", SELECT_COLUMN));
        assertThat(computeActual("SELECT count(*) FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines', columns => ARRAY['quantity']))").getOnlyValue())
                .as("a column the user may read, while another is denied").isEqualTo(3L);

        assertQueryFails("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'no_such_table'))", "warm_cache: table tpch.no_such_table does not exist");
        assertQueryFails("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines', columns => ARRAY['nope']))",
                "warm_cache: column nope of tpch.warm_lines does not exist.*");
        assertQueryFails("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_lines', columns => ARRAY['returnflag']))",
                "warm_cache: column returnflag of tpch.warm_lines is a partition column.*");
        assertQueryFails("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'orders', partitions => ARRAY['x=1']))",
                "warm_cache: tpch.orders is not partitioned: remove partitions");
        assertUpdate("CREATE VIEW warm_view AS SELECT quantity FROM warm_lines");
        assertQueryFails("SELECT * FROM TABLE(system.warm_cache(schema_name => 'tpch', table_name => 'warm_view'))",
                "warm_cache: tpch.warm_view is a view, which has no files of its own: warm its tables");
        assertUpdate("DROP VIEW warm_view");
        assertUpdate("DROP TABLE warm_lines");
    }

    @Test
    void damagedPagesOnTheCacheDiskAreNeverServed()
    {
        List<String> queries = List.of(
                "SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice), avg(discount) FROM %s GROUP BY 1, 2",
                "SELECT * FROM %s WHERE partkey %% 97 = 3",
                "SELECT shipmode, count(DISTINCT suppkey), max(comment) FROM %s GROUP BY 1");
        for (String format : List.of("PARQUET", "ORC")) {
            String table = "damaged_" + format.toLowerCase();
            assertUpdate("CREATE TABLE %s WITH (format = '%s') AS SELECT * FROM tpch.tiny.lineitem".formatted(table, format), 60175);
            // alone, so that every page file in the cache is this table's and no other test's
            executeExclusively(() -> {
                computeActual("SELECT * FROM TABLE(system.flush_cache())");
                for (String sql : queries) {
                    computeActual(sql.formatted(table));
                }
                // 8 bytes overwritten in the middle of every cached page file, as a bad sector or a stray write would
                List<Path> pageFiles = pageFiles();
                assertThat(pageFiles).as("cached pages of %s", table).isNotEmpty();
                for (Path file : pageFiles) {
                    damage(file);
                }
                PageCacheMetrics before = PageCacheMetrics.read(CATALOG);
                // every query, every time, returns the stock connector's rows; the damage is counted
                for (int run = 1; run <= 2; run++) {
                    for (String sql : queries) {
                        assertThat(query(sql.formatted(table))).as("%s, run %s", sql, run).matches(sql.formatted("hive.tpch." + table));
                    }
                }
                PageCacheMetrics after = PageCacheMetrics.read(CATALOG).minus(before);
                assertThat(after.checksumFailures()).as("%s: pages found damaged (%s)", format, after).isPositive().isLessThanOrEqualTo(pageFiles.size());
                assertThat(after.hits()).as("%s: the intact chunks and the pages written again hit (%s)", format, after).isPositive();
            });
            assertUpdate("DROP TABLE " + table);
        }
    }

    private List<Path> pageFiles()
    {
        // <cache.base-directory>/<catalog>/LOCAL/<page size>/<bucket>/<file id>/<page index>
        try (Stream<Path> files = Files.walk(cacheDirectory.resolve(CATALOG).resolve("LOCAL"))) {
            return files.filter(Files::isRegularFile).toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void damage(Path file)
    {
        try (RandomAccessFile page = new RandomAccessFile(file.toFile(), "rw")) {
            byte[] bytes = new byte[8];
            long middle = page.length() / 2;
            page.seek(middle);
            page.readFully(bytes);
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) ~bytes[i];
            }
            page.seek(middle);
            page.write(bytes);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void changedFileIsNeverServedFromTheCache()
    {
        assertUpdate("CREATE TABLE changing (id bigint, label varchar)");
        assertUpdate("INSERT INTO changing VALUES (1, 'one'), (2, 'two')", 2);
        assertThat(query("SELECT * FROM changing")).matches("VALUES (BIGINT '1', VARCHAR 'one'), (2, 'two')");
        assertThat(query("SELECT * FROM changing")).matches("VALUES (BIGINT '1', VARCHAR 'one'), (2, 'two')");
        // overwrite through the stock connector: same table, new files
        assertUpdate("DELETE FROM hive.tpch.changing");
        assertUpdate("INSERT INTO hive.tpch.changing VALUES (3, 'three')", 1);
        assertThat(query("SELECT * FROM changing")).matches("VALUES (BIGINT '3', VARCHAR 'three')");
        assertUpdate("DROP TABLE changing");
    }
    @Test
    void s3TablesReadTheSameThroughTheCacheAndWarmReadsSendNoRequest()
    {
        S3Storage s3 = TestingS3.shared();
        for (String format : List.of("PARQUET", "ORC")) {
            String table = "lines_" + format.toLowerCase(ENGLISH);
            assertUpdate("CREATE TABLE %s.%s.%s WITH (format = '%s') AS SELECT * FROM tpch.tiny.lineitem".formatted(S3_HIVE, S3_SCHEMA, table, format), 60175);
            assertThat(computeActual("SELECT DISTINCT \"$path\" FROM %s.%s.%s".formatted(S3_HIVE, S3_SCHEMA, table)).getOnlyColumnAsSet())
                    .allSatisfy(path -> assertThat((String) path).startsWith("s3://" + TestingS3.BUCKET + "/"));
            Instant written = Instant.now();
            String sql = "SELECT returnflag, linestatus, count(*), sum(orderkey), sum(linenumber), min(shipdate), max(comment) FROM %s.%s.%s GROUP BY 1, 2 ORDER BY 1, 2";
            MaterializedResult expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA, table));
            TestingS3.awaitCacheable(written);

            long requests = s3.getRequests();
            assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, table)).getMaterializedRows()).as("%s, cold", format).isEqualTo(expected.getMaterializedRows());
            assertThat(s3.getRequests() - requests).as("%s: GETs of the cold query", format).isPositive();

            requests = s3.getRequests();
            long bytes = s3.getBytes();
            assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA, table)).getMaterializedRows()).as("%s, warm", format).isEqualTo(expected.getMaterializedRows());
            assertThat(s3.getRequests() - requests).as("%s: GETs of the warm query", format).isZero();
            assertThat(s3.getBytes() - bytes).as("%s: bytes the warm query read from S3", format).isZero();
        }
    }

    @Test
    void s3ObjectRewrittenUnderTheSameKeyIsNeverServedFromTheCache()
            throws InterruptedException
    {
        S3Storage s3 = TestingS3.shared();
        String prefix = "rewritten-" + System.nanoTime();
        String key = prefix + "/data.csv";
        String table = "%s." + S3_SCHEMA + ".rewritten";
        String sql = "SELECT id, label FROM " + table + " ORDER BY id";
        try (S3Client client = s3Client(s3)) {
            put(client, s3, key, "1,one\n2,two\n3,three\n");
            Instant written = Instant.now();
            assertUpdate("CREATE TABLE %s (id varchar, label varchar) WITH (format = 'CSV', external_location = '%s')".formatted(table.formatted(S3_HIVE), s3.uri(prefix)));
            TestingS3.awaitCacheable(written);
            assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "one"), List.of("2", "two"), List.of("3", "three"));
            long requests = s3.getRequests();
            assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "one"), List.of("2", "two"), List.of("3", "three"));
            assertThat(s3.getRequests() - requests).as("GETs of the warm query: the object is cached").isZero();

            // rewritten under the same key with the same length, in a later second (S3 gives modification times to the
            // second): the cache key's modification time differs, so the new object is read, never the cached pages
            String sameLength = "1,uno\n2,dos\n3,trois\n";
            assertThat(sameLength).hasSameSizeAs("1,one\n2,two\n3,three\n");
            Thread.sleep(1100);
            put(client, s3, key, sameLength);
            requests = s3.getRequests();
            assertThat(rows(sql.formatted(S3_CATALOG))).as("after a rewrite of the same length")
                    .containsExactly(List.of("1", "uno"), List.of("2", "dos"), List.of("3", "trois"))
                    .isEqualTo(rows(sql.formatted(S3_HIVE)));
            assertThat(s3.getRequests() - requests).as("GETs after the rewrite").isPositive();

            // rewritten again, shorter: the same
            put(client, s3, key, "1,one\n");
            assertThat(rows(sql.formatted(S3_CATALOG))).as("after a shorter rewrite")
                    .containsExactly(List.of("1", "one"))
                    .isEqualTo(rows(sql.formatted(S3_HIVE)));
            // and what was read last is cached in turn, once it is old enough for its key to be trusted
            TestingS3.awaitCacheable(Instant.now());
            assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "one"));
            requests = s3.getRequests();
            assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "one"));
            assertThat(s3.getRequests() - requests).as("GETs of the warm query after the rewrites").isZero();
        }
        finally {
            getQueryRunner().execute("DROP TABLE IF EXISTS " + table.formatted(S3_HIVE));
        }
    }

    private List<List<Object>> rows(String sql)
    {
        return computeActual(sql).getMaterializedRows().stream().map(MaterializedRow::getFields).toList();
    }

    // a real S3 client, as any writer of the bucket: path-style, the server's keys, checksums only where S3 requires them
    private static S3Client s3Client(S3Storage s3)
    {
        Map<String, String> properties = s3.catalogProperties();
        return S3Client.builder()
                .endpointOverride(s3.endpoint())
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(properties.get("s3.aws-access-key"), properties.get("s3.aws-secret-key"))))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder())
                .build();
    }

    private static void put(S3Client client, S3Storage s3, String key, String content)
    {
        client.putObject(PutObjectRequest.builder().bucket(s3.bucket()).key(key).build(), RequestBody.fromString(content, UTF_8));
    }

    @Test
    void s3ObjectRewrittenAtTheSameLengthWithinTheSameSecondIsNeverServedStale()
    {
        S3Storage s3 = TestingS3.shared();
        String prefix = "same-second-" + System.nanoTime();
        String key = prefix + "/data.csv";
        String table = "%s." + S3_SCHEMA + ".same_second";
        String sql = "SELECT id, label FROM " + table + " ORDER BY id";
        String version1 = "1,one\n2,two\n";
        String version2 = "1,uno\n2,dos\n";
        assertThat(version2).hasSameSizeAs(version1);
        long heldBack = PageCacheMetrics.read(S3_CATALOG).notCachedRecentlyModified();
        try (S3Client client = s3Client(s3)) {
            put(client, s3, key, version1);
            assertUpdate("CREATE TABLE %s (id varchar, label varchar) WITH (format = 'CSV', external_location = '%s')".formatted(table.formatted(S3_HIVE), s3.uri(prefix)));
            // version 1 read through the cache, then rewritten at the same length within the same second: its
            // modification time and length, so its cache key, are those of version 1. Tried until the read and the
            // rewrite fit in one second
            boolean sameSecond = false;
            for (int attempt = 0; attempt < 10 && !sameSecond; attempt++) {
                put(client, s3, key, version1);
                Instant first = lastModified(client, s3, key);
                assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "one"), List.of("2", "two"));
                put(client, s3, key, version2);
                sameSecond = lastModified(client, s3, key).equals(first);
            }
            assertThat(sameSecond).as("a read and a rewrite within one second").isTrue();
            Instant rewritten = Instant.now();
            assertThat(rows(sql.formatted(S3_CATALOG))).as("after the rewrite within the second")
                    .containsExactly(List.of("1", "uno"), List.of("2", "dos"))
                    .isEqualTo(rows(sql.formatted(S3_HIVE)));
            assertThat(PageCacheMetrics.read(S3_CATALOG).notCachedRecentlyModified()).as("opens held back from the cache").isGreaterThan(heldBack);

            // past cache.min-file-age the key can no longer be reused by a rewrite: version 2 is cached and served
            TestingS3.awaitCacheable(rewritten);
            assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "uno"), List.of("2", "dos"));
            long requests = s3.getRequests();
            assertThat(rows(sql.formatted(S3_CATALOG))).containsExactly(List.of("1", "uno"), List.of("2", "dos"));
            assertThat(s3.getRequests() - requests).as("GETs of the warm query").isZero();
        }
        finally {
            getQueryRunner().execute("DROP TABLE IF EXISTS " + table.formatted(S3_HIVE));
        }
    }

    @Test
    void s3TablesWithTheSameFileNamesInTwoBucketsReturnTheirOwnRows()
    {
        S3Storage s3 = TestingS3.shared();
        String other = "lake-other";
        String prefix = "two-buckets-" + System.nanoTime();
        try (S3Client client = s3Client(s3)) {
            if (client.listBuckets().buckets().stream().noneMatch(bucket -> bucket.name().equals(other))) {
                client.createBucket(CreateBucketRequest.builder().bucket(other).build());
            }
            // Hive: 000000_0 under the same prefix in both buckets, the same length, written within the same second
            // (so with the same modification time: Trino's cache key is the same for both)
            String key = prefix + "/hive/000000_0";
            boolean sameSecond = false;
            for (int attempt = 0; attempt < 10 && !sameSecond; attempt++) {
                client.putObject(PutObjectRequest.builder().bucket(s3.bucket()).key(key).build(), RequestBody.fromString("1,lake\n", UTF_8));
                client.putObject(PutObjectRequest.builder().bucket(other).key(key).build(), RequestBody.fromString("2,else\n", UTF_8));
                sameSecond = client.headObject(HeadObjectRequest.builder().bucket(s3.bucket()).key(key).build()).lastModified()
                        .equals(client.headObject(HeadObjectRequest.builder().bucket(other).key(key).build()).lastModified());
            }
            assertThat(sameSecond).as("both objects written within one second").isTrue();
            Instant written = Instant.now();
            String hiveTable = "%s." + S3_SCHEMA + ".bucket_%s";
            assertUpdate("CREATE TABLE %s (id varchar, label varchar) WITH (format = 'CSV', external_location = 's3://%s/%s/hive')".formatted(hiveTable.formatted(S3_HIVE, "lake"), s3.bucket(), prefix));
            assertUpdate("CREATE TABLE %s (id varchar, label varchar) WITH (format = 'CSV', external_location = 's3://%s/%s/hive')".formatted(hiveTable.formatted(S3_HIVE, "other"), other, prefix));

            // Iceberg: data files added with add_files, their paths the same but for the bucket (Iceberg keys a file by its
            // path alone): an ORC file of each table's rows, the second copied to the first's name in the other bucket
            getQueryRunner().execute("CREATE TABLE %s.%s.%s_a WITH (format = 'ORC') AS SELECT orderkey, comment FROM tpch.tiny.orders WHERE orderkey < 1000".formatted(S3_HIVE, S3_SCHEMA, prefix.replace('-', '_')));
            getQueryRunner().execute("CREATE TABLE %s.%s.%s_b WITH (format = 'ORC') AS SELECT orderkey, comment FROM tpch.tiny.orders WHERE orderkey >= 59000".formatted(S3_HIVE, S3_SCHEMA, prefix.replace('-', '_')));
            String fileA = objectKey((String) computeActual("SELECT min(\"$path\") FROM %s.%s.%s_a".formatted(S3_HIVE, S3_SCHEMA, prefix.replace('-', '_'))).getOnlyValue(), s3.bucket());
            String fileB = objectKey((String) computeActual("SELECT min(\"$path\") FROM %s.%s.%s_b".formatted(S3_HIVE, S3_SCHEMA, prefix.replace('-', '_'))).getOnlyValue(), s3.bucket());
            String directoryA = fileA.substring(0, fileA.lastIndexOf('/'));
            // in the other bucket, the first table's directory holds the second table's file under the first's name
            client.copyObject(CopyObjectRequest.builder().sourceBucket(s3.bucket()).sourceKey(fileB).destinationBucket(other).destinationKey(fileA).build());
            for (String bucket : List.of(s3.bucket(), other)) {
                assertUpdate("CREATE TABLE %s.lake.bucket_%s (orderkey bigint, comment varchar) WITH (format = 'ORC')".formatted(ICEBERG_S3, bucket.replace('-', '_')));
                getQueryRunner().execute("ALTER TABLE %s.lake.bucket_%s EXECUTE add_files(location => 's3://%s/%s', format => 'ORC')".formatted(ICEBERG_S3, bucket.replace('-', '_'), bucket, directoryA));
            }
            String icebergA = "bucket_" + s3.bucket().replace('-', '_');
            String icebergB = "bucket_" + other.replace('-', '_');
            assertThat(computeActual("SELECT DISTINCT \"$path\" FROM %s.lake.%s".formatted(ICEBERG_S3, icebergB)).getOnlyColumnAsSet())
                    .containsExactly("s3://%s/%s".formatted(other, fileA));
            assertThat(computeActual("SELECT DISTINCT \"$path\" FROM %s.lake.%s".formatted(ICEBERG_S3, icebergA)).getOnlyColumnAsSet())
                    .contains("s3://%s/%s".formatted(s3.bucket(), fileA));

            TestingS3.awaitCacheable(written);
            String icebergSql = "SELECT count(*), min(orderkey), max(orderkey), max(comment) FROM %s.lake.%s";
            MaterializedResult expectedA = computeActual(icebergSql.formatted(ICEBERG_S3, icebergA));
            MaterializedResult expectedB = computeActual(icebergSql.formatted(ICEBERG_S3, icebergB));
            assertThat(expectedA.getMaterializedRows()).isNotEqualTo(expectedB.getMaterializedRows());
            for (String pass : List.of("cold", "warm")) {
                assertThat(rows("SELECT id, label FROM " + hiveTable.formatted(S3_CATALOG, "lake"))).as("hive, bucket %s, %s", s3.bucket(), pass).containsExactly(List.of("1", "lake"));
                assertThat(rows("SELECT id, label FROM " + hiveTable.formatted(S3_CATALOG, "other"))).as("hive, bucket %s, %s", other, pass).containsExactly(List.of("2", "else"));
                assertThat(computeActual(icebergSql.formatted(OVERDRIVE_ICEBERG_S3, icebergA)).getMaterializedRows()).as("iceberg, bucket %s, %s", s3.bucket(), pass).isEqualTo(expectedA.getMaterializedRows());
                assertThat(computeActual(icebergSql.formatted(OVERDRIVE_ICEBERG_S3, icebergB)).getMaterializedRows()).as("iceberg, bucket %s, %s", other, pass).isEqualTo(expectedB.getMaterializedRows());
            }
            // and the warm reads' data came from the cache
            PageCacheMetrics hive = PageCacheMetrics.read(S3_CATALOG);
            PageCacheMetrics iceberg = PageCacheMetrics.read(OVERDRIVE_ICEBERG_S3);
            assertThat(rows("SELECT id, label FROM " + hiveTable.formatted(S3_CATALOG, "other"))).containsExactly(List.of("2", "else"));
            assertThat(computeActual(icebergSql.formatted(OVERDRIVE_ICEBERG_S3, icebergB)).getMaterializedRows()).isEqualTo(expectedB.getMaterializedRows());
            PageCacheMetrics hiveRead = PageCacheMetrics.read(S3_CATALOG).minus(hive);
            PageCacheMetrics icebergRead = PageCacheMetrics.read(OVERDRIVE_ICEBERG_S3).minus(iceberg);
            assertThat(hiveRead.bytesFromRemote()).as("hive, warm: %s", hiveRead).isZero();
            assertThat(hiveRead.hits()).as("hive, warm: %s", hiveRead).isPositive();
            assertThat(icebergRead.bytesFromRemote()).as("iceberg, warm: %s", icebergRead).isZero();
            assertThat(icebergRead.hits()).as("iceberg, warm: %s", icebergRead).isPositive();
        }
        finally {
            getQueryRunner().execute("DROP TABLE IF EXISTS %s.lake.bucket_%s".formatted(ICEBERG_S3, s3.bucket().replace('-', '_')));
            getQueryRunner().execute("DROP TABLE IF EXISTS %s.lake.bucket_%s".formatted(ICEBERG_S3, other.replace('-', '_')));
        }
    }

    // the key of an object at s3://bucket/key
    private static String objectKey(String path, String bucket)
    {
        assertThat(path).startsWith("s3://" + bucket + "/");
        return path.substring(("s3://" + bucket + "/").length());
    }

    private static Instant lastModified(S3Client client, S3Storage s3, String key)
    {
        return client.headObject(HeadObjectRequest.builder().bucket(s3.bucket()).key(key).build()).lastModified();
    }

    @Test
    void s3TableFlushedFromSqlIsReadFromS3Again()
    {
        S3Storage s3 = TestingS3.shared();
        assertUpdate("CREATE TABLE %s.%s.flushed_orders WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.orders".formatted(S3_HIVE, S3_SCHEMA), 15000);
        TestingS3.awaitCacheable(Instant.now());
        String sql = "SELECT orderstatus, count(*), sum(custkey), max(clerk) FROM %s.%s.flushed_orders GROUP BY 1 ORDER BY 1";
        MaterializedResult expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA));
        assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA)).getMaterializedRows()).isEqualTo(expected.getMaterializedRows());
        String cachedFiles = "SELECT coalesce(sum(cached_files), 0) FROM %s.system.cached_tables WHERE schema_name = '%s' AND table_name = 'flushed_orders'".formatted(S3_CATALOG, S3_SCHEMA);
        assertThat((long) computeActual(cachedFiles).getOnlyValue()).as("files cached").isPositive();

        assertThat(computeActual("SELECT bytes_cached_before > bytes_cached_after FROM TABLE(%s.system.flush_cache(schema_name => '%s', table_name => 'flushed_orders'))".formatted(S3_CATALOG, S3_SCHEMA)).getOnlyColumnAsSet())
                .containsExactly(true);
        assertThat((long) computeActual(cachedFiles).getOnlyValue()).as("files cached after the flush").isZero();
        long requests = s3.getRequests();
        assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA)).getMaterializedRows()).isEqualTo(expected.getMaterializedRows());
        assertThat(s3.getRequests() - requests).as("GETs after the flush").isPositive();
    }

    @Test
    void throttledS3ReadsAreRetriedWithTheSameResults()
    {
        S3Storage s3 = TestingS3.shared();
        assertUpdate("CREATE TABLE %s.%s.throttled WITH (format = 'ORC') AS SELECT * FROM tpch.tiny.lineitem".formatted(S3_HIVE, S3_SCHEMA), 60175);
        String sql = "SELECT linestatus, count(*), sum(partkey), max(shipinstruct) FROM %s.%s.throttled GROUP BY 1 ORDER BY 1";
        MaterializedResult expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA));
        long refused = s3.slowDowns();
        // every third read is refused with 503 Slow Down, as S3 throttles a busy prefix: the S3 client retries it
        s3.setSlowDownEvery(3);
        try {
            assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA)).getMaterializedRows()).as("cold, throttled").isEqualTo(expected.getMaterializedRows());
            assertThat(computeActual(sql.formatted(S3_HIVE, S3_SCHEMA)).getMaterializedRows()).as("stock, throttled").isEqualTo(expected.getMaterializedRows());
        }
        finally {
            s3.setSlowDownEvery(0);
        }
        assertThat(s3.slowDowns() - refused).as("reads refused").isPositive();
        assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA)).getMaterializedRows()).as("warm").isEqualTo(expected.getMaterializedRows());
    }
    @Test
    void s3AnsweringLikeARemoteStoreIsHedgedByDefaultWithTheSameRows()
            throws Exception
    {
        S3Storage s3 = TestingS3.shared();
        assertUpdate("CREATE TABLE %s.%s.remote_lines WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.lineitem".formatted(S3_HIVE, S3_SCHEMA), 60175);
        String sql = "SELECT shipmode, count(*), sum(quantity), max(comment), min(receiptdate) FROM %s.%s.remote_lines GROUP BY 1 ORDER BY 1";
        MaterializedResult expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA));
        ObjectName stats = new ObjectName("io.overdrive.cache.hedge:type=HedgedReadStats,name=" + S3_CATALOG + ",catalog=" + S3_CATALOG);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long wrapperReads = (long) server.getAttribute(stats, "Reads");
        long bytes = s3.getBytes();
        long bytesPerSecond = 1 << 20;
        // a remote object store: 1 MB/s in all, 20 ms before each first byte and a tail, a fifth of the GETs up to 300 ms more
        s3.setBandwidth(bytesPerSecond);
        s3.setFirstByteLatency(Duration.ofMillis(20), Duration.ofMillis(200), 0.05);
        s3.setSlowEndpoint(0.2, Duration.ofMillis(300));
        long start = System.nanoTime();
        try {
            assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA)).getMaterializedRows()).as("overdrive_hive, cold").isEqualTo(expected.getMaterializedRows());
            assertThat(computeActual(sql.formatted(S3_HIVE, S3_SCHEMA)).getMaterializedRows()).as("stock hive").isEqualTo(expected.getMaterializedRows());
        }
        finally {
            s3.setBandwidth(0);
            s3.setFirstByteLatency(Duration.ZERO, Duration.ZERO, 0);
            s3.setSlowEndpoint(0, Duration.ZERO);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long sent = s3.getBytes() - bytes;
        // the server kept to its bandwidth: beyond the one second of bytes its limiter may let through at once, sending
        // took at least as long as the rate allows
        assertThat(seconds).as("seconds to send %s bytes at %s bytes/s", sent, bytesPerSecond).isGreaterThanOrEqualTo((sent - bytesPerSecond) / (double) bytesPerSecond);
        // hedged-read.mode is at its default (AUTO): the page cache's misses on S3 went through the hedging wrapper
        assertThat((long) server.getAttribute(stats, "Reads") - wrapperReads).as("reads through the hedging wrapper").isPositive();
        assertThat(computeActual(sql.formatted(S3_CATALOG, S3_SCHEMA)).getMaterializedRows()).as("warm").isEqualTo(expected.getMaterializedRows());
    }

    @Test
    void slowS3ReadsAreHedgedThroughTheWrapper()
            throws Exception
    {
        S3Storage s3 = TestingS3.shared();
        createBucketedOrdersOnS3("hedged", 4);
        String sql = "SELECT orderpriority, count(*), sum(custkey), max(comment) FROM %s.%s.hedged GROUP BY 1 ORDER BY 1";
        MaterializedResult expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA));
        ObjectName stats = hedgeStats(S3_HEDGED);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long hedges = 0;
        long wins = 0;
        long stopped = 0;
        // every fifth GET of the table's data files (4 per run: the second and third runs each have one) waits 3 s more
        // before its first byte: a hedge of it after 200 ms comes back first. Counting only the data files' GETs keeps
        // the slow ones off the metastore's reads, which do not go through the wrapper
        s3.setSlowGet(5, Duration.ofSeconds(3), "/hedged/0");
        try {
            for (int run = 0; run < 3; run++) {
                assertThat(computeActual(sql.formatted(S3_HEDGED, S3_SCHEMA)).getMaterializedRows()).as("run %s", run).isEqualTo(expected.getMaterializedRows());
            }
            hedges = (long) server.getAttribute(stats, "HedgedReadOps");
            wins = (long) server.getAttribute(stats, "HedgedReadOpsWin");
            // a loser unwinds in the background after its query has its rows; well before the 3 s it would wait if not stopped
            long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while ((long) server.getAttribute(stats, "AttemptsRunning") > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat((long) server.getAttribute(stats, "AttemptsRunning")).as("attempts still running").isZero();
            stopped = (long) server.getAttribute(stats, "AbandonedAttemptsStopped");
        }
        finally {
            s3.setSlowGet(0, Duration.ZERO, "/hedged/0");
        }
        assertThat(hedges).as("reads hedged").isPositive();
        assertThat(wins).as("hedges that won").isPositive();
        // the losers were GETs still waiting for their first byte: Trino's S3 client gave them up on the interrupt, its
        // connection closed, rather than waiting out the 3 s and reading their ranges
        assertThat(stopped).as("losers stopped (wins: %s)", wins).isPositive();
    }

    @Test
    void s3SlowEverywhereIsHedgedWithinTheBudget()
            throws Exception
    {
        S3Storage s3 = TestingS3.shared();
        createBucketedOrdersOnS3("budgeted", 12);
        String sql = "SELECT orderstatus, count(*), sum(totalprice), min(orderdate), max(clerk) FROM %s.%s.budgeted GROUP BY 1 ORDER BY 1";
        MaterializedResult expected = computeActual(sql.formatted(S3_HIVE, S3_SCHEMA));
        ObjectName stats = hedgeStats(S3_BUDGET);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        // a storage-wide slowdown: every GET waits 300 ms for its first byte, so every read runs past the 50 ms threshold
        // and asks for a hedge, which would double the GETs; the budget lets 5% of the reads be hedged
        s3.setFirstByteLatency(Duration.ofMillis(300), Duration.ZERO, 0);
        long start = System.nanoTime();
        try {
            // 12 small files, each read whole in one GET: 48 reads
            for (int run = 0; run < 4; run++) {
                assertThat(computeActual(sql.formatted(S3_BUDGET, S3_SCHEMA)).getMaterializedRows()).as("run %s", run).isEqualTo(expected.getMaterializedRows());
            }
        }
        finally {
            s3.setFirstByteLatency(Duration.ZERO, Duration.ZERO, 0);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long reads = (long) server.getAttribute(stats, "Reads");
        long hedges = (long) server.getAttribute(stats, "HedgedReadOps");
        long refused = (long) server.getAttribute(stats, "HedgesRefusedByBudget");
        String counts = "%s reads, %s hedges, %s refused, %.1f s".formatted(reads, hedges, refused, seconds);
        System.out.printf("[overdrive-it] S3 slow everywhere, budget %s: %s%n", BUDGET_RATIO, counts);
        assertThat(reads).as(counts).isPositive();
        // the first reads are refused for sure: a hedge needs 1 / 0.05 = 20 reads in the budget's window first
        assertThat(refused).as("hedges refused by the budget (%s)", counts).isPositive();
        assertThat(hedges + refused).as("reads that asked for a hedge (%s)", counts).isLessThanOrEqualTo(reads);
        // and once 20 reads (decayed) are in the window, a read that asks gets its hedge: the budget hedges, it does not stop hedging
        assertThat(hedges).as("hedges within the budget (%s)", counts).isPositive();
        // at most 5% of the reads of the last minute (no reserve); the catalog's reads are all this test's
        assertThat((double) hedges).as("hedges within the budget (%s)", counts).isLessThanOrEqualTo(HedgeBudget.maxHedges(BUDGET_RATIO, 0, reads, seconds, 1));
    }

    // TPC-H tiny orders in the bucket through stock hive, one small Parquet file per bucket
    private void createBucketedOrdersOnS3(String table, int buckets)
    {
        getQueryRunner().execute("CREATE TABLE %s.%s.%s WITH (format = 'PARQUET', bucketed_by = ARRAY['orderkey'], bucket_count = %s) AS SELECT * FROM tpch.tiny.orders"
                .formatted(S3_HIVE, S3_SCHEMA, table, buckets));
    }

    private static ObjectName hedgeStats(String catalog)
            throws MalformedObjectNameException
    {
        return new ObjectName("io.overdrive.cache.hedge:type=HedgedReadStats,name=" + catalog + ",catalog=" + catalog);
    }

    @Test
    void s3DdlAndDmlThroughEitherCatalogAgree()
    {
        String table = "%s.%s.parts";
        String columns = "orderkey, custkey, totalprice, orderdate, orderstatus";
        // a partitioned table written through overdrive_hive, read through both
        getQueryRunner().execute(("CREATE TABLE " + table + " WITH (format = 'PARQUET', partitioned_by = ARRAY['orderstatus']) AS SELECT %s FROM tpch.tiny.orders WHERE orderkey < 30000")
                .formatted(S3_CATALOG, S3_SCHEMA, columns));
        getQueryRunner().execute(("INSERT INTO " + table + " SELECT %s FROM tpch.tiny.orders WHERE orderkey >= 30000").formatted(S3_CATALOG, S3_SCHEMA, columns));
        String sql = "SELECT orderstatus, count(*), sum(custkey), max(orderdate), min(totalprice) FROM %s GROUP BY 1 ORDER BY 1";
        MaterializedResult expected = computeActual(sql.formatted("tpch.tiny.orders"));
        for (String catalog : List.of(S3_CATALOG, S3_HIVE, S3_CATALOG)) {
            assertThat(computeActual(sql.formatted(table.formatted(catalog, S3_SCHEMA))).getMaterializedRows()).as(catalog).isEqualTo(expected.getMaterializedRows());
        }
        assertThat(computeActual("SELECT DISTINCT \"$path\" FROM " + table.formatted(S3_HIVE, S3_SCHEMA)).getOnlyColumnAsSet())
                .allSatisfy(path -> assertThat((String) path).startsWith("s3://" + TestingS3.BUCKET + "/"));

        // a partition deleted through the stock catalog: overdrive_hive, which cached it, no longer returns it
        getQueryRunner().execute(("DELETE FROM " + table + " WHERE orderstatus = 'P'").formatted(S3_HIVE, S3_SCHEMA));
        expected = computeActual(sql.formatted("(SELECT * FROM tpch.tiny.orders WHERE orderstatus <> 'P')"));
        for (String catalog : List.of(S3_CATALOG, S3_HIVE)) {
            assertThat(computeActual(sql.formatted(table.formatted(catalog, S3_SCHEMA))).getMaterializedRows()).as("%s after the delete", catalog).isEqualTo(expected.getMaterializedRows());
        }
        getQueryRunner().execute(("DROP TABLE " + table).formatted(S3_CATALOG, S3_SCHEMA));
        assertQueryFails(("SELECT * FROM " + table).formatted(S3_HIVE, S3_SCHEMA), ".*Table '%s.%s.parts' does not exist".formatted(S3_HIVE, S3_SCHEMA));
    }

    // ---- Iceberg tables: overdrive_iceberg against stock iceberg over one file metastore on HDFS ----

    @Test
    void icebergTablesReadTheSameAsStockIcebergAndWarmReadsComeFromTheCache()
    {
        for (String format : List.of("PARQUET", "ORC")) {
            String lineitem = "lineitem_" + format.toLowerCase(ENGLISH);
            String orders = "orders_" + format.toLowerCase(ENGLISH);
            assertUpdate("CREATE TABLE %s.%s.%s WITH (format = '%s', partitioning = ARRAY['returnflag']) AS SELECT * FROM tpch.tiny.lineitem".formatted(OVERDRIVE_ICEBERG, ICEBERG_SCHEMA, lineitem, format), 60175);
            assertUpdate("CREATE TABLE %s.%s.%s WITH (format = '%s') AS SELECT * FROM tpch.tiny.orders".formatted(ICEBERG, ICEBERG_SCHEMA, orders, format), 15000);
            PageCacheMetrics start = PageCacheMetrics.read(OVERDRIVE_ICEBERG);
            for (String sql : List.of(
                    // TPC-H Q1, Q6 and Q12's shapes
                    "SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice * (1 - discount)), avg(discount) FROM %1$s.lake.%2$s WHERE shipdate <= DATE '1998-09-02' GROUP BY 1, 2",
                    "SELECT sum(extendedprice * discount) FROM %1$s.lake.%2$s WHERE shipdate >= DATE '1994-01-01' AND shipdate < DATE '1995-01-01' AND discount BETWEEN 0.05 AND 0.07 AND quantity < 24",
                    "SELECT l.shipmode, count(*) FROM %1$s.lake.%3$s o JOIN %1$s.lake.%2$s l ON o.orderkey = l.orderkey WHERE o.orderpriority IN ('1-URGENT', '2-HIGH') GROUP BY 1",
                    "SELECT * FROM %1$s.lake.%3$s WHERE orderkey BETWEEN 1000 AND 2000")) {
                String overdrive = sql.formatted(OVERDRIVE_ICEBERG, lineitem, orders);
                String stock = sql.formatted(ICEBERG, lineitem, orders);
                // cold for what earlier queries did not read
                assertThat(query(overdrive)).as("%s, cold: %s", format, sql).matches(stock);
                PageCacheMetrics afterCold = PageCacheMetrics.read(OVERDRIVE_ICEBERG);
                assertThat(query(overdrive)).as("%s, warm: %s", format, sql).matches(stock);
                PageCacheMetrics warm = PageCacheMetrics.read(OVERDRIVE_ICEBERG).minus(afterCold);
                assertThat(warm.bytesFromRemote()).as("%s: the warm run reads nothing from HDFS: %s (%s)", format, sql, warm).isZero();
                assertThat(warm.bytesFromCache()).isPositive();
            }
            assertThat(PageCacheMetrics.read(OVERDRIVE_ICEBERG).minus(start).bytesFromRemote()).as("%s: the cold runs read HDFS", format).isPositive();
            assertUpdate("DROP TABLE %s.%s.%s".formatted(ICEBERG, ICEBERG_SCHEMA, lineitem));
            assertUpdate("DROP TABLE %s.%s.%s".formatted(OVERDRIVE_ICEBERG, ICEBERG_SCHEMA, orders));
        }
    }

    /**
     * Every kind of change Iceberg makes to a table, through either catalog and through Iceberg's own writers (an
     * equality delete, as Spark and Flink write them): after each, the table's rows, its metadata tables and its
     * history read the same through {@code overdrive_iceberg} (cold, then warm from the cache) as through stock
     * {@code iceberg}.
     */
    @Test
    void icebergChangesThroughEitherCatalogReadTheSameColdAndWarm()
    {
        String table = "changes";
        assertUpdate("CREATE TABLE overdrive_iceberg.lake.changes (id BIGINT, name VARCHAR, price DECIMAL(38, 2), score DOUBLE, day DATE) WITH (format = 'PARQUET', format_version = 2)");
        long created = snapshotId(table);
        assertUpdate("""
                INSERT INTO iceberg.lake.changes VALUES
                    (1, 'ascii', DECIMAL '12345678901234567890123456789012.34', 1.5, DATE '2024-01-01'),
                    (2, 'ünïcödé ✓', DECIMAL '-0.01', nan(), DATE '2024-01-02'),
                    (3, NULL, NULL, infinity(), DATE '2024-02-01'),
                    (4, '', DECIMAL '99999999999999999999999999999999.99', -infinity(), NULL),
                    (5, 'five', DECIMAL '5.00', NULL, DATE '2024-02-03')""", 5);
        assertSameIcebergTable(table);
        assertUpdate("INSERT INTO overdrive_iceberg.lake.changes SELECT custkey + 100, name, CAST(acctbal AS DECIMAL(38, 2)), acctbal, DATE '2024-03-01' + custkey * INTERVAL '1' DAY FROM tpch.tiny.customer", 1500);
        assertSameIcebergTable(table);
        long beforeDeletes = snapshotId(table);

        // position deletes (Trino's DELETE), then an equality delete (Iceberg's writer): both kinds of delete file
        assertUpdate("DELETE FROM overdrive_iceberg.lake.changes WHERE id % 7 = 0", 214);
        assertSameIcebergTable(table);
        writeEqualityDelete(table, "name", "five");
        assertThat(computeScalar("SELECT count(*) FROM overdrive_iceberg.lake.changes WHERE id = 5")).isEqualTo(0L);
        assertThat(computeActual("SELECT DISTINCT content FROM iceberg.lake.\"changes$files\"").getOnlyColumnAsSet()).containsExactlyInAnyOrder(0, 1, 2);
        assertSameIcebergTable(table);

        assertUpdate("UPDATE iceberg.lake.changes SET score = score * 2, name = upper(name) WHERE id BETWEEN 100 AND 400", 257);
        assertSameIcebergTable(table);
        assertUpdate("""
                MERGE INTO overdrive_iceberg.lake.changes t USING (SELECT nationkey AS id, name FROM tpch.tiny.nation) s ON t.id = s.id
                WHEN MATCHED AND s.id < 3 THEN DELETE
                WHEN MATCHED THEN UPDATE SET name = s.name
                WHEN NOT MATCHED THEN INSERT (id, name, day) VALUES (s.id, s.name, DATE '2025-01-01')""", 25);
        assertSameIcebergTable(table);

        // schema and partition evolution
        assertUpdate("ALTER TABLE overdrive_iceberg.lake.changes ADD COLUMN note VARCHAR");
        assertUpdate("ALTER TABLE iceberg.lake.changes RENAME COLUMN score TO rating");
        assertUpdate("ALTER TABLE overdrive_iceberg.lake.changes SET PROPERTIES partitioning = ARRAY['month(day)']");
        assertUpdate("INSERT INTO iceberg.lake.changes (id, name, day, note) VALUES (9000, 'after evolution', DATE '2026-12-02', 'noted')", 1);
        assertSameIcebergTable(table);
        assertUpdate("ALTER TABLE overdrive_iceberg.lake.changes DROP COLUMN note");
        assertSameIcebergTable(table);

        // maintenance: compaction, snapshots expired, files no snapshot uses removed
        long beforeOptimize = snapshotId(table);
        assertUpdate("ALTER TABLE overdrive_iceberg.lake.changes EXECUTE optimize");
        assertSameIcebergTable(table);
        assertThat(query("SELECT * FROM overdrive_iceberg.lake.changes FOR VERSION AS OF " + beforeOptimize))
                .as("time travel to before the compaction")
                .matches("SELECT * FROM iceberg.lake.changes FOR VERSION AS OF " + beforeOptimize);
        assertThat(query("SELECT * FROM overdrive_iceberg.lake.changes FOR VERSION AS OF " + beforeDeletes))
                .as("time travel to before the deletes")
                .matches("SELECT * FROM iceberg.lake.changes FOR VERSION AS OF " + beforeDeletes);
        // Iceberg's own table function (over the appends), served through Overdrive's function provider
        String changes = "SELECT id, _change_type, _change_version_id FROM TABLE(%s.system.table_changes('lake', 'changes', " + created + ", " + beforeDeletes + "))";
        assertThat(query(changes.formatted(OVERDRIVE_ICEBERG))).matches(changes.formatted(ICEBERG));
        assertThat(computeActual(changes.formatted(OVERDRIVE_ICEBERG)).getRowCount()).isEqualTo(1505);
        assertUpdate("ALTER TABLE iceberg.lake.changes EXECUTE expire_snapshots(retention_threshold => '0s')");
        assertUpdate("ALTER TABLE overdrive_iceberg.lake.changes EXECUTE remove_orphan_files(retention_threshold => '0s')");
        assertSameIcebergTable(table);
        assertThat(computeScalar("SELECT count(*) FROM overdrive_iceberg.lake.\"changes$snapshots\"")).isEqualTo(1L);

        assertUpdate("DROP TABLE overdrive_iceberg.lake.changes");
        assertQueryFails("SELECT * FROM iceberg.lake.changes", ".*Table 'iceberg.lake.changes' does not exist");
        assertQueryFails("SELECT * FROM overdrive_iceberg.lake.changes", ".*Table 'overdrive_iceberg.lake.changes' does not exist");
    }

    // the table's rows, cold and warm, and its metadata tables, the same through both catalogs
    private void assertSameIcebergTable(String table)
    {
        String rows = "SELECT * FROM %s.lake." + table;
        assertThat(query(rows.formatted(OVERDRIVE_ICEBERG))).as("cold").matches(rows.formatted(ICEBERG));
        PageCacheMetrics before = PageCacheMetrics.read(OVERDRIVE_ICEBERG);
        assertThat(query(rows.formatted(OVERDRIVE_ICEBERG))).as("warm").matches(rows.formatted(ICEBERG));
        PageCacheMetrics warm = PageCacheMetrics.read(OVERDRIVE_ICEBERG).minus(before);
        assertThat(warm.bytesFromRemote()).as("warm: data and delete files come from the cache (%s)", warm).isZero();
        for (String metadata : List.of(
                "SELECT snapshot_id, parent_id, operation FROM %s.lake.\"" + table + "$snapshots\"",
                "SELECT content, file_path, record_count, file_size_in_bytes FROM %s.lake.\"" + table + "$files\"",
                "SELECT made_current_at, snapshot_id, is_current_ancestor FROM %s.lake.\"" + table + "$history\"")) {
            assertThat(query(metadata.formatted(OVERDRIVE_ICEBERG))).as(metadata).matches(metadata.formatted(ICEBERG));
        }
        assertThat(query("DESCRIBE %s.lake.%s".formatted(OVERDRIVE_ICEBERG, table))).matches("DESCRIBE %s.lake.%s".formatted(ICEBERG, table));
    }

    private long snapshotId(String table)
    {
        return (long) computeScalar("SELECT snapshot_id FROM iceberg.lake.\"%s$snapshots\" ORDER BY committed_at DESC LIMIT 1".formatted(table));
    }

    // deletes the rows whose column holds the value with an equality delete file, written and committed with Iceberg's
    // own API (what Spark and Flink write; Trino writes position deletes only)
    private void writeEqualityDelete(String table, String column, String value)
    {
        // through the stock catalog's own Iceberg catalog: a writer that is not Overdrive's
        Connector stock = coordinatorConnector(ICEBERG);
        TrinoCatalog catalog = coordinatorInjector(ICEBERG).getInstance(TrinoCatalogFactory.class).create(ConnectorIdentity.ofUser("test"));
        ConnectorSession session = TestingConnectorSession.builder().setPropertyMetadata(stock.getSessionProperties()).build();
        org.apache.iceberg.Table icebergTable = catalog.loadTable(session, new SchemaTableName(ICEBERG_SCHEMA, table));
        Schema deleteSchema = icebergTable.schema().select(column);
        OutputFile file = icebergTable.io().newOutputFile(icebergTable.location() + "/data/equality-delete-" + UUID.randomUUID() + ".parquet");
        try {
            EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(file)
                    .forTable(icebergTable)
                    .withSpec(icebergTable.spec())
                    .rowSchema(deleteSchema)
                    .createWriterFunc(GenericParquetWriter::create)
                    .equalityFieldIds(icebergTable.schema().findField(column).fieldId())
                    .buildEqualityWriter();
            try (writer) {
                writer.write(GenericRecord.create(deleteSchema).copy(Map.of(column, value)));
            }
            icebergTable.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void icebergTablesOnS3ReadTheSameAndWarmReadsAskS3ForNoData()
    {
        S3Storage s3 = TestingS3.shared();
        for (String format : List.of("PARQUET", "ORC")) {
            String table = "lines_" + format.toLowerCase(ENGLISH);
            assertUpdate("CREATE TABLE %s.lake.%s WITH (format = '%s') AS SELECT * FROM tpch.tiny.lineitem".formatted(OVERDRIVE_ICEBERG_S3, table, format), 60175);
            assertThat(computeActual("SELECT DISTINCT \"$path\" FROM %s.lake.%s".formatted(ICEBERG_S3, table)).getOnlyColumnAsSet())
                    .allSatisfy(path -> assertThat((String) path).startsWith("s3://" + TestingS3.BUCKET + "/"));
            String sql = "SELECT returnflag, linestatus, count(*), sum(orderkey), sum(linenumber), min(shipdate), max(comment) FROM %s.lake.%s GROUP BY 1, 2 ORDER BY 1, 2";
            MaterializedResult expected = computeActual(sql.formatted(ICEBERG_S3, table));
            long bytes = s3.getBytes();
            assertThat(computeActual(sql.formatted(OVERDRIVE_ICEBERG_S3, table)).getMaterializedRows()).as("%s, cold", format).isEqualTo(expected.getMaterializedRows());
            long cold = s3.getBytes() - bytes;

            PageCacheMetrics before = PageCacheMetrics.read(OVERDRIVE_ICEBERG_S3);
            bytes = s3.getBytes();
            assertThat(computeActual(sql.formatted(OVERDRIVE_ICEBERG_S3, table)).getMaterializedRows()).as("%s, warm", format).isEqualTo(expected.getMaterializedRows());
            long warm = s3.getBytes() - bytes;
            PageCacheMetrics read = PageCacheMetrics.read(OVERDRIVE_ICEBERG_S3).minus(before);
            assertThat(read.bytesFromRemote()).as("%s: the warm query's data comes from the cache: %s", format, read).isZero();
            assertThat(read.bytesFromCache()).isPositive();
            // what is left is the file metastore's table file, which no cache keeps (Iceberg's metadata files are in the coordinator's memory)
            assertThat(warm).as("%s: S3 bytes of the warm query against the cold one's (%s)", format, cold).isLessThan(cold / 100);
            assertUpdate("DROP TABLE %s.lake.%s".formatted(ICEBERG_S3, table));
        }
    }

    @Test
    void icebergFlushCacheFromSql()
    {
        assertUpdate("CREATE TABLE overdrive_iceberg.lake.flush_a AS SELECT * FROM tpch.tiny.orders", 15000);
        assertUpdate("CREATE TABLE overdrive_iceberg.lake.flush_b AS SELECT * FROM tpch.tiny.customer", 1500);
        assertUpdate("DELETE FROM overdrive_iceberg.lake.flush_a WHERE orderkey % 3 = 0", 5000);
        String scanA = "SELECT sum(totalprice), count(*) FROM %s.lake.flush_a";
        String scanB = "SELECT sum(acctbal), count(*) FROM %s.lake.flush_b";
        computeActual(scanA.formatted(OVERDRIVE_ICEBERG));
        computeActual(scanB.formatted(OVERDRIVE_ICEBERG));

        // one table, found through the Iceberg catalog: its data and delete files go, the other table's stay
        PageCacheMetrics beforeFlush = PageCacheMetrics.read(OVERDRIVE_ICEBERG);
        assertThat(computeActual("SELECT bytes_cached_before > bytes_cached_after FROM TABLE(overdrive_iceberg.system.flush_cache(schema_name => 'lake', table_name => 'flush_a'))").getOnlyValue()).isEqualTo(true);
        assertThat(PageCacheMetrics.read(OVERDRIVE_ICEBERG).bytesCached()).isLessThan(beforeFlush.bytesCached());
        PageCacheMetrics start = PageCacheMetrics.read(OVERDRIVE_ICEBERG);
        computeActual(scanB.formatted(OVERDRIVE_ICEBERG));
        assertThat(PageCacheMetrics.read(OVERDRIVE_ICEBERG).minus(start).bytesFromRemote()).as("flush_b stays cached").isZero();
        start = PageCacheMetrics.read(OVERDRIVE_ICEBERG);
        assertThat(query(scanA.formatted(OVERDRIVE_ICEBERG))).matches(scanA.formatted(ICEBERG));
        assertThat(PageCacheMetrics.read(OVERDRIVE_ICEBERG).minus(start).bytesFromRemote()).as("flush_a is read from HDFS again").isPositive();

        // the schema, found through the Iceberg catalog too
        assertThat(computeActual("SELECT bytes_cached_before > 0, bytes_cached_after FROM TABLE(overdrive_iceberg.system.flush_cache(schema_name => 'lake'))").getMaterializedRows())
                .singleElement()
                .satisfies(row -> assertThat(row.getFields()).containsExactly(true, 0L));
        assertQueryFails("SELECT * FROM TABLE(overdrive_iceberg.system.flush_cache(schema_name => 'lake', table_name => 'no_such_table'))", "flush_cache: table lake.no_such_table does not exist");
        assertQueryFails("SELECT * FROM TABLE(overdrive_iceberg.system.flush_cache(schema_name => 'no_such_schema'))", "flush_cache: schema no_such_schema does not exist or has no location");
        // warm_cache reads Hive partitions: not a function of Iceberg catalogs
        assertQueryFails("SELECT * FROM TABLE(overdrive_iceberg.system.warm_cache(schema_name => 'lake', table_name => 'flush_b'))", "line 1:21: Table function 'overdrive_iceberg.system.warm_cache' not registered");
        assertUpdate("DROP TABLE iceberg.lake.flush_a");
        assertUpdate("DROP TABLE iceberg.lake.flush_b");
    }

    @Test
    void icebergTableFiltersCoverEachTablesDeleteFiles()
    {
        assertUpdate("CREATE TABLE iceberg.lake.included_orders AS SELECT * FROM tpch.tiny.orders", 15000);
        assertUpdate("CREATE TABLE iceberg.lake.other_orders AS SELECT * FROM tpch.tiny.orders", 15000);
        // delete files, which Iceberg reads when a split's page source makes its first page
        assertUpdate("DELETE FROM iceberg.lake.included_orders WHERE orderkey % 5 = 0", 3000);
        assertUpdate("DELETE FROM iceberg.lake.other_orders WHERE orderkey % 5 = 0", 3000);
        String sql = "SELECT orderstatus, count(*), sum(totalprice) FROM %s.lake.%s GROUP BY 1";

        // included: the second run reads nothing from HDFS, its delete files included
        assertThat(query(sql.formatted(ICEBERG_FILTERED, "included_orders"))).matches(sql.formatted(ICEBERG, "included_orders"));
        PageCacheMetrics before = PageCacheMetrics.read(ICEBERG_FILTERED);
        assertThat(query(sql.formatted(ICEBERG_FILTERED, "included_orders"))).matches(sql.formatted(ICEBERG, "included_orders"));
        PageCacheMetrics warm = PageCacheMetrics.read(ICEBERG_FILTERED).minus(before);
        assertThat(warm.bytesFromRemote()).as("included, warm: %s", warm).isZero();
        assertThat(warm.notCachedExcludedTable()).as("included, warm: %s", warm).isZero();

        // left out: every run reads HDFS, and the cache is neither looked up nor filled
        for (int run = 1; run <= 2; run++) {
            before = PageCacheMetrics.read(ICEBERG_FILTERED);
            assertThat(query(sql.formatted(ICEBERG_FILTERED, "other_orders"))).matches(sql.formatted(ICEBERG, "other_orders"));
            PageCacheMetrics read = PageCacheMetrics.read(ICEBERG_FILTERED).minus(before);
            assertThat(read.bytesFromRemote()).as("run %s: %s", run, read).isPositive();
            assertThat(read.notCachedExcludedTable()).as("run %s: data and delete files bypass the cache: %s", run, read).isGreaterThanOrEqualTo(2);
            assertThat(read.bytesFromCache()).as("run %s: %s", run, read).isZero();
            assertThat(read.misses()).as("run %s: %s", run, read).isZero();
        }
        assertUpdate("DROP TABLE iceberg.lake.included_orders");
        assertUpdate("DROP TABLE iceberg.lake.other_orders");
    }

    // the coordinator reads a table's metadata file, manifest list and manifests for every plan: from memory after the first
    @Test
    void icebergPlanningReadsTableMetadataFromTheCoordinatorsMemory()
    {
        assertUpdate("CREATE TABLE overdrive_iceberg.lake.planned AS SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate("INSERT INTO iceberg.lake.planned SELECT * FROM tpch.tiny.nation", 25);
        CoordinatorCacheStats stats = coordinatorInjector(OVERDRIVE_ICEBERG).getInstance(CoordinatorCacheStats.class);
        String sql = "SELECT regionkey, count(*) FROM %s.lake.planned WHERE nationkey > 3 GROUP BY 1";
        assertThat(query(sql.formatted(OVERDRIVE_ICEBERG))).matches(sql.formatted(ICEBERG));
        long hits = stats.getHits();
        long bytesFromStorage = stats.getBytesFromStorage();
        assertThat(query(sql.formatted(OVERDRIVE_ICEBERG))).matches(sql.formatted(ICEBERG));
        assertThat(stats.getHits()).as("the second plan's metadata files come from memory").isGreaterThan(hits);
        assertThat(stats.getBytesFromStorage()).as("and none from storage").isEqualTo(bytesFromStorage);
        // a change commits new metadata files, under new paths: seen at once
        assertUpdate("INSERT INTO iceberg.lake.planned SELECT * FROM tpch.tiny.nation WHERE nationkey > 20", 4);
        assertThat(query(sql.formatted(OVERDRIVE_ICEBERG))).matches(sql.formatted(ICEBERG));
        assertUpdate("DROP TABLE iceberg.lake.planned");
    }

    // the injector of a catalog's connector on the coordinator: Overdrive's, or the stock Iceberg connector's
    private Injector coordinatorInjector(String catalog)
    {
        Connector connector = coordinatorConnector(catalog);
        return connector instanceof OverdriveConnector overdrive ? overdrive.injector() : ((IcebergConnector) connector).getInjector();
    }

    private Connector coordinatorConnector(String catalog)
    {
        TestingTrinoServer coordinator = getDistributedQueryRunner().getCoordinator();
        CatalogHandle handle = coordinator.getInstance(Key.get(CatalogManager.class)).getCatalog(new CatalogName(catalog)).orElseThrow().getCatalogHandle();
        return coordinator.getInstance(Key.get(ConnectorServicesProvider.class)).getConnectorServices(handle).getConnector();
    }
}
