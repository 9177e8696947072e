package io.overdrive.cache.page;

import alluxio.client.file.CacheContext;
import alluxio.client.file.cache.CacheManager;
import alluxio.client.file.cache.CacheManagerOptions;
import alluxio.client.file.cache.CacheUsage;
import alluxio.client.file.cache.LocalCacheManager;
import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;
import alluxio.client.file.cache.PageMetaStore;
import alluxio.client.file.cache.PageStore;
import alluxio.client.file.cache.QuotaPageMetaStore;
import alluxio.client.file.cache.evictor.CacheEvictor;
import alluxio.client.file.cache.store.PageStoreOptions;
import alluxio.client.quota.CacheScope;
import alluxio.conf.AlluxioConfiguration;
import alluxio.exception.PageNotFoundException;
import alluxio.file.ByteArrayTargetBuffer;
import alluxio.file.ByteBufferTargetBuffer;
import com.google.common.util.concurrent.Striped;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import static com.google.common.collect.Iterables.getOnlyElement;
import static java.lang.Math.toIntExact;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * One cache directory (ideally one disk): its own Alluxio {@link CacheManager} holding pages under
 * {@code <directory>/LOCAL/<page size>/<bucket>/<file id>/<page index>}. Real I/O failures past a threshold take the
 * directory out of use ({@link DirectoryHealth}), so a failing disk costs cache hits, never queries; a probe brings it
 * back once it works.
 */
final class PageStoreDirectory
        implements AutoCloseable
{
    enum WriteResult
    {
        /** Stored. */
        WRITTEN,
        /** Declined by the cache manager with nothing wrong: already present or queued, a lost race, no room. */
        REFUSED,
        /** An I/O error, counted toward taking the directory out of use; or an interrupt, which is not. */
        FAILED,
    }

    /** {@link #readPage} of a page that is gone or damaged: its file vanished or is shorter than its metadata says. */
    static final int LOST = -1;
    /** {@link #readPage} of a partial page that lacks some of the bytes asked for (not fetched yet): a miss. */
    static final int PARTIAL = -2;

    private static final Logger log = Logger.get(PageStoreDirectory.class);
    private static final String PROBE_FILE_ID = "overdrive-probe";
    // a fill's new frame is written beside its page, under the page's name with this suffix, then renamed over it
    private static final String FILL_SUFFIX = ".fill";
    // chunks read from the disk at once by a hit; a longer read takes several
    private static final int MAX_CHUNKS_PER_READ = 64;
    private static final int MAX_SPAN_BYTES = PageFrame.chunkStart(MAX_CHUNKS_PER_READ);
    // each reading thread's buffer for the chunks it reads, grown to the largest read (up to MAX_SPAN_BYTES)
    private static final ThreadLocal<ByteBuffer> SPANS = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(4 * PageFrame.CHUNK_SIZE));
    // frames up to this size are built in each writing thread's direct buffer, which the page store's file channel writes
    // from as it is: a frame on the heap costs a new array and the JDK's own copy of it into a temporary direct buffer.
    // The bound is the one Trino's jvm.config puts on those temporary buffers (jdk.nio.maxCachedBufferSize); a larger
    // frame (a page size above about 1.9 MB) goes on the heap
    static final int MAX_POOLED_FRAME_BYTES = 2_000_000;
    private static final ThreadLocal<ByteBuffer> FRAMES = new ThreadLocal<>();

    private final Path path;
    private final CacheManager manager;
    private final PageMetaStore metaStore;
    private final TableTally tally;
    private final FaultReportingPageStoreDir storeDir;
    private final FaultReportingPageStore store;
    private final DirectoryHealth health;
    private final Optional<Duration> ttl;
    private final DirectoryOwner owner;
    private final PageCacheStats stats;
    private final CachedFiles cachedFiles;
    private final AtomicLong recoveredBytes = new AtomicLong();
    // files whose pages the restore is still registering; guarded by the metadata's write lock
    private final Set<String> restoringFiles = new HashSet<>();
    // fills of one page take turns (PageStoreDirectory#fillFrame)
    private final Striped<Lock> fills = Striped.lock(64);
    // set under the metadata's write lock, read without it by readers asking whether to restore a page themselves
    private volatile boolean restoreEnded;
    // for tests: runs in a fill between writing the page's .fill file and renaming it over the page
    private volatile Consumer<Path> beforeFillRename = _ -> {};

    private PageStoreDirectory(Path path, CacheManager manager, PageMetaStore metaStore, TableTally tally, FaultReportingPageStoreDir storeDir, FaultReportingPageStore store, DirectoryHealth health, Optional<Duration> ttl, DirectoryOwner owner, PageCacheStats stats)
    {
        this.stats = requireNonNull(stats, "stats is null");
        this.path = requireNonNull(path, "path is null");
        this.manager = requireNonNull(manager, "manager is null");
        this.metaStore = requireNonNull(metaStore, "metaStore is null");
        this.tally = requireNonNull(tally, "tally is null");
        this.storeDir = requireNonNull(storeDir, "storeDir is null");
        this.store = requireNonNull(store, "store is null");
        this.health = requireNonNull(health, "health is null");
        this.ttl = requireNonNull(ttl, "ttl is null");
        this.owner = requireNonNull(owner, "owner is null");
        this.cachedFiles = new CachedFiles(path);
    }

    /**
     * Opens the cache in {@code path} (claimed by the caller), empty: {@link PageRestore} then registers the pages found
     * there, in the background. The page store and metadata are assembled here rather than by Alluxio's factory so that
     * the store can report I/O failures and the metadata can be asked about scopes and page ages.
     */
    static PageStoreDirectory open(Path path, DirectoryOwner owner, AlluxioConfiguration configuration, DirectoryHealth health, Optional<Duration> ttl, PageCacheStats stats)
            throws Exception
    {
        CacheManagerOptions options = CacheManagerOptions.create(configuration);
        PageStoreOptions storeOptions = getOnlyElement(options.getPageStoreOptions());
        FaultReportingPageStore store = new FaultReportingPageStore(PageStore.create(storeOptions), health, stats);
        FaultReportingPageStoreDir storeDir = new FaultReportingPageStoreDir(storeOptions, store, CacheEvictor.create(options.getCacheEvictorOptions()));
        // per-scope eviction (quotas) costs an evictor entry per page: only when a quota is configured; the tally of
        // files, pages and bytes per table is kept either way
        TableTally tally = new TableTally();
        PageMetaStore metaStore = options.isQuotaEnabled()
                ? new ScopeTrackingPageMetaStore(options.getCacheEvictorOptions(), List.of(storeDir), tally)
                : new TallyingPageMetaStore(List.of(storeDir), tally);
        // without the folder Alluxio's restore fails, and it then empties the directory
        Files.createDirectories(storeDir.getRootPath());
        // LocalCacheManager itself, not Factory.create's NoExceptionCacheManager wrapper: that one lacks invalidate(),
        // and failures are turned into misses here anyway
        storeDir.opening(true);
        CacheManager manager;
        try {
            manager = LocalCacheManager.create(options, metaStore);
        }
        finally {
            storeDir.opening(false);
        }
        return new PageStoreDirectory(path, manager, metaStore, tally, storeDir, store, health, ttl, owner, stats);
    }

    Path path()
    {
        return path;
    }

    /** For tests: {@code hook} runs before each read of a page from the disk from now on (a sleep: a slow disk). */
    void beforeRead(Runnable hook)
    {
        store.beforeGet(hook);
    }

    boolean isEnabled()
    {
        return health.isEnabled();
    }

    DirectoryHealth health()
    {
        return health;
    }

    /** Bytes of pages found on disk at startup and registered so far by {@link PageRestore}. */
    long recoveredBytes()
    {
        return recoveredBytes.get();
    }

    /** Bytes Alluxio can still store in this directory without evicting. */
    long availableBytes()
    {
        return manager.getUsage().map(CacheUsage::available).orElse(0L);
    }

    long usedBytes()
    {
        return manager.getUsage().map(CacheUsage::used).orElse(0L);
    }

    /** The most bytes of pages this directory holds before it evicts (its size less Alluxio's overhead allowance). */
    long capacityBytes()
    {
        return storeDir.getCapacityBytes();
    }

    /** The pages of the file stored here, as the cache manager's metadata records them (for tests). */
    Set<PageInfo> pages(String fileId)
    {
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return Set.copyOf(metaStore.getAllPagesByFileId(fileId));
        }
        finally {
            readLock.unlock();
        }
    }

    /** What this directory holds of each scope (table, schema, or none), at one moment. */
    Map<CacheScope, TableTally.ScopeUsage> scopeUsage()
    {
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return tally.snapshot();
        }
        finally {
            readLock.unlock();
        }
    }

    /**
     * Copies up to {@code length} bytes of the page from {@code pageOffset} into {@code target}: how many; 0 when the
     * page is absent, older than {@code cache.ttl}, or unreadable (an I/O error, counted); {@link #PARTIAL} when it is a
     * partial page without some of those bytes; {@link #LOST} when its file vanished, is short or fails a checksum (the
     * page is then forgotten and its file deleted). Only the chunks
     * covering the bytes asked for are read, each with its checksum in the same read ({@link PageFrame}), and they are
     * verified before a byte is copied: damaged bytes are never served.
     */
    int readPage(PageId pageId, int pageOffset, int length, byte[] target, int targetOffset)
    {
        Optional<PageInfo> info = pageInfo(pageId);
        if (info.isEmpty()) {
            return 0;
        }
        if (ttl.isPresent() && System.currentTimeMillis() - info.get().getCreatedTimestamp() >= ttl.get().toMillis()) {
            deletePage(pageId);
            return 0;
        }
        int pageLength = PageFrame.pageLength(info.get().getPageSize());
        int bytes = Math.min(length, pageLength - pageOffset);
        if (bytes <= 0) {
            return 0;
        }
        // at most MAX_CHUNKS_PER_READ chunks per read of the disk, into this thread's buffer
        int copied = 0;
        while (copied < bytes) {
            int offset = pageOffset + copied;
            int firstChunk = offset / PageFrame.CHUNK_SIZE;
            int end = Math.min(pageOffset + bytes, (firstChunk + MAX_CHUNKS_PER_READ) * PageFrame.CHUNK_SIZE);
            int lastChunk = (end - 1) / PageFrame.CHUNK_SIZE;
            int spanStart = PageFrame.chunkStart(firstChunk);
            int spanLength = PageFrame.chunkEnd(pageLength, lastChunk) - spanStart;
            int read = readSpan(pageId, spanStart, spanLength, info.get().getPageSize());
            if (read <= 0) {
                // 0: evicted since it was looked up
                return read;
            }
            ByteBuffer span = SPANS.get().flip();
            int verified = read == spanLength ? PageFrame.copyVerified(span, pageLength, firstChunk, offset, end - offset, target, targetOffset + copied) : PageFrame.DAMAGED;
            if (verified == PageFrame.ABSENT_CHUNK) {
                return PARTIAL;
            }
            if (verified != PageFrame.VERIFIED) {
                dropCorrupt(pageId, info.get().getPageSize());
                return LOST;
            }
            copied += end - offset;
        }
        tally.recordHit(info.get().getScope(), bytes, System.currentTimeMillis());
        return bytes;
    }

    // the frame's bytes from spanStart into this thread's buffer: how many; 0 or LOST as readPage answers
    private int readSpan(PageId pageId, int spanStart, int spanLength, long frameSize)
    {
        ByteBuffer span = SPANS.get();
        if (span.capacity() < spanLength) {
            span = ByteBuffer.allocateDirect(Math.max(spanLength, Math.min(2 * span.capacity(), MAX_SPAN_BYTES)));
            SPANS.set(span);
        }
        span.clear().limit(spanLength);
        store.takeFailure();
        try {
            // a direct buffer: the store reads into it through the file's channel, with no copy on the way
            int read = manager.get(pageId, spanStart, spanLength, new ByteBufferTargetBuffer(span), CacheContext.defaults());
            if (read >= 0) {
                return read;
            }
            if (store.takeFailure()) {
                return 0;
            }
            // the cache manager forgot the lost page and deleted its file (as one failing its checksum), not evicted
            stats.recordDelete(1, frameSize);
            return LOST;
        }
        catch (RuntimeException e) {
            // Alluxio reports most failures by return value; anything thrown is a failure all the same
            stats.recordGetError();
            health.failed("read", e);
            return 0;
        }
    }

    // a chunk failed its checksum: the page is deleted, and the read goes to remote storage
    private void dropCorrupt(PageId pageId, long frameSize)
    {
        stats.recordChecksumFailure();
        log.warn("Cached page %s in %s failed its checksum (damaged on disk); deleted, the read goes to remote storage", pageId, path);
        if (deletePage(pageId)) {
            stats.recordDelete(1, frameSize);
        }
    }

    // the lookup also counts as an access for the eviction policy, as the cache manager's own lookup does
    private Optional<PageInfo> pageInfo(PageId pageId)
    {
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return Optional.of(metaStore.getPageInfo(pageId));
        }
        catch (PageNotFoundException e) {
            return Optional.empty();
        }
        finally {
            readLock.unlock();
        }
    }

    /** Whether any page of the file is stored here. */
    boolean hasPages(String fileId)
    {
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return !metaStore.getAllPagesByFileId(fileId).isEmpty();
        }
        finally {
            readLock.unlock();
        }
    }

    private void withMetadataWriteLock(Runnable action)
    {
        Lock writeLock = metaStore.getLock().writeLock();
        writeLock.lock();
        try {
            action.run();
        }
        finally {
            writeLock.unlock();
        }
    }

    // for PageRestore

    CachedFiles cachedFiles()
    {
        return cachedFiles;
    }

    /** Where the page files are: Alluxio's store root. */
    Path pageRoot()
    {
        return storeDir.getRootPath();
    }

    /** The page a file under {@link #pageRoot} holds; empty for anything else (another page size, a stray file). */
    Optional<PageId> pageIdOf(Path file)
    {
        return storeDir.pageId(file);
    }

    /** Where the page's file is, whether or not it exists. */
    Optional<Path> pagePath(PageId pageId)
    {
        return storeDir.pagePath(pageId);
    }

    /** The page whose fill's new frame a file under {@link #pageRoot} is ({@code <page file>.fill}); empty for any other file. */
    Optional<PageId> pageIdOfFill(Path file)
    {
        String name = file.getFileName().toString();
        if (!name.endsWith(FILL_SUFFIX)) {
            return Optional.empty();
        }
        return pageIdOf(file.resolveSibling(name.substring(0, name.length() - FILL_SUFFIX.length())));
    }

    /** What the restore does with a file, which may throw. */
    interface FileAction<T>
    {
        T run()
                throws IOException;
    }

    /**
     * Runs {@code action} while no fill of the page runs in this process: a fill creates, renames and deletes the page's
     * {@code .fill} file only while it holds the page's fill lock, which this holds meanwhile.
     */
    <T> T whileNoFill(PageId pageId, FileAction<T> action)
            throws IOException
    {
        Lock lock = fills.get(pageId);
        lock.lock();
        try {
            return action.run();
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * The restore is about to register pages of this file; deleting the file meanwhile withdraws it. False once the
     * restore has ended: nothing is registered from then on.
     */
    boolean beginRestore(String fileId)
    {
        Lock writeLock = metaStore.getLock().writeLock();
        writeLock.lock();
        try {
            if (restoreEnded) {
                return false;
            }
            restoringFiles.add(fileId);
            return true;
        }
        finally {
            writeLock.unlock();
        }
    }

    /** Whether the restore of the pages found at startup still runs. */
    boolean restoring()
    {
        return !restoreEnded;
    }

    void endRestore()
    {
        withMetadataWriteLock(() -> {
            restoreEnded = true;
            restoringFiles.clear();
        });
    }

    enum Registration
    {
        REGISTERED,
        /** Already registered: written again since the start. */
        PRESENT,
        /** The directory is full (of pages written since the start, or because cache.max-size shrank). */
        NO_ROOM,
        /** Its file was deleted (a flush) since the restore began, or the restore is over. */
        WITHDRAWN,
    }

    /** Registers a verified page found on disk, with the scope and write time of its file. */
    Registration register(PageId pageId, long frameSize, CacheScope scope, long writtenMillis)
    {
        Lock writeLock = metaStore.getLock().writeLock();
        writeLock.lock();
        try {
            if (metaStore.hasPage(pageId)) {
                return Registration.PRESENT;
            }
            if (!restoringFiles.contains(pageId.getFileId())) {
                return Registration.WITHDRAWN;
            }
            if (storeDir.getCachedBytes() + frameSize > storeDir.getCapacityBytes()) {
                return Registration.NO_ROOM;
            }
            metaStore.addPage(pageId, new PageInfo(pageId, frameSize, scope, storeDir, writtenMillis));
        }
        finally {
            writeLock.unlock();
        }
        recoveredBytes.addAndGet(frameSize);
        return Registration.REGISTERED;
    }

    /**
     * Deletes a page file the restore will not register, unless the page was written again since the start (the file
     * is then the new page, or about to be): whether the file is deleted (or was gone already), false when it is the
     * new page's.
     */
    boolean discardUnregistered(PageId pageId, Path file)
    {
        Lock writeLock = metaStore.getLock().writeLock();
        writeLock.lock();
        try {
            if (metaStore.hasPage(pageId)) {
                return false;
            }
            Files.deleteIfExists(file);
        }
        catch (DirectoryNotEmptyException e) {
            // no page file any more: a folder made in its place since it was looked at, not by the cache
            log.debug("Left %s: no longer a page file", file);
        }
        catch (IOException | RuntimeException e) {
            health.failed("delete", e);
        }
        finally {
            writeLock.unlock();
        }
        return true;
    }

    /**
     * Deletes the record of a file none of whose pages was restored, unless pages of it were written since; whether it
     * was deleted.
     */
    boolean discardRecordIfUnused(String fileId, long restoreStartMillis)
    {
        if (hasPages(fileId)) {
            return false;
        }
        try {
            cachedFiles.deleteIfWrittenBefore(fileId, restoreStartMillis);
            return true;
        }
        catch (IOException | RuntimeException e) {
            health.failed("delete", e);
            return false;
        }
    }

    /** Whether the page is stored (without reading it): it may still turn out unreadable. */
    boolean contains(PageId pageId)
    {
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return isEnabled() && metaStore.hasPage(pageId);
        }
        finally {
            readLock.unlock();
        }
    }

    /** Writes a whole page ({@code page}'s remaining bytes, which it keeps) as a new frame: {@link #writeFrame}. */
    WriteResult writePage(PageId pageId, ByteBuffer page, CacheContext cacheContext, CachedFile file)
    {
        return writeFrame(pageId, PageFrame.encode(page, frameBuffer(page.remaining())), cacheContext, file);
    }

    /**
     * A buffer for the frame of a page of {@code pageLength} bytes: this thread's direct buffer, or a heap one for a frame
     * above {@link #MAX_POOLED_FRAME_BYTES}. What it holds is valid until this thread asks for another.
     */
    static ByteBuffer frameBuffer(int pageLength)
    {
        int length = PageFrame.frameLength(pageLength);
        if (length > MAX_POOLED_FRAME_BYTES) {
            return ByteBuffer.allocate(length);
        }
        ByteBuffer frame = FRAMES.get();
        if (frame == null || frame.capacity() < length) {
            // sized for the largest frame seen, rounded up to whole chunks so that slightly longer pages reuse it
            frame = ByteBuffer.allocateDirect(Math.min(MAX_POOLED_FRAME_BYTES, PageFrame.frameLength(PageFrame.chunks(pageLength) * PageFrame.CHUNK_SIZE)));
            FRAMES.set(frame);
        }
        return frame;
    }

    /**
     * Writes a page of {@code file} (its stored {@code frame}), after the file's {@link CachedFile} record when none of
     * its pages is stored here yet (so that a page never reaches the disk before its record).
     */
    WriteResult writeFrame(PageId pageId, ByteBuffer frame, CacheContext cacheContext, CachedFile file)
    {
        if (!hasPages(pageId.getFileId())) {
            try {
                cachedFiles.write(pageId.getFileId(), file);
            }
            catch (IOException | RuntimeException e) {
                recordWriteFailure(e);
                return WriteResult.FAILED;
            }
        }
        store.takeFailure();
        try {
            if (manager.put(pageId, frame, cacheContext)) {
                return WriteResult.WRITTEN;
            }
            return store.takeFailure() ? WriteResult.FAILED : WriteResult.REFUSED;
        }
        catch (RuntimeException e) {
            recordWriteFailure(e);
            return WriteResult.FAILED;
        }
    }

    /** What {@link #fillFrame} did, and the chunks the page it wrote holds. */
    record Fill(WriteResult result, BitSet present) {}

    /**
     * Adds the chunks of a page of {@code pageLength} bytes held in {@code page} (at their place) and set in
     * {@code fetched} to what this directory holds of it: a new partial page is written; a stored one is read, checked
     * chunk by chunk, merged with the new chunks and replaced on disk in one step (a new file renamed over it: a partial
     * page has the size of a whole one, so the cache manager's record of it stays true), so that a concurrent reader
     * reads either frame, never neither. Fills of one page take turns, so none loses another's chunks. A stored frame
     * that does not read back intact is dropped as damaged and written anew with the fetched chunks.
     */
    Fill fillFrame(PageId pageId, int pageLength, byte[] page, BitSet fetched, CacheContext cacheContext, CachedFile file)
    {
        Lock lock = fills.get(pageId);
        lock.lock();
        try {
            return fillFrameLocked(pageId, pageLength, page, fetched, cacheContext, file);
        }
        finally {
            lock.unlock();
        }
    }

    private Fill fillFrameLocked(PageId pageId, int pageLength, byte[] page, BitSet fetched, CacheContext cacheContext, CachedFile file)
    {
        Optional<PageInfo> info = pageInfo(pageId);
        if (info.isEmpty()) {
            return new Fill(writeFrame(pageId, PageFrame.encodePartial(page, pageLength, fetched, frameBuffer(pageLength)), cacheContext, file), fetched);
        }
        int frameSize = toIntExact(info.get().getPageSize());
        if (PageFrame.pageLength(frameSize) != pageLength) {
            // another length is another file; never merged
            return new Fill(WriteResult.REFUSED, new BitSet());
        }
        byte[] stored = new byte[frameSize];
        store.takeFailure();
        int read;
        try {
            read = manager.get(pageId, 0, frameSize, stored, 0, CacheContext.defaults());
        }
        catch (RuntimeException e) {
            stats.recordGetError();
            health.failed("read", e);
            return new Fill(WriteResult.FAILED, new BitSet());
        }
        if (read <= 0 && store.takeFailure()) {
            return new Fill(WriteResult.FAILED, new BitSet());
        }
        byte[] merged = new byte[pageLength];
        BitSet had = read == frameSize ? PageFrame.decodePartial(stored, frameSize, pageLength, merged) : null;
        if (had == null) {
            if (read > 0) {
                dropCorrupt(pageId, frameSize);
            }
            else {
                // gone meanwhile (evicted, deleted)
                deletePage(pageId);
            }
            return new Fill(writeFrame(pageId, PageFrame.encodePartial(page, pageLength, fetched, frameBuffer(pageLength)), cacheContext, file), fetched);
        }
        BitSet added = (BitSet) fetched.clone();
        added.andNot(had);
        if (added.isEmpty()) {
            return new Fill(WriteResult.REFUSED, had);
        }
        // the new chunks over the stored bytes
        for (int chunk = added.nextSetBit(0); chunk >= 0; chunk = added.nextSetBit(chunk + 1)) {
            int start = chunk * PageFrame.CHUNK_SIZE;
            System.arraycopy(page, start, merged, start, Math.min(PageFrame.CHUNK_SIZE, pageLength - start));
        }
        BitSet present = (BitSet) had.clone();
        present.or(added);
        return new Fill(replaceFrame(pageId, PageFrame.encodePartial(merged, pageLength, present, frameBuffer(pageLength))), present);
    }

    // the stored frame of the page replaced by one of the same size: written beside it, then renamed over it while the
    // cache manager's metadata is locked, so that a page deleted or evicted meanwhile is not brought back. Runs under the
    // page's fill lock, which is what keeps the restore from deleting the .fill file meanwhile (PageRestore#listPages)
    private WriteResult replaceFrame(PageId pageId, ByteBuffer frame)
    {
        Optional<Path> file = storeDir.pagePath(pageId);
        if (file.isEmpty()) {
            return WriteResult.REFUSED;
        }
        Path temporary = fillPath(file.get());
        try {
            try (FileChannel channel = FileChannel.open(temporary, CREATE, TRUNCATE_EXISTING, WRITE)) {
                ByteBuffer bytes = frame.duplicate();
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
            }
            beforeFillRename.accept(temporary);
            Lock writeLock = metaStore.getLock().writeLock();
            writeLock.lock();
            try {
                if (!metaStore.hasPage(pageId)) {
                    Files.deleteIfExists(temporary);
                    return WriteResult.REFUSED;
                }
                Files.move(temporary, file.get(), ATOMIC_MOVE, REPLACE_EXISTING);
            }
            finally {
                writeLock.unlock();
            }
            return WriteResult.WRITTEN;
        }
        catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(temporary);
            }
            catch (IOException | RuntimeException ignored) {
                // the write failure is what is reported
            }
            if (e instanceof NoSuchFileException && Files.isDirectory(pageRoot())) {
                // the .fill file or the page's folder vanished under the fill (deleted by something else; the page's
                // folder goes with the file's last page) while the cache directory is there: no disk fault. The page
                // keeps the frame it had, or is gone. A directory whose pages are gone altogether is a fault, counted
                log.debug(e, "Filling page %s in %s lost its file to a concurrent deletion", pageId, path);
                return WriteResult.REFUSED;
            }
            recordWriteFailure(e);
            return WriteResult.FAILED;
        }
    }

    private static Path fillPath(Path pageFile)
    {
        return pageFile.resolveSibling(pageFile.getFileName() + FILL_SUFFIX);
    }

    /** For tests: {@code hook} runs in every fill between writing the page's {@code .fill} file and renaming it. */
    void setBeforeFillRename(Consumer<Path> hook)
    {
        this.beforeFillRename = requireNonNull(hook, "hook is null");
    }

    // an interrupt (a cancelled query or split) is no I/O error, and does not count toward taking the directory out of use
    private void recordWriteFailure(Exception e)
    {
        if (DirectoryHealth.isInterrupt(e)) {
            stats.recordPutInterrupted();
            return;
        }
        stats.recordPutError();
        health.failed("write", e);
    }

    boolean deletePage(PageId pageId)
    {
        try {
            return manager.delete(pageId);
        }
        catch (RuntimeException e) {
            health.failed("delete", e);
            return false;
        }
    }

    /** Bytes of pages of the scope (a schema or a table) in this directory; 0 without quotas. */
    long scopeBytes(CacheScope scope)
    {
        if (!(metaStore instanceof QuotaPageMetaStore quotaStore)) {
            return 0;
        }
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return quotaStore.bytes(scope);
        }
        finally {
            readLock.unlock();
        }
    }

    /**
     * Evicts the page of the scope that this directory's eviction policy would evict first; returns its size, or 0
     * when the scope has no page here.
     */
    long evictFromScope(CacheScope scope)
    {
        if (!(metaStore instanceof QuotaPageMetaStore quotaStore)) {
            return 0;
        }
        PageInfo victim;
        Lock writeLock = metaStore.getLock().writeLock();
        writeLock.lock();
        try {
            victim = quotaStore.evict(scope, storeDir);
        }
        finally {
            writeLock.unlock();
        }
        if (victim == null) {
            return 0;
        }
        return deletePage(victim.getPageId()) ? victim.getPageSize() : 0;
    }

    /** Pages and bytes removed by a deletion (concurrent writes to the directory can blur them a little). */
    record Deleted(long pages, long bytes) {}

    /** Deletes the file's pages (Alluxio finds them in its in-memory metadata). */
    Deleted deleteFile(String fileId)
    {
        long pagesBefore = pageCount();
        long bytesBefore = usedBytes();
        withMetadataWriteLock(() -> restoringFiles.remove(fileId));
        try {
            manager.deleteFile(fileId);
            cachedFiles.delete(fileId);
        }
        catch (IOException | RuntimeException e) {
            health.failed("delete", e);
        }
        return deletedSince(pagesBefore, bytesBefore);
    }

    /** Deletes every page, also those restored from disk. Alluxio walks the directory for this: for rare use. */
    Deleted deleteAll()
    {
        long pagesBefore = pageCount();
        long bytesBefore = usedBytes();
        // pages the restore has not registered yet are not the cache manager's to delete: the restore deletes them
        withMetadataWriteLock(restoringFiles::clear);
        try {
            manager.invalidate(_ -> true);
        }
        catch (RuntimeException e) {
            // pages deleted concurrently make the walk trip over vanished files; what is left is retried once
            log.warn(e, "Retrying to empty cache directory %s", path);
            try {
                manager.invalidate(_ -> true);
            }
            catch (RuntimeException retryFailure) {
                health.failed("delete all", retryFailure);
            }
        }
        try {
            cachedFiles.deleteAll();
        }
        catch (IOException | RuntimeException e) {
            health.failed("delete all", e);
        }
        return deletedSince(pagesBefore, bytesBefore);
    }

    private Deleted deletedSince(long pagesBefore, long bytesBefore)
    {
        return new Deleted(Math.max(0, pagesBefore - pageCount()), Math.max(0, bytesBefore - usedBytes()));
    }

    private long pageCount()
    {
        Lock readLock = metaStore.getLock().readLock();
        readLock.lock();
        try {
            return metaStore.numPages();
        }
        finally {
            readLock.unlock();
        }
    }

    /**
     * For a directory out of use whose back-off has passed: writes, reads back and deletes a probe page on the disk
     * itself (past the cache manager, so nothing is counted or cached). Success puts the directory back in use with
     * the pages it still holds; a lost or cut-short one is a miss, and every one is checked against its checksum at the next
     * restart.
     */
    void probeIfDue()
    {
        if (!health.isProbeDue()) {
            return;
        }
        try {
            PageId probe = new PageId(PROBE_FILE_ID, ThreadLocalRandom.current().nextLong(Long.MAX_VALUE));
            byte[] written = new byte[4096];
            ThreadLocalRandom.current().nextBytes(written);
            PageStore disk = store.disk();
            disk.put(probe, ByteBuffer.wrap(written), false);
            byte[] read = new byte[written.length];
            int length = disk.get(probe, 0, read.length, new ByteArrayTargetBuffer(read, 0), false);
            disk.delete(probe, false);
            if (length != written.length || !Arrays.equals(read, written)) {
                throw new IllegalStateException("the probe page read back differs from what was written");
            }
            health.restore();
        }
        catch (Exception e) {
            health.probeFailed(e);
        }
    }

    @Override
    public void close()
            throws Exception
    {
        try (owner) {
            manager.close();
        }
    }
}
