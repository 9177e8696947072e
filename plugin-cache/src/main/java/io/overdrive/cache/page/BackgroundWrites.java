package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Page writes taken off the reading thread ({@code cache.async-write-enabled}): the reader hands a copy of the bytes
 * over and returns; a few daemon threads per catalog encode the page ({@link PageFrame}, with its chunk checksums) and
 * write it to disk. Bytes waiting for the disk count against {@code cache.async-write-buffer-size}: a page that does not
 * fit is not cached, never waited for ({@code NotCachedWriteBufferFull}).
 * <p>
 * A page waiting for the disk is served from its copy (the bytes a reader fetched from storage in this process, of the
 * same file version, as its page id says). A flush cancels the waiting writes of the files it removes before it deletes
 * them from disk: the writer checks for cancellation and writes while it holds the write's lock, and the flush cancels
 * under the same lock, so a write either reached the disk before the flush deleted it or never does. Parts of a page
 * handed over while an earlier part still waits join that write.
 */
final class BackgroundWrites
        implements AutoCloseable
{
    private static final Logger log = Logger.get(BackgroundWrites.class);
    // charged per waiting write beside its bytes: the write, its map entries and its task
    static final int WRITE_OVERHEAD = 128;
    private static final long CLOSE_WAIT_MILLIS = 10_000;

    /** Writes a page, or the chunks of one, to disk: whether it was written. Runs on a background thread. */
    interface Store
    {
        boolean store(PendingWrite write, byte[] page, BitSet chunks);
    }

    private final long budget;
    private final Store store;
    private final PageCacheStats stats;
    private final AtomicLong reserved = new AtomicLong();
    // the latest write of each page, which reads and later parts of the page look up
    private final Map<PageId, PendingWrite> latest = new ConcurrentHashMap<>();
    // every write not done yet (a page may have two: one being written, one waiting behind it), which flushes cancel
    private final Set<PendingWrite> writes = ConcurrentHashMap.newKeySet();
    private final ThreadPoolExecutor executor;
    private volatile boolean closed;
    // for tests: runs on the writer before it takes a write's lock
    private volatile Consumer<PendingWrite> beforeWrite = _ -> {};

    BackgroundWrites(String catalog, int threads, long budget, Store store, PageCacheStats stats)
    {
        checkArgument(threads > 0, "threads must be positive");
        checkArgument(budget > 0, "budget must be positive");
        this.budget = budget;
        this.store = requireNonNull(store, "store is null");
        this.stats = requireNonNull(stats, "stats is null");
        // unbounded queue: the budget bounds what waits in it
        this.executor = new ThreadPoolExecutor(threads, threads, 0, MILLISECONDS, new LinkedBlockingQueue<>(), daemonThreadsNamed("overdrive-cache-write-" + requireNonNull(catalog, "catalog is null") + "-%s"));
    }

    /**
     * Hands over the chunks {@code chunks} of a page of {@code pageLength} bytes, {@code bytes} holding its bytes from
     * {@code pageOffset} (copied here: the caller may reuse its buffer once this returns). False when not taken: the
     * buffer is full (counted) or the cache is closing.
     */
    boolean submit(String path, PageId pageId, int pageLength, int pageOffset, ByteBuffer bytes, BitSet chunks, LocalPageCache.Target target, CachedFile file)
    {
        if (closed) {
            return false;
        }
        PendingWrite waiting = latest.get(pageId);
        if (waiting != null && waiting.pageLength() == pageLength && waiting.merge(pageOffset, bytes, chunks)) {
            return true;
        }
        long cost = pageLength + WRITE_OVERHEAD;
        if (!reserve(cost)) {
            stats.recordNotCachedWriteBufferFull();
            return false;
        }
        byte[] page = new byte[pageLength];
        BitSet held = (BitSet) chunks.clone();
        if (waiting != null && waiting.pageLength() == pageLength) {
            // behind a write of the page in progress: this one holds its chunks too, so that reads needing both hit
            held.or(waiting.copyChunks(page));
        }
        bytes.duplicate().get(page, pageOffset, bytes.remaining());
        PendingWrite write = new PendingWrite(path, pageId, pageLength, page, held, cost, target, file, System.nanoTime());
        writes.add(write);
        latest.put(pageId, write);
        try {
            executor.execute(() -> run(write));
        }
        catch (RejectedExecutionException e) {
            // closing
            write.cancel();
            finish(write);
            return false;
        }
        if (closed) {
            // closed meanwhile: close() may have passed over it
            write.cancel();
        }
        return true;
    }

    private boolean reserve(long cost)
    {
        while (true) {
            long current = reserved.get();
            if (current + cost > budget) {
                return false;
            }
            if (reserved.compareAndSet(current, current + cost)) {
                stats.addWriteBufferBytes(cost);
                return true;
            }
        }
    }

    private void run(PendingWrite write)
    {
        beforeWrite.accept(write);
        write.writing.lock();
        try {
            PendingWrite.Started started = write.start();
            if (started != null && !closed && store.store(write, started.page(), started.chunks())) {
                stats.recordBackgroundWrite(System.nanoTime() - write.queuedNanos());
            }
        }
        catch (RuntimeException e) {
            log.warn(e, "Writing cached page %s of %s failed", write.pageId(), write.path());
        }
        finally {
            // forgotten only once on disk (or not to be): until then reads find its bytes here
            finish(write);
            write.writing.unlock();
        }
    }

    private void finish(PendingWrite write)
    {
        latest.remove(write.pageId(), write);
        if (writes.remove(write)) {
            write.drop();
            reserved.addAndGet(-write.cost());
            stats.addWriteBufferBytes(-write.cost());
        }
    }

    /** The page's write waiting for the disk (or being written), if any. */
    PendingWrite pending(PageId pageId)
    {
        return latest.get(pageId);
    }

    /**
     * Cancels the writes of the pages that {@code pages} selects (by their write), waiting for any being written: once
     * this returns, none of them writes anything more.
     */
    void cancel(Predicate<PendingWrite> pages)
    {
        for (PendingWrite write : writes) {
            if (!pages.test(write)) {
                continue;
            }
            write.writing.lock();
            try {
                write.cancel();
                finish(write);
            }
            finally {
                write.writing.unlock();
            }
        }
    }

    /** For tests: {@code hook} runs on the writer before each write (not under its lock), and may hold it back. */
    void setBeforeWrite(Consumer<PendingWrite> hook)
    {
        this.beforeWrite = requireNonNull(hook, "hook is null");
    }

    /** Bytes charged to the buffer now. */
    long reservedBytes()
    {
        return reserved.get();
    }

    /** For tests: waits until no write waits or runs; false when {@code timeout} passed first. */
    boolean awaitWrites(Duration timeout)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + timeout.roundTo(TimeUnit.NANOSECONDS);
        while (!writes.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /**
     * Drops every write not started (a restart loses them anyway: they never reached the disk) and waits a bounded time
     * for those being written.
     */
    @Override
    public void close()
    {
        closed = true;
        for (PendingWrite write : writes) {
            // not under the write's lock: a write being written finishes, and is waited for below
            write.cancel();
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MILLIS, MILLISECONDS)) {
                log.warn("Cache writes did not finish within %s ms; abandoned", CLOSE_WAIT_MILLIS);
                executor.shutdownNow();
            }
        }
        catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        for (PendingWrite write : writes) {
            if (!write.writing.isLocked()) {
                finish(write);
            }
        }
    }

    /** A page, or chunks of one, waiting for the disk. */
    static final class PendingWrite
    {
        /** The bytes and chunks a write took when it started: no longer changed. */
        record Started(byte[] page, BitSet chunks) {}

        private final String path;
        private final PageId pageId;
        private final int pageLength;
        private final long cost;
        private final LocalPageCache.Target target;
        private final CachedFile file;
        private final long queuedNanos;
        // held while the write checks for cancellation and writes, and by a flush while it cancels
        private final ReentrantLock writing = new ReentrantLock();
        // guarded by this; null once cancelled or done
        private byte[] page;
        private final BitSet chunks;
        private boolean started;
        private boolean cancelled;

        private PendingWrite(String path, PageId pageId, int pageLength, byte[] page, BitSet chunks, long cost, LocalPageCache.Target target, CachedFile file, long queuedNanos)
        {
            this.path = requireNonNull(path, "path is null");
            this.pageId = requireNonNull(pageId, "pageId is null");
            this.pageLength = pageLength;
            this.page = requireNonNull(page, "page is null");
            this.chunks = requireNonNull(chunks, "chunks is null");
            this.cost = cost;
            this.target = requireNonNull(target, "target is null");
            this.file = requireNonNull(file, "file is null");
            this.queuedNanos = queuedNanos;
        }

        String path()
        {
            return path;
        }

        PageId pageId()
        {
            return pageId;
        }

        int pageLength()
        {
            return pageLength;
        }

        long cost()
        {
            return cost;
        }

        LocalPageCache.Target target()
        {
            return target;
        }

        CachedFile file()
        {
            return file;
        }

        long queuedNanos()
        {
            return queuedNanos;
        }

        // adds chunks to a write not started yet; false when it has started (or is cancelled)
        private synchronized boolean merge(int pageOffset, ByteBuffer bytes, BitSet added)
        {
            if (started || page == null) {
                return false;
            }
            // bytes of chunks already held are the same bytes (one page id is one file version)
            bytes.duplicate().get(page, pageOffset, bytes.remaining());
            chunks.or(added);
            return true;
        }

        // copies the chunks it holds into page, at their place: which (none once done or cancelled)
        private synchronized BitSet copyChunks(byte[] target)
        {
            if (page == null) {
                return new BitSet();
            }
            for (int chunk = chunks.nextSetBit(0); chunk >= 0; chunk = chunks.nextSetBit(chunk + 1)) {
                int start = chunk * PageFrame.CHUNK_SIZE;
                System.arraycopy(page, start, target, start, Math.min(PageFrame.CHUNK_SIZE, pageLength - start));
            }
            return (BitSet) chunks.clone();
        }

        private synchronized Started start()
        {
            if (cancelled || page == null) {
                return null;
            }
            started = true;
            return new Started(page, (BitSet) chunks.clone());
        }

        private synchronized void cancel()
        {
            cancelled = true;
            page = null;
        }

        private synchronized void drop()
        {
            page = null;
        }

        /** Whether the write holds every chunk of the page. */
        synchronized boolean whole()
        {
            return page != null && chunks.nextClearBit(0) >= PageFrame.chunks(pageLength);
        }

        /** Whether the write holds the page's bytes from {@code from} to {@code to}. */
        synchronized boolean covers(int from, int to)
        {
            return page != null && from >= 0 && from < to && to <= pageLength && chunks.nextClearBit(from / PageFrame.CHUNK_SIZE) > (to - 1) / PageFrame.CHUNK_SIZE;
        }

        /**
         * Copies up to {@code length} bytes of the page from {@code pageOffset} into {@code target}, as
         * {@link PageCache#read}: how many; 0 when the write does not hold all of them (or is done or cancelled).
         */
        synchronized int read(int pageOffset, int length, byte[] target, int targetOffset)
        {
            int bytes = Math.min(length, pageLength - pageOffset);
            if (page == null || pageOffset < 0 || bytes <= 0 || !covers(pageOffset, pageOffset + bytes)) {
                return 0;
            }
            System.arraycopy(page, pageOffset, target, targetOffset, bytes);
            return bytes;
        }
    }
}
