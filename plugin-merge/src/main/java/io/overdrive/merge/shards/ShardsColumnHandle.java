package io.overdrive.merge.shards;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;

import static java.util.Objects.requireNonNull;

/**
 * A column of a shards table (the same name and type on every shard), or one output of an aggregation pushed down to
 * the shards (then {@code name} is synthetic and never sent to a shard).
 */
public record ShardsColumnHandle(String name, Type type)
        implements ColumnHandle
{
    public ShardsColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
    }

    @Override
    public String toString()
    {
        return name + ":" + type;
    }

    public ColumnMetadata toColumnMetadata()
    {
        return new ColumnMetadata(name, type);
    }
}
