package io.overdrive.merge;

import io.overdrive.merge.shards.ShardsConnectorFactory;
import io.trino.spi.Plugin;
import io.trino.spi.connector.ConnectorFactory;

import java.util.List;

/**
 * Entry point Trino finds in {@code plugin/overdrive-merge/}: the {@code overdrive_shards} connector, which puts the
 * merge engine to work on tables spread over many Trino clusters.
 */
public class OverdriveMergePlugin
        implements Plugin
{
    @Override
    public Iterable<ConnectorFactory> getConnectorFactories()
    {
        return List.of(new ShardsConnectorFactory());
    }
}
