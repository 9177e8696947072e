package io.overdrive.cache.page;

import alluxio.client.file.CacheContext;
import alluxio.client.file.cache.PageId;
import alluxio.client.quota.CacheScope;
import com.google.common.base.Ticker;
import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The page cache on local disks: pages kept in local directories, each page stored with a checksum
 * ({@link PageFrame}) by an Alluxio cache manager per directory ({@link PageStoreDirectory}). A file's pages all live in
 * one directory ({@link DirectoryChooser}). Each catalog keeps its pages in its own subdirectory of every
 * {@code cache.base-directory}, claimed while it runs ({@link DirectoryOwner}). Pages left by a previous process are
 * restored in the background ({@link PageRestore}) while the cache serves.
 */
final class LocalPageCache
        implements PageCache
{
    private static final Logger log = Logger.get(LocalPageCache.class);
    private static final int PARTIAL_PAGES_REMEMBERED = 100_000;

    private final int pageSize;
    private final List<PageStoreDirectory> directories;
    private final DirectoryChooser chooser;
    private final WriteGate writeGate;
    private final CacheQuotas quotas;
    private final TableScopes scopes = new TableScopes();
    private final PageCacheStats stats;
    private final FileIndex fileIndex = new FileIndex(FileIndex.DEFAULT_MAX_PATHS);
    // pages written in part since the start, with the chunks written, so that contains() does not count them (a
    // read-ahead then fetches them whole) and a prefetch skips the chunks they hold. A hint only (forgotten all at once
    // past its bound; pages evicted may stay in it): reads verify every chunk anyway
    private final Map<PageId, BitSet> partialPages = new ConcurrentHashMap<>();
    private final ScheduledExecutorService prober;
    private final ExecutorService restorer;
    // per directory, by identity
    private final Map<PageStoreDirectory, PageRestore> restores = new IdentityHashMap<>();
    // what flushes removed while a restore runs, so that it does not bring back pages of those files
    private final FlushesDuringRestore flushesDuringRestore;
    // directories reading slower than remote storage step aside; per directory, by identity
    private final DiskStepAside stepAside;
    private final Map<PageStoreDirectory, DiskStepAside.Disk> disks = new IdentityHashMap<>();
    // with cache.async-write-enabled: pages waiting for the disk (null: pages are written on the caller's thread)
    private final BackgroundWrites backgroundWrites;
    private volatile boolean closed;

    /**
     * Opens the cache of catalog {@code catalog}: in each of {@code cache.base-directory}, the subdirectory named after
     * the catalog, so that catalogs sharing a disk never touch each other's pages.
     *
     * @throws IllegalStateException when another Trino process (or node in this JVM) already uses one of them
     */
    LocalPageCache(String catalog, PageCacheConfig config, PageCacheStats stats)
    {
        this(catalog, config, stats, () -> {});
    }

    /** {@code beforeRestore} runs on each restore thread before it starts: tests hold the restores back with it. */
    LocalPageCache(String catalog, PageCacheConfig config, PageCacheStats stats, Runnable beforeRestore)
    {
        this(catalog, config, stats, beforeRestore, PageRestore.Hooks.NONE);
    }

    /** {@code restoreHooks} run within the restores' walks: tests change the files under them with it. */
    LocalPageCache(String catalog, PageCacheConfig config, PageCacheStats stats, Runnable beforeRestore, PageRestore.Hooks restoreHooks)
    {
        requireNonNull(catalog, "catalog is null");
        requireNonNull(config, "config is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.pageSize = Math.toIntExact(config.getPageSize().toBytes());
        this.flushesDuringRestore = new FlushesDuringRestore(catalog);
        this.writeGate = new WriteGate(config, stats);
        this.quotas = new CacheQuotas(config.getSchemaQuota(), config.getTableQuota(), stats);
        this.directories = openDirectories(catalog, config, stats);
        this.chooser = new DirectoryChooser(directories);
        long diskReadDelayNanos = config.getTestingDiskReadDelay().roundTo(NANOSECONDS);
        if (diskReadDelayNanos > 0) {
            directories.forEach(directory -> directory.beforeRead(() -> sleepUninterruptibly(diskReadDelayNanos, NANOSECONDS)));
        }
        this.stepAside = new DiskStepAside(config.isSlowDiskStepAsideEnabled(), Ticker.systemTicker(), stats);
        directories.forEach(directory -> disks.put(directory, stepAside.disk(directory.path())));
        stats.setStepAside(stepAside);
        this.prober = startProber(catalog, directories, config.getDirectoryRetryInterval());
        stats.setUsage(new DirectoriesUsage(directories, fileIndex));
        this.backgroundWrites = config.isAsyncWriteEnabled()
                ? new BackgroundWrites(catalog, Math.clamp(directories.size(), 2, 8), config.getAsyncWriteBufferSize().toBytes(), this::storePending, stats)
                : null;
        this.restorer = startRestores(catalog, config, requireNonNull(beforeRestore, "beforeRestore is null"), requireNonNull(restoreHooks, "restoreHooks is null"));
    }

    // one thread per directory (ideally one disk each); the cache serves meanwhile, its misses going to remote storage
    private ExecutorService startRestores(String catalog, PageCacheConfig config, Runnable beforeRestore, PageRestore.Hooks hooks)
    {
        ExecutorService executor = Executors.newFixedThreadPool(Math.max(1, directories.size()), daemonThreadsNamed("overdrive-cache-restore-" + catalog + "-%s"));
        PageRestore.Owner owner = new PageRestore.Owner()
        {
            @Override
            public CacheScope scope(CachedFile file)
            {
                return scopes.scopeOf(file.context()).orElse(CacheScope.GLOBAL);
            }

            @Override
            public boolean fitsQuota(CacheScope scope, long bytes)
            {
                return quotas.fits(scope, bytes, directories);
            }

            @Override
            public boolean flushed(String path)
            {
                return flushesDuringRestore.flushed(path);
            }

            @Override
            public void indexFile(String path, String fileId)
            {
                fileIndex.add(path, fileId);
            }

            @Override
            public void unindexFile(String fileId)
            {
                fileIndex.remove(fileId);
            }
        };
        for (PageStoreDirectory directory : directories) {
            restores.put(directory, new PageRestore(directory, pageSize, config.getTtl(), owner, stats, () -> closed, hooks));
        }
        // once every restore has ended (each withdraws what it had not registered), flushes need not be remembered
        AtomicInteger running = new AtomicInteger(directories.size());
        if (directories.isEmpty()) {
            flushesDuringRestore.end();
        }
        for (PageStoreDirectory directory : directories) {
            stats.recordRestoreStarted();
            PageRestore restore = restores.get(directory);
            executor.execute(() -> {
                try {
                    beforeRestore.run();
                    restore.run();
                }
                finally {
                    if (running.decrementAndGet() == 0) {
                        flushesDuringRestore.end();
                    }
                }
            });
        }
        executor.shutdown();
        return executor;
    }

    /** Waits until every directory's restore has finished; false when {@code timeout} passed first. */
    boolean awaitRestore(Duration timeout)
            throws InterruptedException
    {
        return restorer.awaitTermination(timeout.toMillis(), MILLISECONDS);
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
            directories.forEach(LocalPageCache::closeQuietly);
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

    // creates the directory if needed, readable by this user only; an unusable one is reported, not fatal
    private static Optional<String> prepare(Path path)
    {
        try {
            Files.createDirectories(path);
        }
        catch (IOException | RuntimeException e) {
            return Optional.of("cannot create it: " + e.getMessage());
        }
        try {
            OwnerOnly.restrictDirectory(path);
        }
        catch (IOException | RuntimeException e) {
            log.warn("Cannot make Overdrive cache directory %s readable by this user only (%s): other users of the host may read the cached pages there. Let the Trino user own it, or make it rwx------", path, e);
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
        // a task that throws is never run again: keep every failure inside
        var _ = executor.scheduleWithFixedDelay(() -> {
            try {
                directories.forEach(PageStoreDirectory::probeIfDue);
            }
            catch (RuntimeException e) {
                log.error(e, "Probing the cache directories of catalog %s failed", catalog);
            }
        }, periodMillis, periodMillis, MILLISECONDS);
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

    @Override
    public int pageSize()
    {
        return pageSize;
    }

    @Override
    public int read(PageId pageId, int pageOffset, int length, byte[] target, int targetOffset)
    {
        // background writes: a page waiting for the disk is served from its bytes
        if (backgroundWrites != null) {
            BackgroundWrites.PendingWrite pending = backgroundWrites.pending(pageId);
            int bytes = pending == null ? 0 : pending.read(pageOffset, length, target, targetOffset);
            if (bytes > 0) {
                stats.recordWriteBufferHit();
                stats.recordHit(bytes);
                return bytes;
            }
        }
        Optional<PageStoreDirectory> directory = chooser.directoryFor(pageId.getFileId());
        if (directory.isEmpty()) {
            stats.recordMiss();
            return 0;
        }
        // --- slow disk step-aside: a directory slower than storage serves no hits, but for a sampled read that measures it
        DiskStepAside.Disk disk = disks.get(directory.get());
        if (!disk.readsDisk(() -> directory.get().contains(pageId))) {
            stats.recordMiss();
            return 0;
        }
        long readStart = System.nanoTime();
        // --- end slow disk step-aside
        // looked at before the lookup: a restore that ends after this miss may have registered the page meanwhile
        PageRestore restore = restoreRunningIn(directory.get());
        int bytes = directory.get().readPage(pageId, pageOffset, length, target, targetOffset);
        if (bytes > 0) {
            disk.recordRead(bytes, System.nanoTime() - readStart);
        }
        if (bytes == 0 && restore != null && restore.restoreOnRead(pageId)) {
            bytes = directory.get().readPage(pageId, pageOffset, length, target, targetOffset);
        }
        if (bytes == PageStoreDirectory.PARTIAL) {
            stats.recordPartialPageMiss();
        }
        if (bytes == PageStoreDirectory.LOST) {
            // its file vanished, was cut short or failed a checksum: a damaged page, already dropped by the directory
            stats.recordCorruptPage();
        }
        if (bytes <= 0) {
            stats.recordMiss();
            return 0;
        }
        stats.recordHit(bytes);
        return bytes;
    }

    // while it runs, a page found at startup that it has not reached yet is restored on a read, not read from storage
    private PageRestore restoreRunningIn(PageStoreDirectory directory)
    {
        return directory.restoring() ? restores.get(directory) : null;
    }

    @Override
    public boolean contains(PageId pageId)
    {
        if (backgroundWrites != null) {
            BackgroundWrites.PendingWrite pending = backgroundWrites.pending(pageId);
            if (pending != null && pending.whole()) {
                return true;
            }
        }
        Optional<PageStoreDirectory> directory = chooser.directoryFor(pageId.getFileId());
        if (directory.isEmpty()) {
            return false;
        }
        // a page found at startup and not restored yet counts: reading it restores it
        if (partialPages.containsKey(pageId) || steppedAside(directory.get())) {
            return false;
        }
        PageRestore restore = restoreRunningIn(directory.get());
        return directory.get().contains(pageId) || (restore != null && restore.waiting(pageId));
    }

    @Override
    public boolean contains(PageId pageId, int from, int to)
    {
        if (backgroundWrites != null) {
            BackgroundWrites.PendingWrite pending = backgroundWrites.pending(pageId);
            if (pending != null && pending.covers(from, to)) {
                return true;
            }
        }
        BitSet chunks = partialPages.get(pageId);
        if (chunks == null) {
            return contains(pageId);
        }
        Optional<PageStoreDirectory> directory = chooser.directoryFor(pageId.getFileId());
        return directory.isPresent()
                && !steppedAside(directory.get())
                && directory.get().contains(pageId)
                && chunks.nextClearBit(from / PageFrame.CHUNK_SIZE) > (to - 1) / PageFrame.CHUNK_SIZE;
    }

    // a directory stepped aside holds its pages, but serves none but sampled reads
    private boolean steppedAside(PageStoreDirectory directory)
    {
        return disks.get(directory).steppedAside();
    }

    @Override
    public void recordStorageRead(long bytes, long nanos)
    {
        stepAside.recordStorageRead(bytes, nanos);
    }

    @Override
    public void recordAccess(PageId pageId)
    {
        writeGate.recordAccess(pageId);
    }

    @Override
    public void write(String path, PageId pageId, ByteBuffer page, CacheReadContext context)
    {
        Optional<Target> target = admit(pageId, page.remaining(), context);
        if (target.isEmpty()) {
            return;
        }
        // background writes: the bytes are copied and the caller returns (BackgroundWrites#submit)
        if (backgroundWrites != null) {
            backgroundWrites.submit(path, pageId, page.remaining(), 0, page, allChunks(page.remaining()), target.get(), CachedFile.of(path, context));
            return;
        }
        storePage(path, pageId, page, target.get(), CachedFile.of(path, context));
    }

    // a whole page to disk, on the caller's thread or a background writer's: whether it was written
    private boolean storePage(String path, PageId pageId, ByteBuffer page, Target target, CachedFile file)
    {
        if (!makeRoom(target, page.remaining())) {
            return false;
        }
        PageStoreDirectory directory = target.directory();
        CacheContext cacheContext = target.cacheContext();
        // a page known to be held in part is filled in (the cache manager keeps a page it has, rather than replace it;
        // one not known so stays partial, its missing chunks added by the reads that need them)
        PageStoreDirectory.WriteResult result = partialPages.containsKey(pageId) && directory.contains(pageId)
                ? directory.fillFrame(pageId, page.remaining(), toArray(page), allChunks(page.remaining()), cacheContext, file).result()
                : directory.writePage(pageId, page, cacheContext, file);
        switch (result) {
            // pages written and write errors are counted where the bytes reach the disk, also for asynchronous writes
            case WRITTEN -> {
                fileIndex.add(path, pageId.getFileId());
                partialPages.remove(pageId);
            }
            case REFUSED -> stats.recordPutRefused();
            case FAILED -> {}
        }
        return result == PageStoreDirectory.WriteResult.WRITTEN;
    }

    // a background writer's page (whole) or chunks of one
    private boolean storePending(BackgroundWrites.PendingWrite write, byte[] page, BitSet chunks)
    {
        if (chunks.nextClearBit(0) >= PageFrame.chunks(write.pageLength())) {
            return storePage(write.path(), write.pageId(), ByteBuffer.wrap(page, 0, write.pageLength()), write.target(), write.file());
        }
        return storePart(write.path(), write.pageId(), write.pageLength(), page, chunks, write.target(), write.file());
    }

    /** Where a page of the file goes, and the context of its write (its quota scope). */
    record Target(PageStoreDirectory directory, CacheContext cacheContext, Optional<CacheScope> scope) {}

    // quotas, which make room for a page of pageLength bytes (evicting pages of its scope): whether it fits
    private boolean makeRoom(Target target, int pageLength)
    {
        if (target.scope().isPresent() && quotas.isEnabled() && !quotas.makeRoom(target.scope().get(), PageFrame.frameLength(pageLength), directories)) {
            stats.recordPutRefused();
            return false;
        }
        return true;
    }

    // whether a page of pageLength bytes may be written (the node caches the file, a directory takes it, admission),
    // and where; quotas are applied where it is stored (makeRoom). A page the cache declines is counted where it is declined
    private Optional<Target> admit(PageId pageId, int pageLength, CacheReadContext context)
    {
        if (!writeGate.isCacheable(context)) {
            return Optional.empty();
        }
        Optional<PageStoreDirectory> directory = chooser.directoryFor(pageId.getFileId());
        if (directory.isEmpty()) {
            return Optional.empty();
        }
        // slow disk step-aside: no write load on a directory slower than storage
        if (!disks.get(directory.get()).writesDisk()) {
            return Optional.empty();
        }
        int frameLength = PageFrame.frameLength(pageLength);
        // Alluxio's own view of "would evict": it evicts below the configured size (it reserves room for its overhead)
        if (!writeGate.admits(pageId, frameLength, directory.get().availableBytes() < frameLength, context)) {
            return Optional.empty();
        }
        if (context.schema().isEmpty() && !quotas.admitsUnscoped()) {
            stats.recordNotCachedNoTable();
            return Optional.empty();
        }
        CacheContext cacheContext = CacheContext.defaults();
        Optional<CacheScope> scope = scopes.scopeOf(context);
        scope.ifPresent(cacheContext::setCacheScope);
        return Optional.of(new Target(directory.get(), cacheContext, scope));
    }

    private static byte[] toArray(ByteBuffer page)
    {
        byte[] bytes = new byte[page.remaining()];
        page.duplicate().get(bytes);
        return bytes;
    }

    private static BitSet allChunks(int pageLength)
    {
        BitSet chunks = new BitSet();
        chunks.set(0, PageFrame.chunks(pageLength));
        return chunks;
    }

    @Override
    public void writePart(String path, PageId pageId, int pageLength, int pageOffset, ByteBuffer bytes, CacheReadContext context)
    {
        int length = bytes.remaining();
        if (pageOffset < 0 || length <= 0 || pageLength <= 0 || pageLength > pageSize || pageOffset + length > pageLength) {
            return;
        }
        if (pageOffset == 0 && length == pageLength) {
            write(path, pageId, bytes, context);
            return;
        }
        // the chunks the part covers whole; the last chunk of the page may be shorter
        int firstChunk = (pageOffset + PageFrame.CHUNK_SIZE - 1) / PageFrame.CHUNK_SIZE;
        int end = pageOffset + length;
        int endChunk = end == pageLength ? PageFrame.chunks(pageLength) : end / PageFrame.CHUNK_SIZE;
        if (firstChunk >= endChunk) {
            return;
        }
        Optional<Target> target = admit(pageId, pageLength, context);
        if (target.isEmpty()) {
            return;
        }
        BitSet fetched = new BitSet();
        fetched.set(firstChunk, endChunk);
        // background writes: the bytes are copied and the caller returns; the fill runs on a background writer
        if (backgroundWrites != null) {
            backgroundWrites.submit(path, pageId, pageLength, pageOffset, bytes, fetched, target.get(), CachedFile.of(path, context));
            return;
        }
        byte[] page = new byte[pageLength];
        bytes.duplicate().get(page, pageOffset, length);
        storePart(path, pageId, pageLength, page, fetched, target.get(), CachedFile.of(path, context));
    }

    // chunks of a page to disk (a fill, under the page's fill lock), on the caller's thread or a background writer's:
    // whether they were written
    private boolean storePart(String path, PageId pageId, int pageLength, byte[] page, BitSet fetched, Target target, CachedFile file)
    {
        if (!makeRoom(target, pageLength)) {
            return false;
        }
        PageStoreDirectory.Fill fill = target.directory().fillFrame(pageId, pageLength, page, fetched, target.cacheContext(), file);
        switch (fill.result()) {
            case WRITTEN -> {
                fileIndex.add(path, pageId.getFileId());
                if (partialPages.size() >= PARTIAL_PAGES_REMEMBERED) {
                    partialPages.clear();
                }
                if (fill.present().cardinality() == PageFrame.chunks(pageLength)) {
                    partialPages.remove(pageId);
                }
                else {
                    partialPages.put(pageId, fill.present());
                }
                stats.recordPartialPageWrite();
            }
            case REFUSED -> stats.recordPutRefused();
            case FAILED -> {}
        }
        return fill.result() == PageStoreDirectory.WriteResult.WRITTEN;
    }

    // from every directory, not only the file's choice now: one out of use keeps its pages, and serves them again when
    // it comes back, and pages written while it was out are in the file's second choice
    @Override
    public void deleteFile(String fileId)
    {
        // before the disk: a write waiting for it would otherwise bring the page back
        if (backgroundWrites != null) {
            backgroundWrites.cancel(write -> write.pageId().getFileId().equals(fileId));
        }
        // the index before the pages: a write under way adds its page to the index after writing it, so that one landing
        // after these deletions is in the index again, and a later flush of its path finds it
        fileIndex.remove(fileId);
        for (PageStoreDirectory directory : directories) {
            PageStoreDirectory.Deleted deleted = directory.deleteFile(fileId);
            if (deleted.pages() > 0) {
                stats.recordDelete(deleted.pages(), deleted.bytes());
            }
        }
    }

    @Override
    public void expire(String path)
    {
        flushesDuringRestore.path(path);
        if (backgroundWrites != null) {
            backgroundWrites.cancel(write -> write.path().equals(path));
        }
        for (String fileId : fileIndex.fileIds(path)) {
            deleteFile(fileId);
        }
    }

    @Override
    public void invalidatePaths(Predicate<String> paths)
    {
        flushesDuringRestore.paths(paths);
        if (backgroundWrites != null) {
            backgroundWrites.cancel(write -> paths.test(write.path()));
        }
        for (String fileId : fileIndex.fileIds(paths)) {
            deleteFile(fileId);
        }
    }

    @Override
    public void invalidateAll()
    {
        flushesDuringRestore.everything();
        if (backgroundWrites != null) {
            backgroundWrites.cancel(_ -> true);
        }
        // the index before the pages, as in deleteFile
        fileIndex.clear();
        for (PageStoreDirectory directory : directories) {
            PageStoreDirectory.Deleted deleted = directory.deleteAll();
            stats.recordDelete(deleted.pages(), deleted.bytes());
        }
    }

    @Override
    public List<CachedTableUsage> cachedTables()
    {
        Map<CacheScope, TableSum> sums = new HashMap<>();
        for (PageStoreDirectory directory : directories) {
            directory.scopeUsage().forEach((scope, usage) -> sums.computeIfAbsent(scope, _ -> new TableSum()).add(usage));
        }
        List<CachedTableUsage> tables = new ArrayList<>(sums.size());
        sums.forEach((scope, sum) -> {
            if (sum.pages == 0) {
                // nothing cached now (its reads are kept, and shown again once it has pages)
                return;
            }
            Optional<TableScopes.CachedTable> table = scopes.tableOf(scope);
            tables.add(new CachedTableUsage(
                    table.map(TableScopes.CachedTable::schema),
                    table.flatMap(TableScopes.CachedTable::table),
                    sum.files.size(),
                    sum.pages,
                    sum.bytes,
                    sum.hits,
                    sum.hitBytes,
                    sum.lastAccessMillis));
        });
        return tables;
    }

    // a scope's usage over the directories: a file's pages may lie in two (written while its first choice was out of use)
    private static final class TableSum
    {
        private final Set<String> files = new HashSet<>();
        private long pages;
        private long bytes;
        private long hits;
        private long hitBytes;
        private long lastAccessMillis;

        void add(TableTally.ScopeUsage usage)
        {
            files.addAll(usage.pagesByFile().keySet());
            pages += usage.pages();
            bytes += usage.bytes();
            hits += usage.hits();
            hitBytes += usage.hitBytes();
            lastAccessMillis = Math.max(lastAccessMillis, usage.lastAccessMillis());
        }
    }

    @Override
    public List<CacheDirectoryStatus> directoryStatus()
    {
        return directories.stream()
                .map(directory -> new CacheDirectoryStatus(
                        directory.path().toString(),
                        directory.isEnabled(),
                        directory.restoring(),
                        directory.usedBytes(),
                        directory.capacityBytes(),
                        directory.recoveredBytes()))
                .toList();
    }

    private record DirectoriesUsage(List<PageStoreDirectory> directories, FileIndex fileIndex)
            implements PageCacheStats.Usage
    {
        @Override
        public long indexedPaths()
        {
            return fileIndex.paths();
        }

        @Override
        public long indexRetainedBytes()
        {
            return fileIndex.retainedBytes();
        }

        @Override
        public long bytesInUse()
        {
            return directories.stream().filter(PageStoreDirectory::isEnabled).mapToLong(PageStoreDirectory::usedBytes).sum();
        }

        @Override
        public long bytesStored()
        {
            return directories.stream().mapToLong(PageStoreDirectory::usedBytes).sum();
        }

        @Override
        public long bytesRecovered()
        {
            return directories.stream().mapToLong(PageStoreDirectory::recoveredBytes).sum();
        }

        @Override
        public long directoriesOutOfUse()
        {
            return directories.stream().filter(directory -> !directory.isEnabled()).count();
        }
    }

    /** An estimate of the heap the flushes remembered during the restore hold (0 once it has ended). */
    long flushesDuringRestoreRetainedBytes()
    {
        return flushesDuringRestore.retainedBytes();
    }

    List<PageStoreDirectory> directories()
    {
        return directories;
    }

    /** For tests: waits until every page handed to the background writers is written (or dropped); true without them. */
    boolean awaitWrites(Duration timeout)
            throws InterruptedException
    {
        return backgroundWrites == null || backgroundWrites.awaitWrites(timeout);
    }

    /** For tests: the background writers, or null when pages are written on the caller's thread. */
    BackgroundWrites backgroundWrites()
    {
        return backgroundWrites;
    }

    @Override
    public void close()
    {
        closed = true;
        // pages waiting for the disk are dropped (a restart would lose them anyway); one being written is waited for
        if (backgroundWrites != null) {
            backgroundWrites.close();
        }
        prober.shutdownNow();
        try {
            // a restore registers pages in the cache managers closed below: let it see the flag and stop first
            if (!restorer.awaitTermination(30, SECONDS)) {
                log.warn("The cache restore of %s did not stop within 30 seconds", directories);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PageStoreDirectory directory : directories) {
            closeQuietly(directory);
        }
    }
}
