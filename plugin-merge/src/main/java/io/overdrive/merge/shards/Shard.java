package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One shard: its number (from 1, its position in {@code shards.uris}) and its replicas, the first being the one
 * queried first.
 */
public record Shard(int number, List<ShardUri> replicas)
{
    public Shard
    {
        checkArgument(number >= 1, "shard numbers start at 1");
        replicas = ImmutableList.copyOf(replicas);
        checkArgument(!replicas.isEmpty(), "a shard needs a replica");
    }

    public String describe()
    {
        return "shard %s (%s)".formatted(number, replicas.getFirst());
    }
}
