package io.overdrive.cache.connector;

import io.overdrive.cache.flush.FlushCacheHandle;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;

import java.util.Optional;

/**
 * The stock connector's metadata, every method forwarded, except what it cannot answer for Overdrive's own table
 * functions: the engine asks the catalog's metadata for the storage credentials of every table function it runs, and
 * Iceberg's refuses handles that are not its own. {@code flush_cache} reads no table's storage, so it needs none.
 */
final class OverdriveMetadata
        extends ClassLoaderSafeConnectorMetadata
{
    OverdriveMetadata(ConnectorMetadata delegate)
    {
        super(delegate, OverdriveMetadata.class.getClassLoader());
    }

    @Override
    public Optional<ConnectorTableCredentials> getTableCredentials(ConnectorSession session, ConnectorTableFunctionHandle tableFunctionHandle)
    {
        if (tableFunctionHandle instanceof FlushCacheHandle) {
            return Optional.empty();
        }
        return super.getTableCredentials(session, tableFunctionHandle);
    }
}
