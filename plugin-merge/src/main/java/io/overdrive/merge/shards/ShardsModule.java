package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.type.TypeOperators;
import org.weakref.jmx.MBeanExporter;

import java.util.Map;

import static io.airlift.configuration.ConfigBinder.configBinder;
import static java.util.Objects.requireNonNull;

/**
 * Guice bindings of one shards catalog; {@code replicaProperties} are the catalog's {@code shards.replicas.<n>}.
 */
public final class ShardsModule
        implements Module
{
    private final String catalogName;
    private final Map<String, String> replicaProperties;

    public ShardsModule(String catalogName, Map<String, String> replicaProperties)
    {
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.replicaProperties = ImmutableMap.copyOf(requireNonNull(replicaProperties, "replicaProperties is null"));
    }

    @Override
    public void configure(Binder binder)
    {
        configBinder(binder).bindConfig(ShardsConfig.class);
        configBinder(binder).bindConfig(MergeConfig.class);
        binder.bind(ShardClient.class).in(Scopes.SINGLETON);
        binder.bind(ShardsRemote.class).in(Scopes.SINGLETON);
        binder.bind(ShardsStats.class).in(Scopes.SINGLETON);
        binder.bind(ShardStatsSet.class).in(Scopes.SINGLETON);
        binder.bind(MergeStats.class).in(Scopes.SINGLETON);
        binder.bind(ShardsSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(ShardsPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(ShardsSessionProperties.class).in(Scopes.SINGLETON);
        binder.bind(ShardsConnector.class).in(Scopes.SINGLETON);
    }

    @Provides
    @Singleton
    public ShardTopology topology(ShardsConfig config)
    {
        ShardTopology topology = ShardTopology.create(config.getUris(), replicaProperties);
        if (config.getPassword().isPresent()) {
            topology.requireHttps();
        }
        return topology;
    }

    @Provides
    @Singleton
    public ShardsJmx jmx(ShardsStats stats, ShardStatsSet shardStats, MergeStats mergeStats)
    {
        return new ShardsJmx(MBeanExporter.withPlatformMBeanServer(), catalogName, stats, shardStats, mergeStats);
    }

    // each catalog merges on its own pool, sized by its merge.* properties
    @Provides
    @Singleton
    public MergeEngine mergeEngine(MergeConfig config, MergeStats stats, TypeOperators typeOperators)
    {
        return new MergeEngine(config, stats, typeOperators);
    }
}
