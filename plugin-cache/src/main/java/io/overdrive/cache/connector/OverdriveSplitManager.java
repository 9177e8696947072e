package io.overdrive.cache.connector;

import io.overdrive.cache.flush.FlushCacheHandle;
import io.overdrive.cache.flush.FlushCacheSplit;
import io.overdrive.cache.placement.SoftAffinitySplitSource;
import io.overdrive.cache.session.OverdriveSessionProperties;
import io.overdrive.cache.warmup.WarmCacheHandle;
import io.overdrive.cache.warmup.WarmCacheSplits;
import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.WorkerLoads;
import io.trino.spi.Node;
import io.trino.spi.NodeManager;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

import static java.util.Objects.requireNonNull;

/**
 * The table format's split manager (Hive's, Iceberg's) for table scans, with each split placed by soft affinity when
 * {@code node-selection-strategy} asks for it; Overdrive's own splits for its table functions ({@code flush_cache}: one split
 * pinned to each node that runs splits; {@code warm_cache}: the table's own splits, placed as a scan's).
 */
public class OverdriveSplitManager
        implements ConnectorSplitManager
{
    private final ConnectorSplitManager delegate;
    private final TableFormat format;
    private final BiFunction<ConnectorSession, ConnectorTransactionHandle, ConnectorMetadata> metadata;
    private final NodeManager nodeManager;
    private final Optional<SplitPlacerFactory> placerFactory;
    private final AffinityGranularity granularity;

    /**
     * @param format which file each of the delegate's splits reads, for placement
     * @param metadata the connector's metadata in a transaction, for the table {@code warm_cache} reads
     */
    public OverdriveSplitManager(
            ConnectorSplitManager delegate,
            TableFormat format,
            BiFunction<ConnectorSession, ConnectorTransactionHandle, ConnectorMetadata> metadata,
            NodeManager nodeManager,
            Optional<SplitPlacerFactory> placerFactory,
            AffinityGranularity granularity)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.format = requireNonNull(format, "format is null");
        this.metadata = requireNonNull(metadata, "metadata is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
        this.placerFactory = requireNonNull(placerFactory, "placerFactory is null");
        this.granularity = requireNonNull(granularity, "granularity is null");
    }

    @Override
    public ConnectorSplitSource getSplits(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableHandle table, Set<ColumnHandle> dynamicFilterColumns, Constraint constraint)
    {
        return place(session, delegate.getSplits(transaction, session, table, dynamicFilterColumns, constraint));
    }

    // a scan's splits placed by soft affinity, where the catalog and the session ask for it
    private ConnectorSplitSource place(ConnectorSession session, ConnectorSplitSource splits)
    {
        if (!OverdriveSessionProperties.isSoftAffinityEnabled(session)) {
            // soft_affinity_enabled=false: as NO_PREFERENCE, for this query only
            return splits;
        }
        // NO_PREFERENCE: no placer, the splits exactly as the connector makes them
        return placerFactory.flatMap(factory -> factory.createPlacer(WorkerLoads.UNKNOWN))
                .<ConnectorSplitSource>map(placer -> new SoftAffinitySplitSource(splits, format::placeable, placer, granularity))
                .orElse(splits);
    }

    @Override
    public ConnectorSplitSource getSplits(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableFunctionHandle function)
    {
        if (function instanceof FlushCacheHandle) {
            // every node that runs splits has a cache to empty: the coordinator too with node-scheduler.include-coordinator=true
            List<ConnectorSplit> splits = nodeManager.getWorkerNodes().stream()
                    .sorted(Comparator.comparing(Node::getNodeIdentifier))
                    .<ConnectorSplit>map(node -> new FlushCacheSplit(node.getNodeIdentifier(), node.getHostAndPort()))
                    .toList();
            return new FixedSplitSource(splits);
        }
        if (function instanceof WarmCacheHandle warmCache) {
            // the table's own splits, placed as a query's scan of it would be
            return WarmCacheSplits.splits(metadata.apply(session, transaction), delegate, transaction, session, warmCache, splits -> place(session, splits));
        }
        return delegate.getSplits(transaction, session, function);
    }
}
