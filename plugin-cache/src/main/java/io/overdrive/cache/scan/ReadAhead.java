package io.overdrive.cache.scan;

import alluxio.client.file.cache.PageId;
import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import io.overdrive.cache.scan.PageFetch.PageBytes;

import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * What read-ahead may use on this node for one catalog: {@code cache.read-ahead} pages per fetch, memory up to
 * {@code cache.read-ahead-max-memory} and a few threads, both taken without waiting (a fetch that finds none is
 * skipped). Every byte a read-ahead allocates is reserved first, so the memory in use never passes the limit.
 * <p>
 * It also tells pages fetched ahead that readers used from those nobody read ({@link #fetched}, {@link #read}), and
 * keeps the pages the cache did not keep (admission, rate limit, quota) until their reader reads them
 * ({@link #hold}, {@link #readHeld}): a page fetched ahead is never fetched again for the reader it was fetched for.
 */
final class ReadAhead
        implements AutoCloseable
{
    static final int MAX_THREADS = 16;
    // pages fetched ahead and not read yet that are remembered at most; beyond, some count as wasted at once
    static final int MAX_UNREAD = 100_000;

    private final int pages;
    private final long maxMemory;
    private final AtomicLong memory = new AtomicLong();
    private final ThreadPoolExecutor executor;
    private final Ticker ticker;
    private final long retentionNanos;
    // pages fetched ahead that no reader has read yet (with their bytes, when the cache did not keep them); those that
    // stay unread for retentionNanos were wasted
    private final Map<PageId, Unread> unread = new ConcurrentHashMap<>();
    private final AtomicLong lastCleanUp;
    private final SharedScanStats stats;

    ReadAhead(String catalog, int pages, long maxMemory, Duration unreadRetention, Ticker ticker, SharedScanStats stats)
    {
        checkArgument(pages >= 0, "pages is negative");
        checkArgument(maxMemory >= 0, "maxMemory is negative");
        this.pages = pages;
        this.maxMemory = maxMemory;
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.retentionNanos = unreadRetention.roundTo(NANOSECONDS);
        this.stats = requireNonNull(stats, "stats is null");
        this.lastCleanUp = new AtomicLong(ticker.read());
        this.executor = new ThreadPoolExecutor(0, MAX_THREADS, 30, SECONDS, new SynchronousQueue<>(), daemonThreadsNamed("overdrive-read-ahead-" + catalog + "-%s"));
    }

    /** Pages to fetch ahead of a sequential reader; 0 when read-ahead is off. */
    int pages()
    {
        return pages;
    }

    /**
     * Takes {@code bytes} of read-ahead memory, or nothing when that would pass the limit. Pages that expired unread
     * give theirs back first.
     */
    Optional<Reservation> reserve(long bytes)
    {
        checkArgument(bytes > 0, "bytes must be positive");
        if (tryReserve(bytes) || (cleanUpIfDue() && tryReserve(bytes))) {
            return Optional.of(new Reservation(bytes));
        }
        stats.recordReadAheadSkippedMemory();
        return Optional.empty();
    }

    private boolean tryReserve(long bytes)
    {
        while (true) {
            long used = memory.get();
            if (bytes > maxMemory - used) {
                return false;
            }
            if (memory.compareAndSet(used, used + bytes)) {
                return true;
            }
        }
    }

    long memoryInUse()
    {
        return memory.get();
    }

    /** Runs the fetch on a read-ahead thread; false, running nothing, when every thread is busy. */
    boolean submit(Runnable fetch)
    {
        try {
            executor.execute(fetch);
            return true;
        }
        catch (RejectedExecutionException e) {
            stats.recordReadAheadSkippedThreads();
            return false;
        }
    }

    /** A page was fetched ahead: counted as used once a reader reads it, as wasted if none does in time. */
    void fetched(PageId pageId)
    {
        stats.recordReadAhead(1);
        long now = ticker.read();
        forget(unread.put(pageId, new Unread(now, null)));
        if (unread.size() > MAX_UNREAD || now - lastCleanUp.get() > retentionNanos) {
            cleanUp();
        }
    }

    // at most once a second or so: a sweep goes through every page fetched ahead and not read yet
    private boolean cleanUpIfDue()
    {
        long now = ticker.read();
        long last = lastCleanUp.get();
        if (now - last < retentionNanos / 60 || !lastCleanUp.compareAndSet(last, now)) {
            return false;
        }
        return cleanUp();
    }

    /**
     * Keeps the bytes of a page fetched ahead that the cache did not keep, within the read's reservation, until a reader
     * reads it ({@link #readHeld}) or it expires; false when a reader read the page already (joined its fetch).
     */
    Optional<Held> hold(PageId pageId, PageBytes bytes, Reservation reservation)
    {
        Held held = new Held(bytes, reservation);
        // before a reader can see it: the read-ahead's own hold on the reservation keeps it from going back meanwhile
        reservation.retain();
        Unread entry = unread.computeIfPresent(pageId, (_, current) -> current.held() == null ? new Unread(current.fetchedNanos(), held) : current);
        if (entry == null || entry.held() != held) {
            reservation.release();
            return Optional.empty();
        }
        stats.recordReadAheadHeld();
        return Optional.of(held);
    }

    /** Whether the page is held for its reader (it need not be fetched again). */
    boolean holds(PageId pageId)
    {
        Unread entry = unread.get(pageId);
        return entry != null && entry.held() != null;
    }

    /** Gives a held page's bytes to {@code reader} (once), then frees them; false when the page is not held. */
    boolean readHeld(PageId pageId, Consumer<PageBytes> reader)
    {
        Unread entry = unread.get(pageId);
        if (entry == null || entry.held() == null || !unread.remove(pageId, entry)) {
            return false;
        }
        try {
            reader.accept(entry.held().bytes());
        }
        finally {
            entry.held().free();
        }
        stats.recordReadAheadUsed();
        return true;
    }

    /** A reader read the page, from the cache or from its fetch in flight. */
    void read(PageId pageId)
    {
        // called for every page read: without read-ahead there is nothing to look up
        if (pages == 0) {
            return;
        }
        Unread entry = unread.remove(pageId);
        if (entry != null) {
            if (entry.held() != null) {
                entry.held().free();
            }
            stats.recordReadAheadUsed();
        }
    }

    /** The reader a page was held for is gone: the page is wasted, unless another reader took it already. */
    void drop(PageId pageId, Held held)
    {
        Unread entry = unread.get(pageId);
        if (entry != null && entry.held() == held && unread.remove(pageId, entry)) {
            forget(entry);
        }
    }

    /** Counts the pages that expired unread as wasted now, freeing what they held; true when any did. */
    boolean cleanUp()
    {
        long now = ticker.read();
        lastCleanUp.set(now);
        boolean any = false;
        // past the bound, down to nine tenths of it, so that the next pages fetched ahead do not sweep again at once
        int excess = unread.size() > MAX_UNREAD ? unread.size() - MAX_UNREAD * 9 / 10 : 0;
        for (Iterator<Map.Entry<PageId, Unread>> entries = unread.entrySet().iterator(); entries.hasNext(); ) {
            Map.Entry<PageId, Unread> entry = entries.next();
            Unread value = entry.getValue();
            if (now - value.fetchedNanos() >= retentionNanos || excess > 0) {
                if (unread.remove(entry.getKey(), value)) {
                    forget(value);
                    any = true;
                    excess--;
                }
            }
        }
        return any;
    }

    private void forget(Unread entry)
    {
        if (entry != null) {
            if (entry.held() != null) {
                entry.held().free();
            }
            stats.recordReadAheadWasted();
        }
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        unread.values().forEach(entry -> {
            if (entry.held() != null) {
                entry.held().free();
            }
        });
        unread.clear();
    }

    private record Unread(long fetchedNanos, Held held) {}

    /** The bytes of a page fetched ahead and held for its reader: a slice of the read's buffer, which its reservation covers. */
    static final class Held
    {
        // dropped when freed: a reader that still refers to this does not keep the read's buffer
        private volatile PageBytes bytes;
        private final Reservation reservation;
        private final AtomicBoolean freed = new AtomicBoolean();

        private Held(PageBytes bytes, Reservation reservation)
        {
            this.bytes = requireNonNull(bytes, "bytes is null");
            this.reservation = requireNonNull(reservation, "reservation is null");
        }

        PageBytes bytes()
        {
            return bytes;
        }

        // by whoever removed the page from the pages not read yet, which happens once
        private void free()
        {
            if (freed.compareAndSet(false, true)) {
                bytes = null;
                reservation.release();
            }
        }
    }

    /**
     * Read-ahead memory taken for one read-ahead: the remote reads' buffers, whole (pages between the ones fetched
     * ahead that a read spans included). It goes back when the read-ahead ended and every page it held was read or
     * dropped.
     */
    final class Reservation
    {
        private final long bytes;
        private final AtomicInteger users = new AtomicInteger(1);

        private Reservation(long bytes)
        {
            this.bytes = bytes;
        }

        long bytes()
        {
            return bytes;
        }

        private void retain()
        {
            users.incrementAndGet();
        }

        /** Called once by the read-ahead that took it, and once per page it held. */
        void release()
        {
            if (users.decrementAndGet() == 0) {
                memory.addAndGet(-bytes);
            }
        }
    }
}
