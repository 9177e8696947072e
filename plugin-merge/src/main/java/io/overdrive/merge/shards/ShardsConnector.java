package io.overdrive.merge.shards;

import com.google.inject.Inject;
import io.airlift.bootstrap.LifeCycleManager;
import io.overdrive.merge.MergeEngine;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeOperators;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * An {@code overdrive_shards} catalog: read-only tables spread over many Trino clusters.
 */
public final class ShardsConnector
        implements Connector
{
    private final LifeCycleManager lifeCycleManager;
    private final ShardsRemote remote;
    private final ShardTopology topology;
    private final TypeManager typeManager;
    private final TypeOperators typeOperators;
    private final ShardsSplitManager splitManager;
    private final ShardsPageSourceProvider pageSourceProvider;
    private final ShardsSessionProperties sessionProperties;
    private final MergeEngine engine;

    @Inject
    public ShardsConnector(
            LifeCycleManager lifeCycleManager,
            ShardsRemote remote,
            ShardTopology topology,
            TypeManager typeManager,
            TypeOperators typeOperators,
            ShardsSplitManager splitManager,
            ShardsPageSourceProvider pageSourceProvider,
            ShardsSessionProperties sessionProperties,
            MergeEngine engine,
            ShardsJmx jmx)
    {
        // jmx: injected so that the catalog's MBeans are exported when it starts (and removed by the life cycle)
        this.lifeCycleManager = requireNonNull(lifeCycleManager, "lifeCycleManager is null");
        this.remote = requireNonNull(remote, "remote is null");
        this.topology = requireNonNull(topology, "topology is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.typeOperators = requireNonNull(typeOperators, "typeOperators is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.sessionProperties = requireNonNull(sessionProperties, "sessionProperties is null");
        this.engine = requireNonNull(engine, "engine is null");
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        return ShardsTransactionHandle.INSTANCE;
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transaction)
    {
        return new ShardsMetadata(remote, topology, typeManager, typeOperators);
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return pageSourceProvider;
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties.getSessionProperties();
    }

    @Override
    public void shutdown()
    {
        engine.close();
        lifeCycleManager.stop();
    }
}
