package io.overdrive.cache.connector;

import io.overdrive.cache.flush.FlushCacheHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static io.trino.testing.connector.TestingConnectorSession.SESSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOverdriveMetadata
{
    // as Iceberg's metadata: its own table functions' credentials only
    private static final ConnectorMetadata ICEBERG_LIKE = new ConnectorMetadata()
    {
        @Override
        public Optional<ConnectorTableCredentials> getTableCredentials(ConnectorSession session, ConnectorTableFunctionHandle tableFunctionHandle)
        {
            throw new IllegalArgumentException("Unsupported ConnectorTableFunctionHandle type: " + tableFunctionHandle.getClass().getName());
        }
    };

    @Test
    void flushCacheNeedsNoStorageCredentials()
    {
        ConnectorMetadata metadata = new OverdriveMetadata(ICEBERG_LIKE);
        assertThat(metadata.getTableCredentials(SESSION, new FlushCacheHandle(true, List.of()))).isEmpty();
        // the stock connector's own table functions are still its own to answer
        assertThatThrownBy(() -> metadata.getTableCredentials(SESSION, new ConnectorTableFunctionHandle() {}))
                .hasMessageStartingWith("Unsupported ConnectorTableFunctionHandle type");
    }
}
