package io.overdrive.cache.warmup;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.google.common.collect.ImmutableList;
import io.trino.spi.HostAddress;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;

import java.util.List;
import java.util.Optional;

import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * One split of the table {@code warm_cache} reads: the table scan's split (placed by soft affinity where the catalog
 * places splits, so that it runs on the worker that caches its file), with the table and the columns to read.
 */
public record WarmCacheSplit(ConnectorSplit split, ConnectorTableHandle table, List<ColumnHandle> columns)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(WarmCacheSplit.class);

    public WarmCacheSplit
    {
        requireNonNull(split, "split is null");
        requireNonNull(table, "table is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
    }

    @JsonIgnore
    @Override
    public boolean isRemotelyAccessible()
    {
        return split.isRemotelyAccessible();
    }

    @JsonIgnore
    @Override
    public List<HostAddress> getAddresses()
    {
        return split.getAddresses();
    }

    @JsonIgnore
    @Override
    public Optional<String> getAffinityKey()
    {
        return split.getAffinityKey();
    }

    @JsonIgnore
    @Override
    public SplitWeight getSplitWeight()
    {
        return split.getSplitWeight();
    }

    @JsonIgnore
    @Override
    public long getRetainedSizeInBytes()
    {
        // the table and column handles are shared by every split of the warm-up
        return INSTANCE_SIZE + split.getRetainedSizeInBytes();
    }
}
