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
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.opentelemetry.api.trace.Tracer;
import io.overdrive.cache.hedge.HedgedReads;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.page.TableFilter;
import io.overdrive.cache.page.TimedRemoteFile;
import io.overdrive.cache.peer.PeerConfig;
import io.overdrive.cache.peer.PeerReads;
import io.overdrive.cache.peer.PeerService;
import io.overdrive.cache.peer.PeerStats;
import io.overdrive.cache.scan.SharedScanConfig;
import io.overdrive.cache.scan.SharedScanStats;
import io.overdrive.cache.scan.SharedScans;
import io.overdrive.cache.session.QueryReadStats;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.alluxio.AlluxioCacheStats;
import io.trino.filesystem.alluxio.AlluxioInput;
import io.trino.filesystem.alluxio.AlluxioInputStream;
import io.trino.filesystem.alluxio.TracingCacheManager;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.spi.NodeManager;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.metrics.Metrics;
import jakarta.annotation.PreDestroy;

import java.io.IOException;
import java.time.InstantSource;
import java.util.Collection;
import java.util.Optional;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Overdrive's {@link TrinoFileSystemCache}: Trino's {@code CacheFileSystemFactory} routes every data file read of the
 * catalog here on workers. Pages are kept by {@link PageCache}, and read by {@link SharedScans} (concurrent readers of
 * an uncached page share one remote read), or with {@code cache.shared-scans.enabled=false} by Trino's own
 * page-aligned readers, as Trino's Alluxio cache reads them.
 * <p>
 * A file's cache id is the hash of its store (scheme, bucket or host) and its cache key ({@code path#modification
 * time#length}, from the {@code CacheKeyProvider}; {@link CacheKeys}), so a changed file never matches the pages of its
 * previous version, nor a file of the same path in another bucket; {@link #expire} drops the cached versions of a path
 * as well, to free their space at once. A file on an object store modified less than {@code cache.min-file-age} ago is
 * read past the cache ({@code NotCachedRecentlyModified}): its key cannot yet tell a same-second rewrite apart.
 * <p>
 * Files of tables that {@code cache.include-tables} and {@code cache.exclude-tables} leave out ({@link TableFilter})
 * bypass all of it: they are read from remote storage as if there were no cache (hedged reads still apply), counted
 * per file in {@code NotCachedExcludedTable} and per byte in {@code BytesFromRemote}. So do the files read for a query
 * whose session sets {@code cache_enabled=false} ({@code NotCachedSessionBypass}); a session may also switch hedging and
 * shared scans off for its own reads ({@link io.overdrive.cache.session.ReadOptions}).
 */
public class OverdriveFileSystemCache
        implements TrinoFileSystemCache
{
    private static final Logger log = Logger.get(OverdriveFileSystemCache.class);
    private static final HashFunction HASH = Hashing.murmur3_128();

    private final Tracer tracer;
    private final PageCache pageCache;
    private final TableFilter tableFilter;
    private final PageCacheStats stats;
    private final AlluxioConfiguration readerConfiguration;
    private final DataSize pageSize;
    private final HedgedReads hedgedReads;
    private final Optional<SharedScans> sharedScans;
    private final Duration minFileAge;
    private final InstantSource clock;
    // peer reads (cache.peer.*): this worker's service, when on
    private Optional<PeerService> peers = Optional.empty();

    @Inject
    public OverdriveFileSystemCache(
            Tracer tracer,
            CatalogName catalogName,
            PageCacheConfig config,
            PageCacheStats stats,
            HedgedReads hedgedReads,
            SharedScanConfig sharedScanConfig,
            SharedScanStats sharedScanStats,
            PeerConfig peerConfig,
            PeerStats peerStats,
            NodeManager nodeManager)
    {
        this(tracer, catalogName.toString(), PageCache.create(catalogName.toString(), config, stats), TableFilter.create(config), stats, hedgedReads, isSharing(config, sharedScanConfig) ? Optional.of(sharedScanConfig) : Optional.empty(), sharedScanStats, config.getMinFileAge(), InstantSource.system());
        if (!tableFilter.cachesEverything()) {
            log.info("Catalog %s: the page cache caches %s; other tables are read from remote storage only", catalogName, tableFilter);
        }
        if (sharedScans.isPresent()) {
            try {
                peers = PeerService.start(catalogName.toString(), peerConfig, peerStats, pageCache, sharedScans.get(), nodeManager.getCurrentNode().getHostAndPort());
            }
            catch (RuntimeException e) {
                sharedScans.get().close();
                pageCache.close();
                throw e;
            }
            peers.ifPresent(service -> usePeers(service.reads()));
        }
    }

    /** A cache of every table's pages. */
    public OverdriveFileSystemCache(Tracer tracer, String catalog, PageCache pageCache, PageCacheStats stats, HedgedReads hedgedReads, Optional<SharedScanConfig> sharedScans, SharedScanStats sharedScanStats)
    {
        this(tracer, catalog, pageCache, TableFilter.ALL, stats, hedgedReads, sharedScans, sharedScanStats);
    }

    /**
     * @param tableFilter the tables whose files are cached; the others are read from remote storage only
     * @param hedgedReads hedges the reads of pages that are not cached (cache hits never reach it)
     * @param sharedScans shared scans' settings; empty: Trino's own readers, each reader fetching its own misses
     */
    public OverdriveFileSystemCache(Tracer tracer, String catalog, PageCache pageCache, TableFilter tableFilter, PageCacheStats stats, HedgedReads hedgedReads, Optional<SharedScanConfig> sharedScans, SharedScanStats sharedScanStats)
    {
        this(tracer, catalog, pageCache, tableFilter, stats, hedgedReads, sharedScans, sharedScanStats, new PageCacheConfig().getMinFileAge(), InstantSource.system());
    }

    /**
     * @param minFileAge files of stores whose modification times count whole seconds are read past the cache until
     * their key's modification time is this old ({@link CacheKeys#isTooRecent})
     * @param clock the time those ages are measured against
     */
    public OverdriveFileSystemCache(Tracer tracer, String catalog, PageCache pageCache, TableFilter tableFilter, PageCacheStats stats, HedgedReads hedgedReads, Optional<SharedScanConfig> sharedScans, SharedScanStats sharedScanStats, Duration minFileAge, InstantSource clock)
    {
        this.minFileAge = requireNonNull(minFileAge, "minFileAge is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.hedgedReads = requireNonNull(hedgedReads, "hedgedReads is null");
        this.tracer = requireNonNull(tracer, "tracer is null");
        this.pageCache = requireNonNull(pageCache, "pageCache is null");
        this.tableFilter = requireNonNull(tableFilter, "tableFilter is null");
        this.stats = requireNonNull(stats, "stats is null");
        AlluxioProperties properties = new AlluxioProperties();
        properties.set(PropertyKey.USER_CLIENT_CACHE_PAGE_SIZE, Integer.toString(pageCache.pageSize()));
        this.readerConfiguration = new InstancedConfiguration(properties);
        this.pageSize = DataSize.ofBytes(pageCache.pageSize());
        this.sharedScans = sharedScans.map(config -> new SharedScans(catalog, pageCache, config, sharedScanStats, stats));
    }

    /** Whether the catalog's reads share their fetches: with {@code cache.shared-scans.enabled}, except in a dry run. */
    public static boolean isSharing(PageCacheConfig cache, SharedScanConfig sharedScans)
    {
        // a dry run observes what the cache would hold and changes nothing about how data is read
        return cache.isEnabled() && !cache.isDryRun() && sharedScans.isEnabled();
    }

    @Override
    public TrinoInput cacheInput(TrinoInputFile delegate, String key)
            throws IOException
    {
        CacheReadContext context = CacheReadContext.current();
        TrinoInputFile remote = hedgedReads.wrap(delegate, context.options().hedging(), context.readStats());
        if (!caches(context, delegate.location(), key)) {
            return new RemoteInput(remote.newInput(), stats, context.readStats());
        }
        String storeKey = CacheKeys.storeKey(delegate.location(), key);
        if (sharedScans.isPresent() && context.options().sharedScans()) {
            return sharedScans.get().input(remote, fileId(storeKey), delegate.length(), context);
        }
        // its remote reads timed, as what the cache disks' reads are compared with
        return new AlluxioInput(tracer, TimedRemoteFile.wrap(remote, pageCache), storeKey, status(delegate, storeKey), cacheManager(delegate, storeKey, context), readerConfiguration, new RemoteReadCountingStats(stats, context.readStats()));
    }

    @Override
    public TrinoInputStream cacheStream(TrinoInputFile delegate, String key)
            throws IOException
    {
        CacheReadContext context = CacheReadContext.current();
        TrinoInputFile remote = hedgedReads.wrap(delegate, context.options().hedging(), context.readStats());
        if (!caches(context, delegate.location(), key)) {
            return new RemoteInputStream(remote.newStream(), stats, context.readStats());
        }
        String storeKey = CacheKeys.storeKey(delegate.location(), key);
        if (sharedScans.isPresent() && context.options().sharedScans()) {
            return sharedScans.get().stream(remote, fileId(storeKey), delegate.length(), context);
        }
        return new AlluxioInputStream(tracer, TimedRemoteFile.wrap(remote, pageCache), storeKey, status(delegate, storeKey), cacheManager(delegate, storeKey, context), readerConfiguration, new RemoteReadCountingStats(stats, context.readStats()));
    }

    // whether the file is read through the cache: its table is cached, the query's session did not set
    // cache_enabled=false, and its key tells its versions apart (CacheKeys.isTooRecent)
    private boolean caches(CacheReadContext context, Location location, String key)
    {
        if (!context.options().cache()) {
            stats.recordNotCachedSessionBypass();
            return false;
        }
        if (!tableFilter.caches(context)) {
            stats.recordNotCachedExcludedTable();
            return false;
        }
        if (CacheKeys.isTooRecent(location, key, minFileAge, clock.instant())) {
            stats.recordNotCachedRecentlyModified();
            return false;
        }
        return true;
    }

    // the page cache for this file, with Trino's tracing spans on every get and put, as Trino's own Alluxio cache has
    private CacheManager cacheManager(TrinoInputFile file, String key, CacheReadContext context)
    {
        return new TracingCacheManager(tracer, key, pageSize, pageCache.adapterFor(file.location().toString(), context));
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
        peers.ifPresent(PeerService::close);
        sharedScans.ifPresent(SharedScans::close);
        pageCache.close();
    }

    /**
     * Where this worker's readers ask for the pages they miss before storage (its peer service's client); without shared
     * scans, nowhere.
     */
    public void usePeers(PeerReads reads)
    {
        sharedScans.ifPresent(scans -> scans.usePeers(reads));
    }

    public PageCache pageCache()
    {
        return pageCache;
    }

    public PageCacheStats stats()
    {
        return stats;
    }

    public TableFilter tableFilter()
    {
        return tableFilter;
    }

    public Optional<SharedScans> sharedScans()
    {
        return sharedScans;
    }

    private static URIStatus status(TrinoInputFile file, String key)
            throws IOException
    {
        FileInfo info = new FileInfo()
                .setPath(file.location().toString())
                .setLength(file.length());
        return new URIStatus(info, CacheContext.defaults().setCacheIdentifier(fileId(key)));
    }

    /**
     * The cache key ({@link CacheKeys#storeKey}: the store, then {@code path#modification time#length} or Iceberg's
     * path) hashed: a changed file gets a new id, and so does the same path in another bucket.
     */
    public static String fileId(String key)
    {
        return HASH.hashString(key, UTF_8).toString();
    }

    // Trino's readers report remote reads here; Overdrive's own stats count cache reads at the page level
    private static final class RemoteReadCountingStats
            extends AlluxioCacheStats
    {
        private final PageCacheStats stats;
        private final QueryReadStats readStats;

        RemoteReadCountingStats(PageCacheStats stats, QueryReadStats readStats)
        {
            this.stats = stats;
            this.readStats = readStats;
        }

        @Override
        public void recordExternalRead(int length)
        {
            super.recordExternalRead(length);
            stats.recordRemoteRead(length);
            readStats.recordFromStorage(length);
        }
    }

    // an excluded file's input: remote storage only, its bytes counted as the cache's remote reads are
    private static final class RemoteInput
            implements TrinoInput
    {
        private final TrinoInput delegate;
        private final PageCacheStats stats;
        private final QueryReadStats readStats;

        RemoteInput(TrinoInput delegate, PageCacheStats stats, QueryReadStats readStats)
        {
            this.delegate = requireNonNull(delegate, "delegate is null");
            this.stats = requireNonNull(stats, "stats is null");
            this.readStats = requireNonNull(readStats, "readStats is null");
        }

        private void recordRemoteRead(long bytes)
        {
            stats.recordRemoteRead(bytes);
            readStats.recordFromStorage(bytes);
        }

        @Override
        public void readFully(long position, byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException
        {
            delegate.readFully(position, buffer, bufferOffset, bufferLength);
            recordRemoteRead(bufferLength);
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException
        {
            int read = delegate.readTail(buffer, bufferOffset, bufferLength);
            recordRemoteRead(read);
            return read;
        }

        @Override
        public Slice readFully(long position, int length)
                throws IOException
        {
            Slice slice = delegate.readFully(position, length);
            recordRemoteRead(slice.length());
            return slice;
        }

        @Override
        public Slice readTail(int length)
                throws IOException
        {
            Slice slice = delegate.readTail(length);
            recordRemoteRead(slice.length());
            return slice;
        }

        @Override
        public Metrics getMetrics()
        {
            return delegate.getMetrics();
        }

        @Override
        public void close()
                throws IOException
        {
            delegate.close();
        }
    }

    private static final class RemoteInputStream
            extends TrinoInputStream
    {
        private final TrinoInputStream delegate;
        private final PageCacheStats stats;
        private final QueryReadStats readStats;

        RemoteInputStream(TrinoInputStream delegate, PageCacheStats stats, QueryReadStats readStats)
        {
            this.delegate = requireNonNull(delegate, "delegate is null");
            this.stats = requireNonNull(stats, "stats is null");
            this.readStats = requireNonNull(readStats, "readStats is null");
        }

        private void recordRemoteRead(long bytes)
        {
            stats.recordRemoteRead(bytes);
            readStats.recordFromStorage(bytes);
        }

        @Override
        public long getPosition()
                throws IOException
        {
            return delegate.getPosition();
        }

        @Override
        public void seek(long position)
                throws IOException
        {
            delegate.seek(position);
        }

        @Override
        public int read()
                throws IOException
        {
            int value = delegate.read();
            if (value >= 0) {
                recordRemoteRead(1);
            }
            return value;
        }

        @Override
        public int read(byte[] buffer, int offset, int length)
                throws IOException
        {
            int read = delegate.read(buffer, offset, length);
            if (read > 0) {
                recordRemoteRead(read);
            }
            return read;
        }

        @Override
        public long skip(long n)
                throws IOException
        {
            return delegate.skip(n);
        }

        @Override
        public int available()
                throws IOException
        {
            return delegate.available();
        }

        @Override
        public void close()
                throws IOException
        {
            delegate.close();
        }
    }
}
