package io.overdrive.cache.placement;

import com.google.inject.Binder;
import com.google.inject.Provider;
import com.google.inject.multibindings.OptionalBinder;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.overdrive.cache.peer.WorkerLoadPoller;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.trino.spi.catalog.CatalogName;

import static com.google.inject.Scopes.SINGLETON;
import static com.google.inject.multibindings.OptionalBinder.newOptionalBinder;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

/**
 * Soft affinity ({@code node-selection-strategy}): on the coordinator, the split placer and its JMX statistics.
 * Nodes that run splits (the coordinator too, with {@code node-scheduler.include-coordinator=true}) only read the
 * placement carried in each {@link OverdriveSplit}.
 */
public class NodeSelectionModule
        extends AbstractConfigurationAwareModule
{
    private final boolean coordinator;

    public NodeSelectionModule(boolean coordinator)
    {
        this.coordinator = coordinator;
    }

    @Override
    protected void setup(Binder binder)
    {
        configBinder(binder).bindConfig(NodeSelectionConfig.class);
        // present on the coordinator only: it places splits, workers just read each split's placement
        OptionalBinder<SplitPlacerFactory> placerFactory = newOptionalBinder(binder, SplitPlacerFactory.class);
        if (!coordinator) {
            return;
        }
        binder.bind(PlacementStats.class).in(SINGLETON);
        // the load signal: polls the workers' peer services where peer reads are on (cache.peer.shared-secret)
        binder.bind(WorkerLoadPoller.class).in(SINGLETON);
        Provider<CatalogName> catalogName = binder.getProvider(CatalogName.class);
        newExporter(binder).export(PlacementStats.class)
                .as(generator -> generator.generatedNameOf(PlacementStats.class, catalogName.get().toString()));
        placerFactory.setBinding().toProvider(SplitPlacerFactoryProvider.class).in(SINGLETON);
    }
}
