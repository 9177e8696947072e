package io.overdrive.cache.connector;

import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
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
import io.overdrive.cache.peer.PeerConfig;
import io.overdrive.cache.peer.PeerStats;
import io.overdrive.cache.scan.SharedScanStats;
import io.overdrive.cache.warmup.WarmCacheProcessorProvider;
import io.overdrive.cache.warmup.WarmCacheTableFunction;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.spi.HostAddress;
import io.trino.spi.Node;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.connector.ConnectorPageSourceProviderFactory;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.function.table.ConnectorTableFunction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Builds a table format's own Trino connector (Hive's, Iceberg's) with Overdrive's Guice module installed last, then
 * puts Overdrive's parts in front of it ({@link OverdriveConnector}), so that with only the format's own properties
 * ({@code hive.*} or {@code iceberg.*}, and {@code fs.*}) the catalog behaves exactly like the stock connector.
 */
public abstract class OverdriveConnectorFactory
        implements ConnectorFactory
{
    private static final Logger log = Logger.get(OverdriveConnectorFactory.class);

    private final OverdriveBuildInfo buildInfo;

    protected OverdriveConnectorFactory(OverdriveBuildInfo buildInfo)
    {
        this.buildInfo = requireNonNull(buildInfo, "buildInfo is null");
    }

    /** The stock connector, built with the module {@code overdriveModule} makes installed after every module of its own. */
    protected abstract BuiltConnector createDelegate(String catalogName, Map<String, String> config, ConnectorContext context, Supplier<Module> overdriveModule);

    /** Bindings Overdrive's features need from this table format: {@code TableLocations}, and {@code warm_cache} where it has it. */
    protected abstract Module formatModule();

    protected abstract TableFormat format();

    /**
     * Whether the stock connector keeps the metadata files it reads in the coordinator's memory itself (Iceberg does,
     * with {@code iceberg.metadata-cache.enabled}); the coordinator's tier then replaces that only when
     * {@code cache.coordinator.enabled=true} is set.
     */
    protected abstract boolean keepsMetadataInMemory(Map<String, String> config);

    /** The stock connector and its injector, which holds Overdrive's bindings too. */
    protected record BuiltConnector(Connector connector, Injector injector)
    {
        public BuiltConnector
        {
            requireNonNull(connector, "connector is null");
            requireNonNull(injector, "injector is null");
        }
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
    {
        requireNonNull(catalogName, "catalogName is null");
        requireNonNull(config, "config is null");
        requireNonNull(context, "context is null");
        // the stock factories check this in create(); createConnector() does not, so a mismatched install would
        // otherwise fail later with linkage errors deep inside the stock connector
        checkSpiVersion(context.getSpiVersion());
        boolean coordinator = context.getCurrentNode().isCoordinator();
        boolean runsSplits = runsSplits(context);
        BuiltConnector built = createDelegate(
                catalogName,
                // HDFS's own hedged reads are configured before HDFS starts, in HDFS's own configuration
                NativeHdfsHedging.configure(catalogName, config),
                context,
                // Overdrive's features, installed last, after every module of the stock connector
                () -> new OverdriveModule(coordinator, runsSplits, formatModule(), keepsMetadataInMemory(config)));
        Connector delegate = built.connector();
        Injector injector = built.injector();
        OverdriveFeatures features = injector.getInstance(OverdriveFeatures.class);
        if (runsSplits) {
            NativeHdfsHedging.exportCounters(injector);
        }
        if (coordinator) {
            logCoordinatorRole(catalogName, runsSplits, features.pageCache().isEnabled(), injector.getExistingBinding(Key.get(CoordinatorCacheStats.class)) != null);
        }
        TableFormat format = format();
        HostAddress self = context.getCurrentNode().getHostAndPort();
        ConnectorPageSourceProviderFactory delegatePageSources = delegate.getPageSourceProviderFactory();
        // a provider per query where the stock connector makes one per query (Iceberg), else its one provider
        Supplier<CacheContextPageSourceProvider> pageSources = () -> new CacheContextPageSourceProvider(delegatePageSources.createPageSourceProvider(), self, format);
        Optional<WarmCacheTableFunction> warmCache = Optional.ofNullable(injector.getExistingBinding(Key.get(WarmCacheTableFunction.class)))
                .map(_ -> injector.getInstance(WarmCacheTableFunction.class));
        Set<ConnectorTableFunction> tableFunctions = warmCache.isPresent() ? Set.of(features.flushCache(), warmCache.get()) : Set.of(features.flushCache());
        return new OverdriveConnector(
                delegate,
                injector,
                pageSources::get,
                new OverdriveSplitManager(
                        delegate.getSplitManager(),
                        format,
                        delegate::getMetadata,
                        context.getNodeManager(),
                        features.placerFactory(),
                        features.nodeSelection().getAffinityGranularity()),
                tableFunctions,
                new OverdriveFunctionProvider(
                        delegate.getFunctionProvider(),
                        features.flushCacheProcessors(),
                        warmCache.map(_ -> new WarmCacheProcessorProvider(
                                (transaction, session, split, table, columns) -> pageSources.get().openForWarmUp(transaction, session, split, table, columns),
                                context.getCurrentNode().getNodeIdentifier()))),
                systemTables(context.getCurrentNode().getNodeIdentifier(), injector, features, catalogAccessControl(delegate)));
    }

    // the catalog's system schema: every node serves its own rows
    private static Set<SystemTable> systemTables(String nodeId, Injector injector, OverdriveFeatures features, Optional<ConnectorAccessControl> accessControl)
    {
        // absent on a node that caches nothing: the coordinator when it runs no splits, or a catalog without the cache
        Optional<PageCache> pageCache = injector.getInstance(Key.get(new TypeLiteral<Optional<TrinoFileSystemCache>>() {}))
                .filter(OverdriveFileSystemCache.class::isInstance)
                .map(cache -> ((OverdriveFileSystemCache) cache).pageCache());
        return Set.of(
                new CacheMetricsTable(nodeId, exportedStats(injector)),
                new CachedTablesTable(nodeId, pageCache, features.pageCache().getTableQuota(), features.pageCache().getSchemaQuota(), accessControl),
                new CacheDirectoriesTable(nodeId, pageCache));
    }

    /**
     * The catalog's own access control ({@code hive.security} or {@code iceberg.security}: {@code allow-all},
     * {@code read-only}, {@code file}, {@code sql-standard}), the same object on every node; absent with
     * {@code security=system}, where the stock connector has none and leaves every check to the engine.
     */
    static Optional<ConnectorAccessControl> catalogAccessControl(Connector connector)
    {
        try {
            return Optional.of(connector.getAccessControl());
        }
        catch (UnsupportedOperationException _) {
            return Optional.empty();
        }
    }

    // the statistics objects this node exports over JMX for the catalog, for system.cache_metrics
    private static List<Object> exportedStats(Injector injector)
    {
        List<Object> stats = new ArrayList<>();
        for (Class<?> type : List.of(PageCacheStats.class, SharedScanStats.class, PeerStats.class, HedgedReadStats.class, CoordinatorCacheStats.class, PlacementStats.class)) {
            if (injector.getExistingBinding(Key.get(type)) == null) {
                continue;
            }
            // as over JMX: peer reads' metrics only where they are on
            if (type == PeerStats.class && !injector.getInstance(PeerConfig.class).isEnabled()) {
                continue;
            }
            stats.add(injector.getInstance(type));
        }
        return stats;
    }

    void checkSpiVersion(String serverSpiVersion)
    {
        if (!buildInfo.trinoSpiVersion().equals(serverSpiVersion)) {
            throw new IllegalStateException((
                    "Overdrive %s (connector %s) was built for Trino SPI version %s, but this server runs Trino SPI version %s. " +
                            "Install the Overdrive release built for Trino %s, or run it on Trino %s.")
                    .formatted(buildInfo.overdriveVersion(), getName(), buildInfo.trinoSpiVersion(), serverSpiVersion, serverSpiVersion, buildInfo.trinoSpiVersion()));
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
