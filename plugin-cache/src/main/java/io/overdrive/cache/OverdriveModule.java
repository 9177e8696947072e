package io.overdrive.cache;

import com.google.inject.Binder;
import com.google.inject.Module;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.overdrive.cache.connector.OverdriveFeatures;
import io.overdrive.cache.coordinator.CoordinatorCacheModule;
import io.overdrive.cache.flush.FlushCacheFunctionProvider;
import io.overdrive.cache.flush.FlushCacheTableFunction;
import io.overdrive.cache.hedge.HedgedReadModule;
import io.overdrive.cache.placement.NodeSelectionModule;

import static com.google.inject.Scopes.SINGLETON;
import static java.util.Objects.requireNonNull;

/**
 * Overdrive's features for one {@code overdrive_hive} or {@code overdrive_iceberg} catalog, installed after every module
 * of the stock connector. Installed through {@link #install} so that each feature module reads its own {@code @Config}
 * classes.
 */
public class OverdriveModule
        extends AbstractConfigurationAwareModule
{
    private final boolean coordinator;
    private final boolean runsSplits;
    private final Module formatModule;
    private final boolean formatKeepsMetadata;

    /**
     * @param coordinator this node is the coordinator: it places splits
     * @param runsSplits this node runs splits, and so reads and caches data pages: every worker, and the coordinator
     * when {@code node-scheduler.include-coordinator=true}
     * @param formatModule what the features need from the table format: its {@code TableLocations}, and
     * {@code warm_cache} where the format has it
     * @param formatKeepsMetadata the stock connector keeps the metadata files it reads in the coordinator's memory itself
     * (Iceberg): the coordinator's tier replaces that only when {@code cache.coordinator.enabled=true} is set
     */
    public OverdriveModule(boolean coordinator, boolean runsSplits, Module formatModule, boolean formatKeepsMetadata)
    {
        this.coordinator = coordinator;
        this.runsSplits = runsSplits;
        this.formatModule = requireNonNull(formatModule, "formatModule is null");
        this.formatKeepsMetadata = formatKeepsMetadata;
    }

    @Override
    protected void setup(Binder binder)
    {
        install(new PageCacheModule(runsSplits));
        install(new CoordinatorCacheModule(runsSplits, formatKeepsMetadata));
        install(new HedgedReadModule(runsSplits));
        install(new NodeSelectionModule(coordinator));
        binder.bind(FlushCacheTableFunction.class).in(SINGLETON);
        binder.bind(FlushCacheFunctionProvider.class).in(SINGLETON);
        install(formatModule);
        binder.bind(OverdriveFeatures.class).in(SINGLETON);
    }
}
