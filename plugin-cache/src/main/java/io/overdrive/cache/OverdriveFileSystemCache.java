package io.overdrive.cache;

import alluxio.client.file.CacheContext;
import alluxio.client.file.URIStatus;
import alluxio.client.file.cache.CacheManager;
import alluxio.conf.AlluxioConfiguration;
import alluxio.conf.AlluxioProperties;
import alluxio.conf.InstancedConfiguration;
import alluxio.conf.PropertyKey;
import alluxio.wire.FileInfo;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.opentelemetry.api.trace.Tracer;
import io.overdrive.cache.config.PageCacheConfig;
import io.overdrive.cache.hedge.HedgedReads;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.stats.PageCacheStats;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.alluxio.AlluxioCacheStats;
import io.trino.filesystem.alluxio.AlluxioInput;
import io.trino.filesystem.alluxio.AlluxioInputStream;
import io.trino.filesystem.alluxio.TracingCacheManager;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.spi.catalog.CatalogName;
import jakarta.annotation.PreDestroy;

import java.io.IOException;
import java.util.Collection;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Overdrive's {@link TrinoFileSystemCache}: Trino's {@code CacheFileSystemFactory} routes every data file read of the
 * catalog here on workers. Pages are read with Trino's own page-aligned readers and kept by {@link PageCache}.
 * <p>
 * A file's cache id is the hash of its cache key ({@code path#modification time#length}, from the
 * {@code CacheKeyProvider}), so a changed file never matches the pages of its previous version; {@link #expire} drops
 * the cached versions of a path as well, to free their space at once.
 */
public class OverdriveFileSystemCache
        implements TrinoFileSystemCache
{
    private static final HashFunction HASH = Hashing.murmur3_128();

    private final Tracer tracer;
    private final PageCache pageCache;
    private final PageCacheStats stats;
    private final AlluxioConfiguration readerConfiguration;
    private final AlluxioCacheStats readerStats;
    private final DataSize pageSize;
    private final HedgedReads hedgedReads;

    @Inject
    public OverdriveFileSystemCache(Tracer tracer, CatalogName catalogName, PageCacheConfig config, PageCacheStats stats, HedgedReads hedgedReads)
    {
        this(tracer, PageCache.create(catalogName.toString(), config, stats), stats, hedgedReads);
    }

    /**
     * @param hedgedReads hedges the reads of pages that are not cached (cache hits never reach it)
     */
    public OverdriveFileSystemCache(Tracer tracer, PageCache pageCache, PageCacheStats stats, HedgedReads hedgedReads)
    {
        this.hedgedReads = requireNonNull(hedgedReads, "hedgedReads is null");
        this.tracer = requireNonNull(tracer, "tracer is null");
        this.pageCache = requireNonNull(pageCache, "pageCache is null");
        this.stats = requireNonNull(stats, "stats is null");
        AlluxioProperties properties = new AlluxioProperties();
        properties.set(PropertyKey.USER_CLIENT_CACHE_PAGE_SIZE, Integer.toString(pageCache.pageSize()));
        this.readerConfiguration = new InstancedConfiguration(properties);
        this.readerStats = new RemoteReadCountingStats(stats);
        this.pageSize = DataSize.ofBytes(pageCache.pageSize());
    }

    @Override
    public TrinoInput cacheInput(TrinoInputFile delegate, String key)
            throws IOException
    {
        return new AlluxioInput(tracer, hedgedReads.wrap(delegate), key, status(delegate, key), cacheManager(delegate, key), readerConfiguration, readerStats);
    }

    @Override
    public TrinoInputStream cacheStream(TrinoInputFile delegate, String key)
            throws IOException
    {
        return new AlluxioInputStream(tracer, hedgedReads.wrap(delegate), key, status(delegate, key), cacheManager(delegate, key), readerConfiguration, readerStats);
    }

    // the page cache for this file, with Trino's tracing spans on every get and put, as Trino's own Alluxio cache has
    private CacheManager cacheManager(TrinoInputFile file, String key)
    {
        return new TracingCacheManager(tracer, key, pageSize, pageCache.adapterFor(file.location().toString(), CacheReadContext.current()));
    }

    @Override
    public long cacheLength(TrinoInputFile delegate, String key)
            throws IOException
    {
        return delegate.length();
    }

    @Override
    public void expire(Location location)
    {
        pageCache.expire(location.toString());
    }

    @Override
    public void expire(Collection<Location> locations)
    {
        for (Location location : locations) {
            expire(location);
        }
    }

    @PreDestroy
    public void shutdown()
            throws Exception
    {
        pageCache.close();
    }

    public PageCache pageCache()
    {
        return pageCache;
    }

    public PageCacheStats stats()
    {
        return stats;
    }

    private static URIStatus status(TrinoInputFile file, String key)
            throws IOException
    {
        FileInfo info = new FileInfo()
                .setPath(file.location().toString())
                .setLength(file.length());
        return new URIStatus(info, CacheContext.defaults().setCacheIdentifier(fileId(key)));
    }

    /** The cache key ({@code path#modification time#length}) hashed: a changed file gets a new id. */
    public static String fileId(String key)
    {
        return HASH.hashString(key, UTF_8).toString();
    }

    // Trino's readers report remote reads here; Overdrive's own stats count cache reads at the page level
    private static final class RemoteReadCountingStats
            extends AlluxioCacheStats
    {
        private final PageCacheStats stats;

        RemoteReadCountingStats(PageCacheStats stats)
        {
            this.stats = stats;
        }

        @Override
        public void recordExternalRead(int length)
        {
            super.recordExternalRead(length);
            stats.recordRemoteRead(length);
        }
    }
}
