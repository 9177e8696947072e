package io.overdrive.cache.connector;

import com.google.inject.Inject;
import io.overdrive.cache.flush.FlushCacheFunctionProvider;
import io.overdrive.cache.flush.FlushCacheTableFunction;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Overdrive's parts of one catalog, built by Guice from the stock connector's bindings and Overdrive's modules, which the
 * factory adds to the stock connector. The stock split manager and page source provider are not among them: the
 * factory takes those from the connector the stock {@code createConnector} returns, since only that method wraps them
 * in class-loader-safe wrappers.
 *
 * @param placerFactory present on the coordinator, which places splits
 */
public record OverdriveFeatures(
        FlushCacheTableFunction flushCache,
        FlushCacheFunctionProvider flushCacheProcessors,
        Optional<SplitPlacerFactory> placerFactory,
        NodeSelectionConfig nodeSelection,
        PageCacheConfig pageCache)
{
    @Inject
    public OverdriveFeatures
    {
        requireNonNull(flushCache, "flushCache is null");
        requireNonNull(flushCacheProcessors, "flushCacheProcessors is null");
        requireNonNull(placerFactory, "placerFactory is null");
        requireNonNull(nodeSelection, "nodeSelection is null");
        requireNonNull(pageCache, "pageCache is null");
    }
}
