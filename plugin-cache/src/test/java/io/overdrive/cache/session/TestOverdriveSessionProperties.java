package io.overdrive.cache.session;

import io.overdrive.cache.session.ReadOptions.Populate;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOverdriveSessionProperties
{
    @Test
    void sessionPropertiesReachTheReadPath()
    {
        ConnectorSession session = TestingConnectorSession.builder()
                .setPropertyMetadata(OverdriveSessionProperties.properties())
                .setPropertyValues(Map.of("cache_populate", "ALWAYS", "hedged_reads_enabled", false, "soft_affinity_enabled", false))
                .build();
        assertThat(OverdriveSessionProperties.readOptions(session)).isEqualTo(new ReadOptions(true, Populate.ALWAYS, false, true));
        assertThat(OverdriveSessionProperties.isSoftAffinityEnabled(session)).isFalse();
    }

    // the engine's session for a catalog's system tables (Iceberg's $files) carries none of the catalog's properties
    @Test
    void sessionWithoutTheCatalogsPropertiesReadsWithTheDefaults()
    {
        ConnectorSession session = TestingConnectorSession.builder().build();
        assertThatThrownBy(() -> session.getProperty("cache_enabled", Boolean.class))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_SESSION_PROPERTY.toErrorCode()));
        assertThat(OverdriveSessionProperties.readOptions(session)).isEqualTo(ReadOptions.DEFAULT);
        assertThat(OverdriveSessionProperties.isSoftAffinityEnabled(session)).isTrue();
    }
}
