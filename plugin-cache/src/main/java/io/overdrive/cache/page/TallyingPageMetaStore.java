package io.overdrive.cache.page;

import alluxio.client.file.cache.DefaultPageMetaStore;
import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;
import alluxio.client.file.cache.store.PageStoreDir;
import alluxio.exception.PageNotFoundException;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Alluxio's page metadata without quotas, with every page added or removed counted in the directory's
 * {@link TableTally}. In Alluxio 2.9.6 every removal of a page, by either {@code removePage} method, ends in
 * {@code removePage(pageId, isTemporary)}.
 */
final class TallyingPageMetaStore
        extends DefaultPageMetaStore
{
    private final TableTally tally;

    TallyingPageMetaStore(List<PageStoreDir> directories, TableTally tally)
    {
        super(directories);
        this.tally = requireNonNull(tally, "tally is null");
    }

    @Override
    public void addPage(PageId pageId, PageInfo pageInfo)
    {
        super.addPage(pageId, pageInfo);
        tally.added(pageInfo);
    }

    @Override
    public PageInfo removePage(PageId pageId, boolean isTemporary)
            throws PageNotFoundException
    {
        PageInfo removed = super.removePage(pageId, isTemporary);
        if (!isTemporary) {
            tally.removed(removed);
        }
        return removed;
    }

    @Override
    public void reset()
    {
        super.reset();
        tally.cleared();
    }
}
