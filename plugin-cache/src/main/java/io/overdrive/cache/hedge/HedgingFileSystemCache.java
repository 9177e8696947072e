package io.overdrive.cache.hedge;

import com.google.inject.Inject;
import io.overdrive.cache.page.CacheReadContext;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.cache.TrinoFileSystemCache;

import java.io.IOException;
import java.util.Collection;

import static java.util.Objects.requireNonNull;

/**
 * Hedged reads without the page cache. Trino's {@link TrinoFileSystemCache} is the one seam through which the Hive
 * connector's reads of data files pass on workers, below everything else; this implementation of it caches nothing
 * and only hands each data file to {@link HedgedReads#wrap}, as the query's session asks ({@code hedged_reads_enabled}).
 * With {@code cache.enabled=true} the page cache does that itself, for its misses.
 */
public final class HedgingFileSystemCache
        implements TrinoFileSystemCache
{
    private final HedgedReads hedgedReads;

    @Inject
    public HedgingFileSystemCache(HedgedReads hedgedReads)
    {
        this.hedgedReads = requireNonNull(hedgedReads, "hedgedReads is null");
    }

    @Override
    public TrinoInput cacheInput(TrinoInputFile delegate, String key)
            throws IOException
    {
        // a query whose session switched hedging off reads unhedged; the wrapper's hedges count in the page source's metrics
        CacheReadContext context = CacheReadContext.current();
        return hedgedReads.wrap(delegate, context.options().hedging(), context.readStats()).newInput();
    }

    @Override
    public TrinoInputStream cacheStream(TrinoInputFile delegate, String key)
            throws IOException
    {
        return delegate.newStream();
    }

    @Override
    public long cacheLength(TrinoInputFile delegate, String key)
            throws IOException
    {
        return delegate.length();
    }

    @Override
    public void expire(Location location) {}

    @Override
    public void expire(Collection<Location> locations) {}
}
