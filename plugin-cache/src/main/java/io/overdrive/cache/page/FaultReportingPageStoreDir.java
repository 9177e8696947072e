package io.overdrive.cache.page;

import alluxio.client.file.cache.PageStore;
import alluxio.client.file.cache.evictor.CacheEvictor;
import alluxio.client.file.cache.store.LocalPageStoreDir;
import alluxio.client.file.cache.store.PageStoreOptions;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * Alluxio's local page store directory, serving its pages through {@link FaultReportingPageStore}. Alluxio resets a
 * directory it cannot restore (a new one, for example) by opening a new store: the new store is wrapped as well.
 */
final class FaultReportingPageStoreDir
        extends LocalPageStoreDir
{
    private final FaultReportingPageStore store;

    FaultReportingPageStoreDir(PageStoreOptions options, FaultReportingPageStore store, CacheEvictor evictor)
    {
        super(options, store.disk(), evictor);
        this.store = requireNonNull(store, "store is null");
    }

    @Override
    public PageStore getPageStore()
    {
        return store;
    }

    @Override
    public void reset()
            throws IOException
    {
        super.reset();
        store.replaceDelegate(super.getPageStore());
    }
}
