package io.overdrive.cache.connector;

import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.session.QueryReadStats;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * The stock connector's page source, with Overdrive's counts of its reads ({@link QueryReadStats}) added to its
 * metrics, and the split's {@link CacheReadContext} set while it makes each page: files it opens only then (Iceberg's
 * delete files, read on the first page; Hive's ACID delete deltas) are cached, filtered and counted as the split's own.
 */
final class ReadStatsPageSource
        implements ConnectorPageSource
{
    private final ConnectorPageSource delegate;
    private final CacheReadContext context;

    ReadStatsPageSource(ConnectorPageSource delegate, CacheReadContext context)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.context = requireNonNull(context, "context is null");
    }

    @Override
    public long getCompletedBytes()
    {
        return delegate.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return delegate.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos()
    {
        return delegate.getReadTimeNanos();
    }

    @Override
    public boolean isFinished()
    {
        return delegate.isFinished();
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context)) {
            return delegate.getNextSourcePage();
        }
    }

    @Override
    public long getMemoryUsage()
    {
        return delegate.getMemoryUsage();
    }

    @Override
    public void close()
            throws IOException
    {
        delegate.close();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return delegate.isBlocked();
    }

    @Override
    public Metrics getMetrics()
    {
        return delegate.getMetrics().mergeWith(context.readStats().toMetrics());
    }

    /** The counts of the page source's reads (for tests). */
    QueryReadStats readStats()
    {
        return context.readStats();
    }
}
