package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;
import alluxio.client.file.cache.QuotaPageMetaStore;
import alluxio.client.file.cache.evictor.CacheEvictorOptions;
import alluxio.client.file.cache.store.PageStoreDir;
import alluxio.exception.PageNotFoundException;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Alluxio's page metadata with bytes per scope (schema, table), fixed for deletions. In Alluxio 2.9.6
 * {@code LocalCacheManager.delete} removes a page through {@code removePage(pageId, isTemporary)}, which
 * {@link QuotaPageMetaStore} does not override: the page's bytes stay counted in its scope and the page stays among its
 * scope's eviction candidates. Every removal of a stored page is routed here through the scope-aware
 * {@code removePage(pageId)}.
 * <p>
 * Every page added or removed is also counted in the directory's {@link TableTally}.
 */
final class ScopeTrackingPageMetaStore
        extends QuotaPageMetaStore
{
    // set while the scope-aware removal runs: its inner call for the removal itself must not come back here
    private final ThreadLocal<Boolean> removing = ThreadLocal.withInitial(() -> false);
    private final TableTally tally;

    ScopeTrackingPageMetaStore(CacheEvictorOptions evictorOptions, List<PageStoreDir> directories, TableTally tally)
    {
        super(evictorOptions, directories);
        this.tally = requireNonNull(tally, "tally is null");
    }

    @Override
    public void addPage(PageId pageId, PageInfo pageInfo)
    {
        super.addPage(pageId, pageInfo);
        tally.added(pageInfo);
    }

    @Override
    public void reset()
    {
        super.reset();
        tally.cleared();
    }

    @Override
    public PageInfo removePage(PageId pageId)
            throws PageNotFoundException
    {
        return removePage(pageId, false);
    }

    @Override
    public PageInfo removePage(PageId pageId, boolean isTemporary)
            throws PageNotFoundException
    {
        if (isTemporary || removing.get()) {
            // the removal itself
            PageInfo removed = super.removePage(pageId, isTemporary);
            if (!isTemporary) {
                tally.removed(removed);
            }
            return removed;
        }
        removing.set(true);
        try {
            // QuotaPageMetaStore's removePage(pageId): the removal (back through this method), then the scope bookkeeping
            return super.removePage(pageId);
        }
        finally {
            removing.set(false);
        }
    }
}
