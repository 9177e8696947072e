package io.overdrive.cache.page;

import alluxio.client.file.CacheContext;
import alluxio.client.file.cache.PageId;
import alluxio.client.quota.CacheScope;
import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.collect.ImmutableList;
import com.google.common.hash.Hashing;
import com.google.common.util.concurrent.RateLimiter;
import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.overdrive.cache.config.PageCacheConfig;
import io.overdrive.cache.stats.PageCacheStats;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A worker's page cache for one catalog: pages of remote files kept in local directories, each page stored with a
 * checksum ({@link PageFrame}) by an Alluxio cache manager per directory ({@link PageStoreDirectory}). A file's pages
 * all live in one directory, chosen by rendezvous hashing among the healthy ones. Each catalog keeps its pages in its
 * own subdirectory of every {@code cache.base-directory}, claimed while it runs ({@link DirectoryOwner}).
 * <p>
 * Every failure path is a cache miss, never an error: the caller then reads remote storage.
 */
public final class PageCache
        implements AutoCloseable
{
    private static final Logger log = Logger.get(PageCache.class);

    private final int pageSize;
    private final List<PageStoreDirectory> directories;
    private final Optional<AdmissionFilter> admission;
    private final CacheQuotas quotas;
    private final Optional<RateLimiter> writeRateLimiter;
    // dry-run: which pages the cache would hold (an LRU by page bytes up to the configured size), and no data
    private final Optional<Cache<PageId, Integer>> shadow;
    private final long shadowCapacity;
    private final AtomicLong shadowBytes = new AtomicLong();
    private final PageCacheStats stats;
    private final ThreadLocal<byte[]> frameBuffers;
    private final FileIndex fileIndex = new FileIndex(1_000_000);
    private final Optional<ScheduledExecutorService> prober;

    /**
     * Opens the cache of catalog {@code catalog}: in each of {@code cache.base-directory}, the subdirectory named after
     * the catalog, so that catalogs sharing a disk never touch each other's pages.
     *
     * @throws IllegalStateException when another Trino process (or node in this JVM) already uses one of them
     */
    public PageCache(String catalog, PageCacheConfig config, PageCacheStats stats)
    {
        requireNonNull(catalog, "catalog is null");
        requireNonNull(config, "config is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.pageSize = Math.toIntExact(config.getPageSize().toBytes());
        int frameSize = pageSize + PageFrame.TRAILER_SIZE;
        this.frameBuffers = ThreadLocal.withInitial(() -> new byte[frameSize]);

        long totalBytes = config.maxSizePerDirectory().stream().mapToLong(size -> size.toBytes()).sum();
        this.admission = config.isAdmissionEnabled()
                ? Optional.of(new AdmissionFilter(Math.max(1, totalBytes / pageSize), config.getAdmissionMinFrequency()))
                : Optional.empty();
        this.quotas = new CacheQuotas(config.getSchemaQuota(), config.getTableQuota(), stats);
        this.writeRateLimiter = config.getWriteRateLimit().map(limit -> RateLimiter.create(limit.toBytes()));

        if (config.isDryRun()) {
            this.shadowCapacity = totalBytes;
            this.shadow = Optional.of(CacheBuilder.newBuilder()
                    .maximumWeight(totalBytes)
                    .<PageId, Integer>weigher((_, length) -> length)
                    .removalListener(removal -> shadowBytes.addAndGet(-removal.getValue()))
                    .build());
            this.directories = ImmutableList.of();
            this.prober = Optional.empty();
        }
        else {
            this.shadowCapacity = 0;
            this.shadow = Optional.empty();
            this.directories = openDirectories(catalog, config, stats);
            this.prober = Optional.of(startProber(catalog, directories, config.getDirectoryRetryInterval()));
        }
        stats.setUsageSuppliers(
                () -> directories.stream().filter(PageStoreDirectory::isEnabled).mapToLong(PageStoreDirectory::usedBytes).sum(),
                () -> directories.stream().mapToLong(PageStoreDirectory::recoveredBytes).sum(),
                () -> directories.stream().filter(directory -> !directory.isEnabled()).count());
    }

    private static List<PageStoreDirectory> openDirectories(String catalog, PageCacheConfig config, PageCacheStats stats)
    {
        List<PageStoreDirectory> directories = new ArrayList<>();
        List<String> paths = config.getBaseDirectories();
        try {
            for (int i = 0; i < paths.size(); i++) {
                Path base = Path.of(paths.get(i)).toAbsolutePath();
                Path path = base.resolve(catalog);
                long capacity = config.maxSizePerDirectory().get(i).toBytes();
                warnAboutEarlierLayout(base);
                Optional<String> unusable = prepare(path);
                // throws, failing the catalog, when another cache uses the directory
                Optional<DirectoryOwner> owner = unusable.isPresent() ? Optional.empty() : DirectoryOwner.claim(path, catalog);
                if (unusable.isEmpty() && owner.isEmpty()) {
                    unusable = Optional.of("cannot write " + path.resolve(DirectoryOwner.FILE_NAME));
                }
                if (unusable.isPresent()) {
                    // never opened, so never probed: a directory that does not work at startup stays out until restart
                    stats.recordDirectoryDisabled();
                    log.error("Overdrive cache directory %s cannot be used (%s); it is left out until the catalog restarts", path, unusable.get());
                    continue;
                }
                DirectoryHealth health = new DirectoryHealth(path, config.getDirectoryFailureThreshold(), config.getDirectoryRetryInterval(), Ticker.systemTicker(), stats);
                try {
                    directories.add(PageStoreDirectory.open(path, owner.get(), AlluxioCacheOptions.forDirectory(config, path, capacity), health, config.getTtl(), stats));
                }
                catch (Exception e) {
                    owner.get().close();
                    stats.recordDirectoryDisabled();
                    log.error(e, "Overdrive cache directory %s cannot be used; it is left out until the catalog restarts", path);
                }
            }
        }
        catch (RuntimeException e) {
            directories.forEach(PageCache::closeQuietly);
            throw e;
        }
        return ImmutableList.copyOf(directories);
    }

    // pages of Overdrive versions before catalogs had their own subdirectories are never read again
    private static void warnAboutEarlierLayout(Path base)
    {
        if (Files.isDirectory(base.resolve("LOCAL"))) {
            log.warn("%s holds cached pages in the layout of an earlier Overdrive version, which are not used: delete %s to free the space", base, base.resolve("LOCAL"));
        }
    }

    // creates the directory if needed; an unusable one is reported, not fatal
    private static Optional<String> prepare(Path path)
    {
        try {
            Files.createDirectories(path);
        }
        catch (IOException | RuntimeException e) {
            return Optional.of("cannot create it: " + e.getMessage());
        }
        if (!Files.isWritable(path) || !Files.isReadable(path)) {
            return Optional.of("it is not readable and writable by this process");
        }
        return Optional.empty();
    }

    // one daemon thread per catalog probes the directories out of use once their back-off has passed
    private static ScheduledExecutorService startProber(String catalog, List<PageStoreDirectory> directories, Duration retryInterval)
    {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(daemonThreadsNamed("overdrive-cache-probe-" + catalog));
        long periodMillis = Math.clamp(retryInterval.toMillis() / 2, 100, 1000);
        executor.scheduleWithFixedDelay(() -> directories.forEach(PageStoreDirectory::probeIfDue), periodMillis, periodMillis, MILLISECONDS);
        return executor;
    }

    private static void closeQuietly(AutoCloseable closeable)
    {
        try {
            closeable.close();
        }
        catch (Exception e) {
            log.warn(e, "Failed to close %s", closeable);
        }
    }

    public int pageSize()
    {
        return pageSize;
    }

    /** This cache as the Alluxio cache manager Trino's page-aligned readers drive, for the file at {@code path}. */
    public alluxio.client.file.cache.CacheManager adapterFor(String path, CacheReadContext context)
    {
        return new PageCacheManagerAdapter(this, path, context);
    }

    /**
     * Copies up to {@code length} bytes of the page from {@code pageOffset} into {@code target}, returning how many, or
     * 0 when the cache cannot serve the page (absent, unreadable, corrupt, directory out of use).
     */
    public int read(PageId pageId, int pageOffset, int length, byte[] target, int targetOffset)
    {
        if (shadow.isPresent()) {
            if (shadow.get().getIfPresent(pageId) != null) {
                stats.recordDryRunWouldBeHit();
            }
            stats.recordMiss();
            return 0;
        }
        Optional<PageStoreDirectory> directory = directoryFor(pageId.getFileId());
        if (directory.isEmpty()) {
            stats.recordMiss();
            return 0;
        }
        byte[] frame = frameBuffers.get();
        int stored = directory.get().readFrame(pageId, frame);
        if (stored == PageStoreDirectory.LOST) {
            // its file vanished or was cut short: a damaged page, already forgotten by the directory
            stats.recordCorruptPage();
        }
        if (stored <= 0) {
            stats.recordMiss();
            return 0;
        }
        int pageLength = PageFrame.verify(frame, stored);
        if (pageLength < 0) {
            stats.recordCorruptPage();
            if (directory.get().deletePage(pageId)) {
                stats.recordDelete(stored);
            }
            stats.recordMiss();
            return 0;
        }
        int bytes = Math.min(length, pageLength - pageOffset);
        if (bytes <= 0) {
            stats.recordMiss();
            return 0;
        }
        System.arraycopy(frame, pageOffset, target, targetOffset, bytes);
        stats.recordHit(bytes);
        return bytes;
    }

    /**
     * Counts one access to the page for admission. Callers count a page once per opened file, however many reads of
     * it that opening makes: a reader asks for a page once per column chunk, and one scan must not look like a hot set.
     */
    public void recordAccess(PageId pageId)
    {
        admission.ifPresent(filter -> filter.recordRead(pageId.getFileId(), pageId.getPageIndex()));
    }

    /**
     * Offers a whole page of the file at {@code path} to the cache; it may decline (admission, rate limit, failures)
     * and says nothing either way.
     */
    public void write(String path, PageId pageId, ByteBuffer page, CacheReadContext context)
    {
        if (!context.cacheable()) {
            stats.recordNotCachedNotPreferred();
            return;
        }
        int frameLength = page.remaining() + PageFrame.TRAILER_SIZE;
        Optional<PageStoreDirectory> directory = shadow.isPresent() ? Optional.empty() : directoryFor(pageId.getFileId());
        if (shadow.isEmpty() && directory.isEmpty()) {
            return;
        }
        // admission guards eviction only (as in W-TinyLFU): while there is room every page is welcome
        if (admission.isPresent() && wouldEvict(directory, frameLength) && !admission.get().admits(pageId.getFileId(), pageId.getPageIndex())) {
            stats.recordAdmissionRejection();
            return;
        }
        if (writeRateLimiter.isPresent() && !writeRateLimiter.get().tryAcquire(frameLength)) {
            stats.recordRateLimitRejection();
            return;
        }
        if (shadow.isPresent()) {
            shadowBytes.addAndGet(page.remaining());
            shadow.get().put(pageId, page.remaining());
            return;
        }
        CacheContext cacheContext = CacheContext.defaults();
        Optional<CacheScope> scope = quotas.scope(context);
        if (scope.isPresent()) {
            if (!quotas.makeRoom(scope.get(), frameLength, directories)) {
                stats.recordPutRefused();
                return;
            }
            cacheContext.setCacheScope(scope.get());
        }
        switch (directory.get().writeFrame(pageId, PageFrame.encode(page), cacheContext)) {
            // pages written and write errors are counted where the bytes reach the disk, also for asynchronous writes
            case WRITTEN -> fileIndex.add(path, pageId.getFileId());
            case REFUSED -> stats.recordPutRefused();
            case FAILED -> {}
        }
    }

    private boolean wouldEvict(Optional<PageStoreDirectory> directory, int frameLength)
    {
        if (directory.isPresent()) {
            // Alluxio's own view: it evicts below the configured size (it reserves room for its overhead)
            return directory.get().availableBytes() < frameLength;
        }
        return shadowBytes.get() + frameLength > shadowCapacity;
    }

    /** Removes every cached page of the file (for example when the file changed or was deleted). */
    public void deleteFile(String fileId)
    {
        shadow.ifPresent(cache -> cache.asMap().keySet().removeIf(pageId -> pageId.getFileId().equals(fileId)));
        directoryFor(fileId).ifPresent(directory -> {
            long deleted = directory.deleteFile(fileId);
            if (deleted > 0) {
                stats.recordDelete(deleted);
            }
        });
        fileIndex.remove(fileId);
    }

    /** Removes every cached version of the file at {@code path} that this worker cached since it started. */
    public void expire(String path)
    {
        for (String fileId : fileIndex.fileIds(path)) {
            deleteFile(fileId);
        }
    }

    /** Removes the cached files whose path matches, among those this worker cached since it started. */
    public void invalidatePaths(Predicate<String> paths)
    {
        for (String fileId : fileIndex.fileIds(paths)) {
            deleteFile(fileId);
        }
    }

    /** Removes every page in every directory, including pages recovered at startup. */
    public void invalidateAll()
    {
        shadow.ifPresent(Cache::invalidateAll);
        for (PageStoreDirectory directory : directories) {
            long before = directory.usedBytes();
            directory.deleteAll();
            stats.recordDelete(Math.max(0, before - directory.usedBytes()));
        }
        fileIndex.clear();
    }

    // rendezvous hashing over the healthy directories: a directory going out of use moves only its own files
    private Optional<PageStoreDirectory> directoryFor(String fileId)
    {
        PageStoreDirectory best = null;
        long bestScore = Long.MIN_VALUE;
        for (PageStoreDirectory directory : directories) {
            if (!directory.isEnabled()) {
                continue;
            }
            long score = Hashing.murmur3_128().newHasher()
                    .putString(fileId, UTF_8)
                    .putString(directory.path().toString(), UTF_8)
                    .hash().asLong();
            if (best == null || score > bestScore) {
                best = directory;
                bestScore = score;
            }
        }
        return Optional.ofNullable(best);
    }

    List<PageStoreDirectory> directories()
    {
        return directories;
    }

    @Override
    public void close()
            throws Exception
    {
        prober.ifPresent(ScheduledExecutorService::shutdownNow);
        for (PageStoreDirectory directory : directories) {
            directory.close();
        }
    }
}
