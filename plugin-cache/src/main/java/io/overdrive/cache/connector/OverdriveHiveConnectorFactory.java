package io.overdrive.cache.connector;

import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import io.airlift.log.Logger;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.OverdriveModule;
import io.overdrive.cache.coordinator.CoordinatorCacheStats;
import io.overdrive.cache.hedge.HedgedReadStats;
import io.overdrive.cache.hedge.NativeHdfsHedging;
import io.overdrive.cache.inspection.CacheDirectoriesTable;
import io.overdrive.cache.inspection.CacheMetricsTable;
import io.overdrive.cache.inspection.CachedTablesTable;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.scan.SharedScanStats;
import io.overdrive.cache.warmup.WarmCacheProcessorProvider;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.plugin.hive.HiveConnector;
import io.trino.plugin.hive.HiveConnectorFactory;
import io.trino.spi.Node;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.connector.SystemTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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

    private static final Logger log = Logger.get(OverdriveHiveConnectorFactory.class);

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
        boolean coordinator = context.getCurrentNode().isCoordinator();
        boolean runsSplits = runsSplits(context);
        Connector hive = HiveConnectorFactory.createConnector(
                catalogName,
                // HDFS's own hedged reads are configured before HDFS starts, in HDFS's own configuration
                NativeHdfsHedging.configure(catalogName, config),
                context,
                // Overdrive's features, installed last, after every Hive module
                () -> new OverdriveModule(coordinator, runsSplits),
                Optional.empty(),
                false,
                Optional.empty());
        Injector injector = ((HiveConnector) hive).getInjector();
        OverdriveFeatures features = injector.getInstance(OverdriveFeatures.class);
        if (runsSplits) {
            NativeHdfsHedging.exportCounters(injector);
        }
        if (coordinator) {
            logCoordinatorRole(catalogName, runsSplits, features.pageCache().isEnabled(), injector.getExistingBinding(Key.get(CoordinatorCacheStats.class)) != null);
        }
        CacheContextPageSourceProvider pageSources = new CacheContextPageSourceProvider(hive.getPageSourceProvider(), context.getCurrentNode().getHostAndPort());
        return new OverdriveConnector(
                hive,
                pageSources,
                new OverdriveSplitManager(
                        hive.getSplitManager(),
                        hive::getMetadata,
                        context.getNodeManager(),
                        features.placerFactory(),
                        features.nodeSelection().getAffinityGranularity()),
                Set.of(features.flushCache(), features.warmCache()),
                new OverdriveFunctionProvider(
                        features.flushCacheProcessors(),
                        new WarmCacheProcessorProvider(pageSources::openForWarmUp, context.getCurrentNode().getNodeIdentifier())),
                systemTables(context.getCurrentNode().getNodeIdentifier(), injector, features));
    }

    // the catalog's system schema: every node serves its own rows
    private static Set<SystemTable> systemTables(String nodeId, Injector injector, OverdriveFeatures features)
    {
        // absent on a node that caches nothing: the coordinator when it runs no splits, or a catalog without the cache
        Optional<PageCache> pageCache = injector.getInstance(Key.get(new TypeLiteral<Optional<TrinoFileSystemCache>>() {}))
                .filter(OverdriveFileSystemCache.class::isInstance)
                .map(cache -> ((OverdriveFileSystemCache) cache).pageCache());
        return Set.of(
                new CacheMetricsTable(nodeId, exportedStats(injector)),
                new CachedTablesTable(nodeId, pageCache, features.pageCache().getTableQuota(), features.pageCache().getSchemaQuota()),
                new CacheDirectoriesTable(nodeId, pageCache));
    }

    // the statistics objects this node exports over JMX for the catalog, for system.cache_metrics
    private static List<Object> exportedStats(Injector injector)
    {
        List<Object> stats = new ArrayList<>();
        for (Class<?> type : List.of(PageCacheStats.class, SharedScanStats.class, HedgedReadStats.class, CoordinatorCacheStats.class, PlacementStats.class)) {
            if (injector.getExistingBinding(Key.get(type)) != null) {
                stats.add(injector.getInstance(type));
            }
        }
        return stats;
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

    /**
     * Whether this node runs splits, and so reads data pages and caches them: every worker, and the coordinator when
     * {@code node-scheduler.include-coordinator=true}, which is exactly when Trino's node manager lists the coordinator
     * among the worker nodes (on the coordinator itself too, before it has announced itself). Workers cannot list nodes.
     */
    static boolean runsSplits(ConnectorContext context)
    {
        Node currentNode = context.getCurrentNode();
        return !currentNode.isCoordinator() || context.getNodeManager().getWorkerNodes().stream()
                .anyMatch(node -> node.getNodeIdentifier().equals(currentNode.getNodeIdentifier()));
    }

    private static void logCoordinatorRole(String catalogName, boolean runsSplits, boolean cacheEnabled, boolean coordinatorTier)
    {
        if (!runsSplits && coordinatorTier) {
            log.info("Catalog %s: this coordinator runs no splits (node-scheduler.include-coordinator=false), so it caches no data pages; it keeps the metadata files it reads in memory (cache.coordinator.*)", catalogName);
        }
        else if (!runsSplits) {
            log.info("Catalog %s: this coordinator runs no splits (node-scheduler.include-coordinator=false), so it does not cache", catalogName);
        }
        else if (cacheEnabled) {
            log.info("Catalog %s: this coordinator runs splits (node-scheduler.include-coordinator=true), so it caches the pages it reads, as workers do", catalogName);
        }
        else {
            log.info("Catalog %s: this coordinator runs splits (node-scheduler.include-coordinator=true) but does not cache: cache.enabled=false", catalogName);
        }
    }
}
