package io.overdrive.merge;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * A source over pages already in memory (never blocked).
 */
public final class PageListSource
        implements SortedPageSource
{
    private Iterator<Page> pages;

    public PageListSource(List<Page> pages)
    {
        this.pages = ImmutableList.copyOf(requireNonNull(pages, "pages is null")).iterator();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return NOT_BLOCKED;
    }

    @Override
    public Page getNextPage()
    {
        return pages.hasNext() ? pages.next() : null;
    }

    @Override
    public boolean isFinished()
    {
        return !pages.hasNext();
    }

    @Override
    public void close()
    {
        pages = ImmutableList.<Page>of().iterator();
    }
}
