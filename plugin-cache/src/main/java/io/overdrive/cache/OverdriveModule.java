package io.overdrive.cache;

import com.google.inject.Binder;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.overdrive.cache.connector.OverdriveFeatures;
import io.overdrive.cache.coordinator.CoordinatorCacheModule;
import io.overdrive.cache.flush.FlushCacheFunctionProvider;
import io.overdrive.cache.flush.FlushCacheTableFunction;
import io.overdrive.cache.hedge.HedgedReadModule;
import io.overdrive.cache.placement.NodeSelectionModule;
import io.overdrive.cache.warmup.WarmCacheTableFunction;

import static com.google.inject.Scopes.SINGLETON;

/**
 * Overdrive's features for one {@code overdrive_hive} catalog, installed after every Hive module. Installed through
 * {@link #install} so that each feature module reads its own {@code @Config} classes.
 */
public class OverdriveModule
        extends AbstractConfigurationAwareModule
{
    private final boolean coordinator;
    private final boolean runsSplits;

    /**
     * @param coordinator this node is the coordinator: it places splits
     * @param runsSplits this node runs splits, and so reads and caches data pages: every worker, and the coordinator
     * when {@code node-scheduler.include-coordinator=true}
     */
    public OverdriveModule(boolean coordinator, boolean runsSplits)
    {
        this.coordinator = coordinator;
        this.runsSplits = runsSplits;
    }

    @Override
    protected void setup(Binder binder)
    {
        install(new PageCacheModule(runsSplits));
        install(new CoordinatorCacheModule(runsSplits));
        install(new HedgedReadModule(runsSplits));
        install(new NodeSelectionModule(coordinator));
        binder.bind(FlushCacheTableFunction.class).in(SINGLETON);
        binder.bind(FlushCacheFunctionProvider.class).in(SINGLETON);
        binder.bind(WarmCacheTableFunction.class).in(SINGLETON);
        binder.bind(OverdriveFeatures.class).in(SINGLETON);
    }
}
