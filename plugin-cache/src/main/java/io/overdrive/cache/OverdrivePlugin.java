package io.overdrive.cache;

import com.google.common.collect.ImmutableList;
import io.overdrive.cache.connector.OverdriveHiveConnectorFactory;
import io.overdrive.cache.iceberg.OverdriveIcebergConnectorFactory;
import io.trino.spi.Plugin;
import io.trino.spi.connector.ConnectorFactory;

/**
 * Entry point Trino finds through {@code META-INF/services/io.trino.spi.Plugin} in {@code plugin/overdrive-cache/}.
 */
public class OverdrivePlugin
        implements Plugin
{
    @Override
    public Iterable<ConnectorFactory> getConnectorFactories()
    {
        return ImmutableList.of(new OverdriveHiveConnectorFactory(), new OverdriveIcebergConnectorFactory());
    }
}
