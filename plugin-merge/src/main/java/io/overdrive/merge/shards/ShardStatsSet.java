package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;

import java.util.Map;

/**
 * One {@link ShardStats} per shard of the catalog.
 */
public final class ShardStatsSet
{
    private final Map<Integer, ShardStats> byShard;

    @Inject
    public ShardStatsSet(ShardTopology topology)
    {
        ImmutableMap.Builder<Integer, ShardStats> stats = ImmutableMap.builder();
        topology.shards().forEach(shard -> stats.put(shard.number(), new ShardStats()));
        this.byShard = stats.buildOrThrow();
    }

    public ShardStats get(Shard shard)
    {
        return byShard.get(shard.number());
    }

    public Map<Integer, ShardStats> all()
    {
        return byShard;
    }
}
