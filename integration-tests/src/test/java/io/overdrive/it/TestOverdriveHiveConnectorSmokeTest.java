package io.overdrive.it;

import io.trino.testing.BaseConnectorSmokeTest;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Trino's generic connector smoke suite against {@code overdrive_hive} on real HDFS, with the behaviours and
 * expectations Trino declares for its own Hive connector ({@code TestHiveConnectorSmokeTest}), as Trino 483's Hive
 * connector answers them over a file metastore (no ACID tables, no materialized views, no TRUNCATE).
 * {@link TestOverdriveMatchesHive#sameErrorsForUnsupportedStatements} checks that stock {@code hive} answers alike.
 */
public class TestOverdriveHiveConnectorSmokeTest
        extends BaseConnectorSmokeTest
{
    static final String MODIFYING_NON_TRANSACTIONAL = "Modifying Hive table rows is only supported for transactional tables";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return OverdriveQueryRunner.builder(TestingHdfs.shared(), "smoke")
                .initialTables(REQUIRED_TPCH_TABLES)
                .build();
    }

    @Override
    protected boolean hasBehavior(TestingConnectorBehavior connectorBehavior)
    {
        return switch (connectorBehavior) {
            case SUPPORTS_TOPN_PUSHDOWN, SUPPORTS_CREATE_MATERIALIZED_VIEW, SUPPORTS_TRUNCATE -> false;
            case SUPPORTS_CREATE_VIEW, SUPPORTS_DELETE, SUPPORTS_UPDATE, SUPPORTS_MERGE, SUPPORTS_MULTI_STATEMENT_WRITES -> true;
            default -> super.hasBehavior(connectorBehavior);
        };
    }

    @Test
    @Override
    public void testRowLevelDelete()
    {
        assertThatThrownBy(super::testRowLevelDelete)
                .hasMessage(MODIFYING_NON_TRANSACTIONAL);
    }

    @Test
    @Override
    public void testRowLevelUpdate()
    {
        assertThatThrownBy(super::testRowLevelUpdate)
                .hasMessage(MODIFYING_NON_TRANSACTIONAL);
    }

    @Test
    @Override
    public void testUpdate()
    {
        assertThatThrownBy(super::testUpdate)
                .hasMessage(MODIFYING_NON_TRANSACTIONAL);
    }

    @Test
    @Override
    public void testMerge()
    {
        assertThatThrownBy(super::testMerge)
                .hasMessage(MODIFYING_NON_TRANSACTIONAL);
    }

    @Test
    @Override
    public void testShowCreateTable()
    {
        assertThat((String) computeScalar("SHOW CREATE TABLE region"))
                .isEqualTo("""
                        CREATE TABLE overdrive.tpch.region (
                           regionkey bigint,
                           name varchar(25),
                           comment varchar(152)
                        )
                        WITH (
                           format = 'ORC'
                        )""");
    }
}
