package io.overdrive.cache.warmup;

import io.overdrive.cache.page.PageCacheConfig;
import io.trino.metastore.HiveMetastore;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.spi.TrinoException;
import io.trino.spi.security.ConnectorIdentity;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestWarmCacheTableFunction
{
    private static final HiveMetastoreFactory UNTOUCHABLE = new HiveMetastoreFactory()
    {
        @Override
        public boolean isImpersonationEnabled()
        {
            return false;
        }

        @Override
        public HiveMetastore createMetastore(Optional<ConnectorIdentity> identity)
        {
            throw new AssertionError("the metastore is not asked");
        }
    };

    @Test
    void catalogWithoutCacheRefusesBeforeReadingAnything()
    {
        WarmCacheTableFunction function = new WarmCacheTableFunction(UNTOUCHABLE, new PageCacheConfig().setEnabled(false));
        assertThatThrownBy(() -> function.analyze(TestingConnectorSession.SESSION, null, Map.of(), null))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NOT_SUPPORTED.toErrorCode()))
                .hasMessage("warm_cache: this catalog has no page cache to warm (cache.enabled=false)");
    }

    @Test
    void schemaAndTableAreRequiredAndTheRestHaveDefaults()
    {
        WarmCacheTableFunction function = new WarmCacheTableFunction(UNTOUCHABLE, new PageCacheConfig());
        assertThat(function.getSchema()).isEqualTo("system");
        assertThat(function.getName()).isEqualTo("warm_cache");
        assertThat(function.getArguments()).extracting(argument -> argument.getName()).containsExactly("SCHEMA_NAME", "TABLE_NAME", "COLUMNS", "PARTITIONS");
        assertThat(function.getArguments()).extracting(argument -> argument.isRequired()).containsExactly(true, true, false, false);
    }
}
