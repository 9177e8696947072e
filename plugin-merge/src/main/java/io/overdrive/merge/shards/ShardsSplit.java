package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorSplit;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.instanceSize;

/**
 * The shards one split reads (by number): one shard for a plain scan, every shard for a merged TopN or aggregation.
 */
public record ShardsSplit(List<Integer> shards)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(ShardsSplit.class);

    public ShardsSplit
    {
        shards = ImmutableList.copyOf(shards);
        checkArgument(!shards.isEmpty(), "a split reads at least one shard");
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + shards.size() * 16L;
    }
}
