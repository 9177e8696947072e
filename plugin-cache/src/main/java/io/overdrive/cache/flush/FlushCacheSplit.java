package io.overdrive.cache.flush;

import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorSplit;

import java.util.List;

import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/** One worker's share of a flush: pinned to that worker, since only it can empty its disks. */
public record FlushCacheSplit(String nodeId, HostAddress address)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(FlushCacheSplit.class);

    public FlushCacheSplit
    {
        requireNonNull(nodeId, "nodeId is null");
        requireNonNull(address, "address is null");
    }

    @Override
    public boolean isRemotelyAccessible()
    {
        return false;
    }

    @Override
    public List<HostAddress> getAddresses()
    {
        return List.of(address);
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + estimatedSizeOf(nodeId) + address.getRetainedSizeInBytes();
    }
}
