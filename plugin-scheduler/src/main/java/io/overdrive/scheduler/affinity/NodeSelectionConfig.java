package io.overdrive.scheduler.affinity;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.units.Duration;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Arrays;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Catalog properties of soft-affinity split placement ({@code node-selection*}).
 */
public class NodeSelectionConfig
{
    private NodeSelectionStrategy nodeSelectionStrategy = NodeSelectionStrategy.NO_PREFERENCE;
    private int preferredHostsCount = 1000;
    private AffinityGranularity affinityGranularity = AffinityGranularity.SPLIT;
    private double loadBalanceEpsilon = 0.15;
    private double loadFloor = 16;
    private Duration membershipRefreshInterval = new Duration(5, SECONDS);
    private Duration loadHalfLife = new Duration(2, SECONDS);

    // null only after an unknown name was set (see below), or null set directly
    @NotNull(message = "node-selection-strategy must be one of NO_PREFERENCE, SOFT_AFFINITY, HARD_AFFINITY")
    public NodeSelectionStrategy getNodeSelectionStrategy()
    {
        return nodeSelectionStrategy;
    }

    // String setters for the enums, so that an unknown name fails validation with the allowed values: Airlift's enum
    // coercion does not list them, and it reports an exception thrown by a setter without its message or the property
    @Config("node-selection-strategy")
    @ConfigDescription("NO_PREFERENCE (the engine places splits, as in stock Hive), SOFT_AFFINITY (preferred workers within a bounded load) or HARD_AFFINITY (first live preferred worker)")
    public NodeSelectionConfig setNodeSelectionStrategy(String nodeSelectionStrategy)
    {
        return setNodeSelectionStrategy(fromName(NodeSelectionStrategy.class, nodeSelectionStrategy));
    }

    public NodeSelectionConfig setNodeSelectionStrategy(NodeSelectionStrategy nodeSelectionStrategy)
    {
        this.nodeSelectionStrategy = nodeSelectionStrategy;
        return this;
    }

    @Min(value = 1, message = "node-selection.preferred-hosts-count must be at least 1 (the preferred worker itself), e.g. 1000 to let every worker a file's splits reach cache it")
    public int getPreferredHostsCount()
    {
        return preferredHostsCount;
    }

    @Config("node-selection.preferred-hosts-count")
    @ConfigDescription("SOFT_AFFINITY: the first workers of a file's rendezvous order that cache its pages; a split that overflows past them under the load bound reads through")
    public NodeSelectionConfig setPreferredHostsCount(int preferredHostsCount)
    {
        this.preferredHostsCount = preferredHostsCount;
        return this;
    }

    @NotNull(message = "node-selection.affinity-granularity must be one of FILE, SPLIT")
    public AffinityGranularity getAffinityGranularity()
    {
        return affinityGranularity;
    }

    @Config("node-selection.affinity-granularity")
    @ConfigDescription("FILE: all splits of a file prefer the same workers; SPLIT: each split range of a file has its own preferred workers")
    public NodeSelectionConfig setAffinityGranularity(String affinityGranularity)
    {
        return setAffinityGranularity(fromName(AffinityGranularity.class, affinityGranularity));
    }

    public NodeSelectionConfig setAffinityGranularity(AffinityGranularity affinityGranularity)
    {
        this.affinityGranularity = affinityGranularity;
        return this;
    }

    @DecimalMin(value = "0", inclusive = false, message = "node-selection.load-balance-epsilon must be greater than 0, e.g. 0.25 to let a worker take up to 1.25 times the average of the catalog's recently placed split weight")
    @DecimalMax(value = "100", message = "node-selection.load-balance-epsilon must be at most 100; a larger value no longer bounds the load")
    public double getLoadBalanceEpsilon()
    {
        return loadBalanceEpsilon;
    }

    @Config("node-selection.load-balance-epsilon")
    @ConfigDescription("SOFT_AFFINITY: no worker takes a split while its recently placed split weight (all queries of the catalog) is at or above (1 + epsilon) times the average; smaller balances better, larger keeps more splits on preferred workers")
    public NodeSelectionConfig setLoadBalanceEpsilon(double loadBalanceEpsilon)
    {
        this.loadBalanceEpsilon = loadBalanceEpsilon;
        return this;
    }

    @DecimalMin(value = "0", message = "node-selection.load-floor must be at least 0 (0: the load bound applies from the first split), e.g. 16")
    @DecimalMax(value = "1000000", message = "node-selection.load-floor must be at most 1000000 standard splits; a larger value no longer bounds the load")
    public double getLoadFloor()
    {
        return loadFloor;
    }

    @Config("node-selection.load-floor")
    @ConfigDescription("SOFT_AFFINITY: a worker whose recently placed split weight is below this many standard splits takes its splits whatever the other workers' loads; the load bound applies above it (the engine's node-scheduler.min-pending-splits-per-task is 16)")
    public NodeSelectionConfig setLoadFloor(double loadFloor)
    {
        this.loadFloor = loadFloor;
        return this;
    }

    @NotNull(message = "node-selection.membership-refresh-interval must be set, e.g. 5s")
    @MinDuration(value = "100ms", message = "node-selection.membership-refresh-interval must be at least 100ms")
    @MaxDuration(value = "1m", message = "node-selection.membership-refresh-interval must be at most 1m, or joining and leaving workers are noticed too late")
    public Duration getMembershipRefreshInterval()
    {
        return membershipRefreshInterval;
    }

    @Config("node-selection.membership-refresh-interval")
    @ConfigDescription("How often the list of live workers that preferences are computed over is refreshed")
    public NodeSelectionConfig setMembershipRefreshInterval(Duration membershipRefreshInterval)
    {
        this.membershipRefreshInterval = membershipRefreshInterval;
        return this;
    }

    @NotNull(message = "node-selection.load-half-life must be set, e.g. 2s")
    @MinDuration(value = "100ms", message = "node-selection.load-half-life must be at least 100ms, or placements are forgotten before their splits run")
    @MaxDuration(value = "1h", message = "node-selection.load-half-life must be at most 1h, or the load of long-finished queries keeps pushing splits off their preferred workers")
    public Duration getLoadHalfLife()
    {
        return loadHalfLife;
    }

    @Config("node-selection.load-half-life")
    @ConfigDescription("SOFT_AFFINITY: the load bound counts the split weight placed on each worker by every query of the catalog, weight placed this long ago counting half")
    public NodeSelectionConfig setLoadHalfLife(Duration loadHalfLife)
    {
        this.loadHalfLife = loadHalfLife;
        return this;
    }

    /** Case-insensitive, '-' for '_', as Airlift's own enum coercion; null for an unknown name. */
    private static <E extends Enum<E>> E fromName(Class<E> type, String name)
    {
        requireNonNull(name, "name is null");
        return Arrays.stream(type.getEnumConstants())
                .filter(constant -> constant.name().equalsIgnoreCase(name.strip().replace('-', '_')))
                .findFirst()
                .orElse(null);
    }
}
