package io.overdrive.cache.warmup;

import com.google.common.collect.ImmutableList;
import io.trino.plugin.hive.HiveColumnHandle;
import io.trino.plugin.hive.HiveSplit;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.connector.SchemaTableName;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static io.trino.plugin.hive.HiveColumnHandle.ColumnType.REGULAR;
import static io.trino.spi.StandardErrorCode.NOT_FOUND;
import static java.util.Objects.requireNonNull;

/**
 * The splits of a {@code warm_cache}: the table scan's own splits from Hive's split manager, of the partitions asked
 * for, placed as the catalog places a scan's splits, each carrying the table and the columns to read.
 */
public final class WarmCacheSplits
{
    private WarmCacheSplits() {}

    /**
     * @param placement places the scan's splits as the catalog places a query's (soft affinity), or leaves them
     */
    public static ConnectorSplitSource splits(
            ConnectorMetadata metadata,
            ConnectorSplitManager hiveSplits,
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            WarmCacheHandle handle,
            UnaryOperator<ConnectorSplitSource> placement)
    {
        SchemaTableName name = new SchemaTableName(handle.schema(), handle.table());
        ConnectorTableHandle table = metadata.getTableHandle(session, name, Optional.empty(), Optional.empty());
        if (table == null) {
            throw new TrinoException(NOT_FOUND, "warm_cache: table %s no longer exists".formatted(name));
        }
        List<ColumnHandle> columns = columns(metadata.getColumnHandles(session, table), handle.columns(), name);
        ConnectorSplitSource scan = hiveSplits.getSplits(transaction, session, table, Set.of(), Constraint.alwaysTrue());
        ConnectorSplitSource partitions = new MappedSplitSource(scan, splits -> splits.stream()
                .filter(split -> !(split instanceof HiveSplit hiveSplit) || handle.readsPartition(hiveSplit.getPartitionName()))
                .toList());
        return new MappedSplitSource(placement.apply(partitions), splits -> splits.stream()
                .<ConnectorSplit>map(split -> new WarmCacheSplit(split, table, columns))
                .toList());
    }

    // the columns named, in the order named; none named: every column stored in the files
    private static List<ColumnHandle> columns(Map<String, ColumnHandle> handles, List<String> names, SchemaTableName table)
    {
        if (names.isEmpty()) {
            return handles.values().stream()
                    .filter(handle -> ((HiveColumnHandle) handle).getColumnType() == REGULAR)
                    .sorted(Comparator.comparingInt(handle -> ((HiveColumnHandle) handle).getBaseHiveColumnIndex()))
                    .collect(ImmutableList.toImmutableList());
        }
        ImmutableList.Builder<ColumnHandle> columns = ImmutableList.builder();
        for (String name : names) {
            ColumnHandle column = handles.get(name);
            if (column == null) {
                throw new TrinoException(NOT_FOUND, "warm_cache: column %s of %s no longer exists".formatted(name, table));
            }
            columns.add(column);
        }
        return columns.build();
    }

    // the scan's splits, changed batch by batch
    private record MappedSplitSource(ConnectorSplitSource delegate, Function<List<ConnectorSplit>, List<ConnectorSplit>> mapping)
            implements ConnectorSplitSource
    {
        MappedSplitSource
        {
            requireNonNull(delegate, "delegate is null");
            requireNonNull(mapping, "mapping is null");
        }

        @Override
        public CompletableFuture<List<ConnectorSplit>> getNextBatch(int maxSize, DynamicFilterSnapshot dynamicFilterSnapshot)
        {
            return delegate.getNextBatch(maxSize, dynamicFilterSnapshot).thenApply(mapping);
        }

        @Override
        public void close()
        {
            delegate.close();
        }

        @Override
        public boolean isFinished()
        {
            return delegate.isFinished();
        }
    }
}
