package io.overdrive.cache.coordinator;

import com.google.inject.Binder;
import com.google.inject.Provider;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.airlift.configuration.ConfigurationFactory;
import io.overdrive.cache.page.PageCacheConfig;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.spi.catalog.CatalogName;

import static com.google.inject.Scopes.SINGLETON;
import static com.google.inject.multibindings.OptionalBinder.newOptionalBinder;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

/**
 * Binds the coordinator's memory tier ({@link CoordinatorFileCache}) into the Hive connector's file system seam
 * ({@link TrinoFileSystemCache}) on a coordinator that runs no splits, when {@code cache.enabled=true} and
 * {@code cache.coordinator.enabled=true} (the default) and the page cache is not a dry run. Such a coordinator reads no
 * data pages, but it reads the file metastore's files for every query it plans; a node that runs splits has the page
 * cache in that seam instead, which keeps those files too. Every node reads the {@code cache.coordinator.*} properties,
 * so one catalog file serves the whole cluster and a bad value fails everywhere.
 */
public class CoordinatorCacheModule
        extends AbstractConfigurationAwareModule
{
    private final boolean runsSplits;
    private final boolean formatKeepsMetadata;

    /**
     * @param runsSplits this node runs splits (every worker, and a coordinator with
     * {@code node-scheduler.include-coordinator=true}): the page cache takes the seam there
     * @param formatKeepsMetadata the stock connector keeps the metadata files it reads in the coordinator's memory itself
     * (Iceberg's {@code iceberg.metadata-cache.enabled}): the tier replaces that only when
     * {@code cache.coordinator.enabled=true} is set
     */
    public CoordinatorCacheModule(boolean runsSplits, boolean formatKeepsMetadata)
    {
        this.runsSplits = runsSplits;
        this.formatKeepsMetadata = formatKeepsMetadata;
    }

    @Override
    protected void setup(Binder binder)
    {
        CoordinatorCacheConfig config = buildConfigObject(CoordinatorCacheConfig.class);
        // PageCacheModule binds the page cache's config; here it is only read
        PageCacheConfig pageCache = new ConfigurationFactory(getProperties()).build(PageCacheConfig.class);
        if (runsSplits || !isActive(pageCache, config)) {
            return;
        }
        if (formatKeepsMetadata && !getProperties().containsKey(CoordinatorCacheConfig.ENABLED)) {
            // Iceberg's own metadata cache (by default 2% of the heap, files up to 8MB) stays, as in stock Iceberg
            return;
        }
        binder.bind(CoordinatorCacheStats.class).in(SINGLETON);
        Provider<CatalogName> catalogName = binder.getProvider(CatalogName.class);
        newExporter(binder).export(CoordinatorCacheStats.class)
                .as(generator -> generator.generatedNameOf(CoordinatorCacheStats.class, catalogName.get().toString()));
        newOptionalBinder(binder, TrinoFileSystemCache.class).setBinding().to(CoordinatorFileCache.class).in(SINGLETON);
    }

    /** Whether a coordinator that runs no splits keeps the files it reads: a dry run changes nothing about reads. */
    public static boolean isActive(PageCacheConfig pageCache, CoordinatorCacheConfig config)
    {
        return pageCache.isEnabled() && !pageCache.isDryRun() && config.isEnabled();
    }
}
