package io.overdrive.cache.scan;

import alluxio.client.file.cache.PageId;
import com.google.common.base.Ticker;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.peer.PagesInFlight;
import io.overdrive.cache.peer.PeerReads;
import io.overdrive.cache.scan.PageFetch.PageBytes;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import static io.overdrive.cache.Storages.storageOf;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Shared scans for one catalog on a node that reads data ({@code cache.shared-scans.enabled}): the page cache's reads
 * of data files, where concurrent readers of an uncached page share one remote read ({@link SharedPageReader}).
 */
public final class SharedScans
        implements PagesInFlight, AutoCloseable
{
    // a page fetched ahead that no reader read within this long was wasted
    static final Duration UNREAD_RETENTION = new Duration(1, MINUTES);
    // what one read of column chunks may prefetch of the next row group, at most
    static final long MAX_PREFETCH_BYTES_PER_READ = 16L << 20;

    private final PageCache cache;
    private final PageCacheStats cacheStats;
    private final SharedScanStats stats;
    private final InFlightPages inFlight = new InFlightPages();
    private final ReadAhead readAhead;
    private final long maxWaitNanos;
    private final boolean rowGroupPrefetch;
    private final long maxPrefetchBytes;
    private final boolean fetchRestOfPage;
    // per storage (scheme and authority of the files' locations): few per catalog
    private final Map<String, FetchCost> fetchCosts = new ConcurrentHashMap<>();
    private volatile PeerReads peers = PeerReads.NONE;

    public SharedScans(String catalog, PageCache cache, SharedScanConfig config, SharedScanStats stats, PageCacheStats cacheStats)
    {
        this(catalog, cache, config, stats, cacheStats, Ticker.systemTicker());
    }

    SharedScans(String catalog, PageCache cache, SharedScanConfig config, SharedScanStats stats, PageCacheStats cacheStats, Ticker ticker)
    {
        this.cache = requireNonNull(cache, "cache is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.cacheStats = requireNonNull(cacheStats, "cacheStats is null");
        // as the catalog's configuration checked: one read-ahead fits its memory
        config.checkReadAheadFits(DataSize.ofBytes(cache.pageSize()));
        this.readAhead = new ReadAhead(catalog, config.getReadAhead(), config.getReadAheadMaxMemory().toBytes(), UNREAD_RETENTION, ticker, stats);
        this.maxWaitNanos = config.getMaxWait().roundTo(NANOSECONDS);
        this.rowGroupPrefetch = config.isRowGroupPrefetch();
        // a quarter of the read-ahead memory, so that several readers prefetch at once
        this.maxPrefetchBytes = Math.min(MAX_PREFETCH_BYTES_PER_READ, config.getReadAheadMaxMemory().toBytes() / 4);
        this.fetchRestOfPage = config.isFetchRestOfPage();
        stats.setGauges(readAhead::memoryInUse, inFlight::size, readAhead::cleanUp);
        stats.setFetchCosts(this::describeFetchCosts);
    }

    /** Positioned reads of {@code remoteFile} (its cache id {@code fileId}) through the page cache. */
    public TrinoInput input(TrinoInputFile remoteFile, String fileId, long length, CacheReadContext context)
    {
        return new SharedScanInput(new SharedPageReader(this, remoteFile, fileId, length, context));
    }

    /** A stream over {@code remoteFile} (its cache id {@code fileId}) through the page cache. */
    public TrinoInputStream stream(TrinoInputFile remoteFile, String fileId, long length, CacheReadContext context)
    {
        return new SharedScanInputStream(new SharedPageReader(this, remoteFile, fileId, length, context), remoteFile.location(), cache.pageSize());
    }

    /**
     * Where readers ask for the bytes they miss before storage: another worker's cache (peer reads), when the split's
     * coordinator named one.
     */
    public void usePeers(PeerReads peers)
    {
        this.peers = requireNonNull(peers, "peers is null");
    }

    PeerReads peers()
    {
        return peers;
    }

    boolean fetchRestOfPage()
    {
        return fetchRestOfPage;
    }

    /** What a remote read of the storage that holds {@code location} costs, as this catalog's fetches measured it. */
    FetchCost fetchCost(Location location)
    {
        return fetchCosts.computeIfAbsent(storageOf(location), _ -> new FetchCost(cache.pageSize()));
    }

    private String describeFetchCosts()
    {
        return fetchCosts.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(entry -> entry.getKey() + ": " + entry.getValue().estimate().map(Object::toString).orElse("not known yet"))
                .collect(Collectors.joining("; "));
    }

    boolean rowGroupPrefetch()
    {
        return rowGroupPrefetch;
    }

    long maxPrefetchBytes()
    {
        return maxPrefetchBytes;
    }

    PageCache cache()
    {
        return cache;
    }

    InFlightPages inFlight()
    {
        return inFlight;
    }

    @Override
    public boolean fetching(PageId pageId)
    {
        return inFlight.get(pageId).map(PageFetch::isFromStorage).orElse(false);
    }

    @Override
    public boolean awaitFetched(PageId pageId, int from, int length, byte[] target, int targetOffset, long timeoutNanos)
            throws InterruptedException
    {
        Optional<PageFetch> fetch = inFlight.get(pageId).filter(PageFetch::isFromStorage);
        if (fetch.isEmpty()) {
            return false;
        }
        PageBytes bytes;
        try {
            bytes = fetch.get().await(timeoutNanos);
        }
        catch (ExecutionException | TimeoutException e) {
            return false;
        }
        if (!bytes.covers(from, from + length)) {
            return false;
        }
        bytes.copyTo(from, target, targetOffset, length);
        return true;
    }

    ReadAhead readAhead()
    {
        return readAhead;
    }

    SharedScanStats stats()
    {
        return stats;
    }

    long maxWaitNanos()
    {
        return maxWaitNanos;
    }

    /** A remote read of {@code bytes} bytes that took {@code nanos}: counted, and compared with the cache disks' reads. */
    void recordRemoteRead(long bytes, long nanos)
    {
        cacheStats.recordRemoteRead(bytes);
        cache.recordStorageRead(bytes, nanos);
    }

    @Override
    public void close()
    {
        readAhead.close();
    }
}
