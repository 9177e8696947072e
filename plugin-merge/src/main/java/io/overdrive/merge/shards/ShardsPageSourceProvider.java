package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.combine.CombineStep;
import io.overdrive.merge.shards.ShardsTableHandle.SortColumn;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static java.util.Objects.requireNonNull;

/**
 * Opens a split: a plain scan of one shard, or every shard's sorted TopN or partial aggregation merged by the engine.
 */
public final class ShardsPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final ShardClient client;
    private final ShardTopology topology;
    private final ShardsConfig config;
    private final MergeEngine engine;
    private final ShardsStats stats;
    private final ShardStatsSet shardStats;

    @Inject
    public ShardsPageSourceProvider(ShardClient client, ShardTopology topology, ShardsConfig config, MergeEngine engine, ShardsStats stats, ShardStatsSet shardStats)
    {
        this.client = requireNonNull(client, "client is null");
        this.topology = requireNonNull(topology, "topology is null");
        this.config = requireNonNull(config, "config is null");
        this.engine = requireNonNull(engine, "engine is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.shardStats = requireNonNull(shardStats, "shardStats is null");
    }

    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            Optional<ConnectorTableCredentials> tableCredentials,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter)
    {
        ShardsSplit shardsSplit = (ShardsSplit) split;
        ShardsTableHandle handle = (ShardsTableHandle) table;
        List<ShardsColumnHandle> requested = columns.stream().map(ShardsColumnHandle.class::cast).toList();
        for (ShardsColumnHandle column : requested) {
            if (!ShardValues.isReadable(column.type())) {
                throw new TrinoException(NOT_SUPPORTED, "Column '%s' of %s has type %s, whose values a shards catalog cannot read".formatted(column.name(), handle.table(), column.type().getDisplayName()));
            }
        }
        if (handle.aggregation().isPresent()) {
            return aggregation(session, shardsSplit, handle, requested);
        }
        if (handle.topN().isPresent()) {
            return topN(session, shardsSplit, handle, requested);
        }
        Shard shard = topology.shards().get(shardsSplit.shards().getFirst() - 1);
        List<Type> types = requested.isEmpty() ? List.of(BOOLEAN) : requested.stream().map(ShardsColumnHandle::type).toList();
        String sql = ShardSql.select(shard.replicas().getFirst().catalog(), handle, requested);
        ShardQuery query = query(session, shard, sql, types);
        query.start();
        return ShardsPageSource.scan(query, requested.isEmpty() ? new int[0] : identity(requested.size()), stats);
    }

    private ConnectorPageSource topN(ConnectorSession session, ShardsSplit split, ShardsTableHandle handle, List<ShardsColumnHandle> requested)
    {
        // the shards also return the sort columns the query did not ask for: the merge needs them
        List<ShardsColumnHandle> selected = new ArrayList<>(requested);
        List<SortKey> sortKeys = new ArrayList<>();
        for (SortColumn sortColumn : handle.topN().orElseThrow()) {
            int channel = selected.indexOf(sortColumn.column());
            if (channel < 0) {
                channel = selected.size();
                selected.add(sortColumn.column());
            }
            sortKeys.add(new SortKey(channel, sortColumn.order()));
        }
        List<Type> types = selected.stream().map(ShardsColumnHandle::type).toList();
        List<ShardQuery> queries = startAll(session, split, types, catalog -> ShardSql.select(catalog, handle, selected));
        MergeRequest request = MergeRequest.builder(types, sortKeys)
                .sources(queries)
                .limit(handle.limit().orElseThrow())
                .parallelism(ShardsSessionProperties.getMergeParallelism(session))
                .build();
        return ShardsPageSource.merged(engine.merge(request), queries, identity(requested.size()), stats);
    }

    private ConnectorPageSource aggregation(ConnectorSession session, ShardsSplit split, ShardsTableHandle handle, List<ShardsColumnHandle> requested)
    {
        ShardsTableHandle.Aggregation aggregation = handle.aggregation().orElseThrow();
        // each shard's row: the group keys (or one constant key), then each aggregate's partial state
        List<Type> types = new ArrayList<>();
        List<SortKey> sortKeys = new ArrayList<>();
        if (aggregation.groupKeys().isEmpty()) {
            types.add(BIGINT);
            sortKeys.add(SortKey.ascending(0));
        }
        for (ShardsColumnHandle key : aggregation.groupKeys()) {
            sortKeys.add(SortKey.ascending(types.size()));
            types.add(key.type());
        }
        int keyCount = types.size();
        List<Aggregation> combines = new ArrayList<>();
        for (PushedAggregate aggregate : aggregation.aggregates()) {
            combines.add(aggregate.combine(types.size()));
            types.addAll(aggregate.stateTypes());
        }
        List<ShardQuery> queries = startAll(session, split, types, catalog -> ShardSql.aggregate(catalog, handle));
        MergeRequest request = MergeRequest.builder(types, sortKeys)
                .sources(queries)
                .combine(new CombineSpec(combines, CombineStep.FINAL))
                .parallelism(ShardsSessionProperties.getMergeParallelism(session))
                .build();
        // the merge's output: the sort keys, then one final value per aggregate
        int[] output = new int[requested.size()];
        for (int i = 0; i < output.length; i++) {
            ShardsColumnHandle column = requested.get(i);
            int key = aggregation.groupKeys().indexOf(column);
            output[i] = key >= 0 ? key : keyCount + aggregateIndex(aggregation, column);
        }
        return ShardsPageSource.merged(engine.merge(request), queries, output, stats);
    }

    private static int[] identity(int channels)
    {
        int[] identity = new int[channels];
        for (int i = 0; i < channels; i++) {
            identity[i] = i;
        }
        return identity;
    }

    private static int aggregateIndex(ShardsTableHandle.Aggregation aggregation, ShardsColumnHandle column)
    {
        for (int i = 0; i < aggregation.aggregates().size(); i++) {
            if (aggregation.aggregates().get(i).output().equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException("Not an output of the pushed aggregation: " + column);
    }

    private List<ShardQuery> startAll(ConnectorSession session, ShardsSplit split, List<Type> types, Function<String, String> sqlForCatalog)
    {
        ImmutableList.Builder<ShardQuery> queries = ImmutableList.builder();
        for (int number : split.shards()) {
            Shard shard = topology.shards().get(number - 1);
            ShardQuery query = query(session, shard, sqlForCatalog.apply(shard.replicas().getFirst().catalog()), types);
            query.start();
            queries.add(query);
        }
        return queries.build();
    }

    private ShardQuery query(ConnectorSession session, Shard shard, String sql, List<Type> types)
    {
        return ShardQuery.create(client, shard, session, sql, types, config, config.getFailurePolicy(), stats, shardStats.get(shard));
    }
}
