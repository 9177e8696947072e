package io.overdrive.it;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.trino.tpch.TpchTable.CUSTOMER;
import static io.trino.tpch.TpchTable.NATION;
import static io.trino.tpch.TpchTable.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Overdrive's page cache on real HDFS, one worker: the same results as the stock {@code hive} catalog over the same
 * files, and a repeated query reads at least 90% of its bytes from the cache (read from the cache's MBean).
 */
public class TestPageCacheOnHdfs
        extends AbstractTestQueryFramework
{
    private static final String CATALOG = OverdriveQueryRunner.OVERDRIVE_CATALOG;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        Path cacheDirectory = Files.createDirectories(TestingHdfs.workDirectory().resolve("page-cache-on-hdfs-" + System.nanoTime()));
        return OverdriveQueryRunner.builder(TestingHdfs.shared(), "page-cache")
                .workers(1)
                .overdriveProperty("cache.enabled", "true")
                .overdriveProperty("cache.base-directory", cacheDirectory.toString())
                .overdriveProperty("cache.max-size", "2GB")
                .initialTables(List.of(NATION, ORDERS, CUSTOMER))
                .build();
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
}
