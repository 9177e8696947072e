package io.overdrive.cache.hedge;

import com.google.inject.Binder;
import com.google.inject.Provider;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.log.Logger;
import io.overdrive.cache.hedge.HedgedReadConfig.Mode;
import io.overdrive.cache.page.PageCacheConfig;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.catalog.CatalogName;

import static com.google.inject.Scopes.SINGLETON;
import static com.google.inject.multibindings.OptionalBinder.newOptionalBinder;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

/**
 * Binds hedged reads ({@code hedged-read.*}) on a node that runs splits. HDFS's own hedging is switched on by
 * {@link NativeHdfsHedging} before the catalog starts; this module gives {@link HedgedReads} the catalog's reads of data
 * files where the wrapper hedges some storage, or HDFS's tail reads are to be made positional: inside the page cache
 * when that is on, else through Trino's {@link TrinoFileSystemCache} seam.
 */
public class HedgedReadModule
        extends AbstractConfigurationAwareModule
{
    private static final Logger log = Logger.get(HedgedReadModule.class);

    private final boolean runsSplits;

    public HedgedReadModule(boolean runsSplits)
    {
        this.runsSplits = runsSplits;
    }

    @Override
    protected void setup(Binder binder)
    {
        HedgedReadConfig config = buildConfigObject(HedgedReadConfig.class);
        // Trino's FileSystemModule and Overdrive's PageCacheModule bind these; here they are only read
        ConfigurationFactory otherConfigs = new ConfigurationFactory(getProperties());
        FileSystemConfig fileSystem = otherConfigs.build(FileSystemConfig.class);
        boolean pageCache = otherConfigs.build(PageCacheConfig.class).isEnabled();

        if (config.isEnabled() && config.getMode() == Mode.NATIVE && config.modeWasSet() && !fileSystem.isHadoopEnabled()) {
            throw new IllegalArgumentException("hedged-read.mode=native uses HDFS's own hedged reads, but HDFS is off: set fs.hadoop.enabled=true, or hedged-read.mode=auto or wrapper for other storage");
        }
        boolean seeReads = HedgedReads.needsReads(config, fileSystem);
        if (seeReads && fileSystem.isCacheEnabled()) {
            // Trino's own cache takes the one seam through which the wrapper (and the tail reads for HDFS) see reads
            if (config.getMode() == Mode.WRAPPER) {
                throw new IllegalArgumentException("hedged-read.mode=wrapper cannot be used with fs.cache.enabled=true (Trino's file system cache): use cache.enabled=true (Overdrive's page cache, which hedges its misses) instead of fs.cache.enabled, or hedged-read.mode=native for HDFS");
            }
            String message = "fs.cache.enabled=true (Trino's file system cache) leaves no room for Overdrive's hedging wrapper: only HDFS's positional reads are hedged, by HDFS itself";
            if (config.modeWasSet()) {
                log.warn(message);
            }
            else {
                log.info(message);
            }
            seeReads = false;
        }
        if (!runsSplits) {
            return;
        }
        binder.bind(HedgedReadStats.class).in(SINGLETON);
        Provider<CatalogName> catalogName = binder.getProvider(CatalogName.class);
        newExporter(binder).export(HedgedReadStats.class)
                .as(generator -> generator.generatedNameOf(HedgedReadStats.class, catalogName.get().toString()));
        binder.bind(HedgedReads.class).in(SINGLETON);
        if (seeReads && !pageCache) {
            newOptionalBinder(binder, TrinoFileSystemCache.class).setBinding().to(HedgingFileSystemCache.class).in(SINGLETON);
        }
    }
}
