package io.overdrive.cache.connector;

import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.TypeLiteral;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.OverdriveModule;
import io.overdrive.cache.flush.FlushCacheFunctionProvider;
import io.overdrive.cache.flush.FlushCacheTableFunction;
import io.overdrive.cache.stats.PageCacheStats;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.config.NodeSelectionConfig;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.plugin.hive.HiveConnector;
import io.trino.plugin.hive.HiveConnectorFactory;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Builds Trino's own Hive connector ({@link HiveConnectorFactory#createConnector}) with Overdrive's Guice module
 * installed last, so that with only {@code hive.*} / {@code fs.*} properties the catalog behaves exactly like
 * {@code connector.name=hive}.
 */
public class OverdriveHiveConnectorFactory
        implements ConnectorFactory
{
    public static final String CONNECTOR_NAME = "overdrive_hive";

    private final OverdriveBuildInfo buildInfo;

    public OverdriveHiveConnectorFactory()
    {
        this(OverdriveBuildInfo.load());
    }

    OverdriveHiveConnectorFactory(OverdriveBuildInfo buildInfo)
    {
        this.buildInfo = requireNonNull(buildInfo, "buildInfo is null");
    }

    @Override
    public String getName()
    {
        return CONNECTOR_NAME;
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
    {
        requireNonNull(catalogName, "catalogName is null");
        requireNonNull(config, "config is null");
        requireNonNull(context, "context is null");
        // the stock factory checks this in create(); createConnector() does not, so a mismatched install would
        // otherwise fail later with linkage errors deep inside the Hive connector
        checkSpiVersion(context.getSpiVersion());
        Connector hive = HiveConnectorFactory.createConnector(
                catalogName,
                config,
                context,
                () -> overdriveModule(context),
                Optional.empty(),
                false,
                Optional.empty());
        Injector injector = ((HiveConnector) hive).getInjector();
        Supplier<Optional<OverdriveFileSystemCache>> cache = () -> injector.getInstance(Key.get(new TypeLiteral<Optional<TrinoFileSystemCache>>() {}))
                .filter(OverdriveFileSystemCache.class::isInstance)
                .map(OverdriveFileSystemCache.class::cast);
        return new OverdriveConnector(
                hive,
                new CacheContextPageSourceProvider(hive.getPageSourceProvider()),
                new OverdriveSplitManager(
                        hive.getSplitManager(),
                        context.getNodeManager(),
                        context.getCurrentNode().isCoordinator() ? Optional.of(injector.getInstance(SplitPlacerFactory.class)) : Optional.empty(),
                        injector.getInstance(NodeSelectionConfig.class).getAffinityGranularity()),
                Set.of(new FlushCacheTableFunction(injector.getInstance(HiveMetastoreFactory.class))),
                new FlushCacheFunctionProvider(
                        () -> cache.get().map(OverdriveFileSystemCache::pageCache),
                        () -> cache.get().map(_ -> injector.getInstance(PageCacheStats.class))));
    }

    void checkSpiVersion(String serverSpiVersion)
    {
        if (!buildInfo.trinoSpiVersion().equals(serverSpiVersion)) {
            throw new IllegalStateException((
                    "Overdrive %s (connector %s) was built for Trino SPI version %s, but this server runs Trino SPI version %s. " +
                            "Install the Overdrive release built for Trino %s, or run it on Trino %s.")
                    .formatted(buildInfo.overdriveVersion(), CONNECTOR_NAME, buildInfo.trinoSpiVersion(), serverSpiVersion, serverSpiVersion, buildInfo.trinoSpiVersion()));
        }
    }

    // Overdrive's features, installed last, after every Hive module
    private static Module overdriveModule(ConnectorContext context)
    {
        return new OverdriveModule(context.getCurrentNode().isCoordinator());
    }
}
