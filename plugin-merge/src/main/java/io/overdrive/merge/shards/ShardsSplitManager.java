package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;

import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One split per shard for a plain scan (Trino reads the shards in parallel); one split over every shard when their
 * sorted results are merged (TopN, aggregations).
 */
public final class ShardsSplitManager
        implements ConnectorSplitManager
{
    private final ShardTopology topology;

    @Inject
    public ShardsSplitManager(ShardTopology topology)
    {
        this.topology = requireNonNull(topology, "topology is null");
    }

    @Override
    public ConnectorSplitSource getSplits(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableHandle table, Set<ColumnHandle> dynamicFilterColumns, Constraint constraint)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        ImmutableList<Integer> all = topology.shards().stream().map(Shard::number).collect(ImmutableList.toImmutableList());
        if (handle.isMerged()) {
            return new FixedSplitSource(ImmutableList.of(new ShardsSplit(all)));
        }
        return new FixedSplitSource(all.stream().<ConnectorSplit>map(number -> new ShardsSplit(ImmutableList.of(number))).toList());
    }
}
