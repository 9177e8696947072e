package io.overdrive.cache.placement;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.google.common.collect.ImmutableList;
import io.trino.spi.HostAddress;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;

import java.util.List;
import java.util.Optional;

import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * A table scan's split (Hive's or Iceberg's) placed by Overdrive's soft affinity: the worker it was given to, and whether that worker is one of the
 * file's preferred workers, which is what decides on the worker whether its pages are cached (a Trino 483 worker
 * cannot list the cluster's nodes, so it could not work that out itself).
 */
public final class OverdriveSplit
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(OverdriveSplit.class);

    private final ConnectorSplit split;
    private final List<HostAddress> addresses;
    private final boolean cacheable;
    private final List<HostAddress> peers;

    public OverdriveSplit(ConnectorSplit split, List<HostAddress> addresses, boolean cacheable)
    {
        this(split, addresses, cacheable, List.of());
    }

    /**
     * @param peers the workers (Trino's addresses) that the split's worker asks for the file's pages it does not cache,
     * before storage (peer reads, {@code cache.peer.*})
     */
    @JsonCreator
    public OverdriveSplit(
            @JsonProperty("split") ConnectorSplit split,
            @JsonProperty("placedOn") List<HostAddress> addresses,
            @JsonProperty("cacheable") boolean cacheable,
            @JsonProperty("peers") List<HostAddress> peers)
    {
        this.split = requireNonNull(split, "split is null");
        this.addresses = ImmutableList.copyOf(requireNonNull(addresses, "addresses is null"));
        this.cacheable = cacheable;
        this.peers = ImmutableList.copyOf(requireNonNull(peers, "peers is null"));
    }

    @JsonProperty
    public ConnectorSplit getSplit()
    {
        return split;
    }

    @JsonProperty("placedOn")
    public List<HostAddress> placedOn()
    {
        return addresses;
    }

    @JsonProperty
    public boolean isCacheable()
    {
        return cacheable;
    }

    @JsonProperty
    public List<HostAddress> getPeers()
    {
        return peers;
    }

    // the engine reads these on the coordinator only; they are not part of the wire form
    @JsonIgnore
    @Override
    public boolean isRemotelyAccessible()
    {
        // another worker may still run it if the chosen one is gone: placement is a preference, never a failure
        return true;
    }

    @JsonIgnore
    @Override
    public List<HostAddress> getAddresses()
    {
        return addresses;
    }

    @JsonIgnore
    @Override
    public Optional<String> getAffinityKey()
    {
        // the address is already chosen; an affinity key would make the engine choose again
        return Optional.empty();
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
        return INSTANCE_SIZE + split.getRetainedSizeInBytes() + addresses.stream().mapToLong(HostAddress::getRetainedSizeInBytes).sum()
                + peers.stream().mapToLong(HostAddress::getRetainedSizeInBytes).sum();
    }

    @Override
    public String toString()
    {
        return "OverdriveSplit{%s on %s, cacheable=%s, peers=%s}".formatted(split, addresses, cacheable, peers);
    }
}
