package io.overdrive.it;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.trino.tpch.TpchTable.CUSTOMER;
import static io.trino.tpch.TpchTable.NATION;
import static io.trino.tpch.TpchTable.ORDERS;
import static io.trino.tpch.TpchTable.REGION;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With only {@code hive.*} / {@code fs.*} properties, {@code overdrive_hive} must behave exactly like the stock
 * {@code hive} connector over the same metastore and HDFS warehouse: same tables, same results, same writes.
 */
public class TestOverdriveMatchesHive
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return OverdriveQueryRunner.builder(TestingHdfs.shared(), "matches-hive")
                .initialTables(List.of(NATION, REGION, ORDERS, CUSTOMER))
                .build();
    }

    @Test
    void tablesLiveOnHdfs()
    {
        assertThat((String) computeScalar("SELECT \"$path\" FROM overdrive.tpch.orders LIMIT 1")).startsWith("hdfs://127.0.0.1:");
    }

    @Test
    void sameTables()
    {
        assertThat(query("SHOW TABLES FROM overdrive.tpch")).matches("SHOW TABLES FROM hive.tpch");
        assertThat(query("SHOW COLUMNS FROM overdrive.tpch.orders")).matches("SHOW COLUMNS FROM hive.tpch.orders");
    }

    @Test
    void sameResults()
    {
        for (String sql : List.of(
                "SELECT * FROM %s.tpch.orders",
                "SELECT orderstatus, count(*), sum(totalprice), min(orderdate), max(orderdate) FROM %s.tpch.orders GROUP BY orderstatus",
                "SELECT n.name, count(*) FROM %1$s.tpch.customer c JOIN %1$s.tpch.nation n ON c.nationkey = n.nationkey GROUP BY n.name",
                "SELECT * FROM %s.tpch.orders WHERE orderkey BETWEEN 1000 AND 2000 AND orderpriority = '1-URGENT'",
                "SELECT r.name, count(*) FROM %1$s.tpch.region r JOIN %1$s.tpch.nation n ON r.regionkey = n.regionkey GROUP BY r.name")) {
            assertThat(query(sql.formatted("overdrive")))
                    .as(sql)
                    .matches(sql.formatted("hive"))
                    .matches(sql.formatted("tpch").replace("tpch.tpch.", "tpch.tiny."));
        }
    }

    @Test
    void sameErrorsForUnsupportedStatements()
    {
        assertUpdate("CREATE TABLE overdrive.tpch.unsupported AS SELECT * FROM tpch.tiny.region", 5);
        try {
            for (String sql : List.of(
                    "UPDATE %s.tpch.unsupported SET name = 'x' WHERE regionkey = 1",
                    "DELETE FROM %s.tpch.unsupported WHERE regionkey = 1",
                    "TRUNCATE TABLE %s.tpch.unsupported",
                    "CREATE MATERIALIZED VIEW %s.tpch.unsupported_mv AS SELECT * FROM tpch.tiny.region")) {
                String overdriveError = failureMessage(sql.formatted("overdrive"));
                assertThat(overdriveError).as(sql).isEqualTo(failureMessage(sql.formatted("hive")));
            }
        }
        finally {
            assertUpdate("DROP TABLE overdrive.tpch.unsupported");
        }
    }

    private String failureMessage(String sql)
    {
        try {
            getQueryRunner().execute(sql);
        }
        catch (RuntimeException e) {
            return e.getMessage();
        }
        throw new AssertionError("Expected to fail: " + sql);
    }

    @Test
    void writesThroughEitherCatalogAreSeenByTheOther()
    {
        for (String format : List.of("ORC", "PARQUET")) {
            String overdriveTable = "written_by_overdrive_" + format.toLowerCase();
            String hiveTable = "written_by_hive_" + format.toLowerCase();
            assertUpdate("CREATE TABLE overdrive.tpch.%s WITH (format = '%s', partitioned_by = ARRAY['orderstatus']) AS SELECT orderkey, totalprice, orderdate, orderstatus FROM tpch.tiny.orders".formatted(overdriveTable, format), 15000);
            assertUpdate("CREATE TABLE hive.tpch.%s WITH (format = '%s') AS SELECT * FROM tpch.tiny.customer".formatted(hiveTable, format), 1500);
            assertUpdate("INSERT INTO overdrive.tpch.%s SELECT * FROM tpch.tiny.customer WHERE custkey <= 10".formatted(hiveTable), 10);

            assertThat(query("SELECT * FROM hive.tpch." + overdriveTable)).matches("SELECT orderkey, totalprice, orderdate, orderstatus FROM tpch.tiny.orders");
            assertThat(query("SELECT * FROM overdrive.tpch." + hiveTable))
                    .matches("SELECT * FROM tpch.tiny.customer UNION ALL SELECT * FROM tpch.tiny.customer WHERE custkey <= 10");
            assertThat(query("SELECT * FROM overdrive.tpch." + hiveTable)).matches("SELECT * FROM hive.tpch." + hiveTable);

            assertUpdate("DROP TABLE overdrive.tpch." + hiveTable);
            assertUpdate("DROP TABLE hive.tpch." + overdriveTable);
            assertThat(query("SHOW TABLES FROM overdrive.tpch LIKE 'written_by_%'")).returnsEmptyResult();
        }
    }
}
