package io.overdrive.cache.scan;

import alluxio.client.file.cache.PageId;
import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.RemovalCause;
import io.airlift.units.Duration;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * What read-ahead may use on this node for one catalog: {@code cache.read-ahead} pages per fetch, memory up to
 * {@code cache.read-ahead-max-memory} and a few threads, both taken without waiting (a fetch that finds none is
 * skipped). It also tells pages fetched ahead that readers used from those nobody read ({@link #fetched},
 * {@link #read}).
 */
final class ReadAhead
        implements AutoCloseable
{
    static final int MAX_THREADS = 16;

    private final int pages;
    private final long maxMemory;
    private final AtomicLong memory = new AtomicLong();
    private final ThreadPoolExecutor executor;
    // pages fetched ahead that no reader has read yet; those that expire were wasted
    private final Cache<PageId, Boolean> unread;
    private final SharedScanStats stats;

    ReadAhead(String catalog, int pages, long maxMemory, Duration unreadRetention, Ticker ticker, SharedScanStats stats)
    {
        this.pages = pages;
        this.maxMemory = maxMemory;
        this.stats = requireNonNull(stats, "stats is null");
        this.executor = new ThreadPoolExecutor(0, MAX_THREADS, 30, SECONDS, new SynchronousQueue<>(), daemonThreadsNamed("overdrive-read-ahead-" + catalog + "-%s"));
        this.unread = CacheBuilder.newBuilder()
                .ticker(ticker)
                .expireAfterWrite(unreadRetention.toMillis(), MILLISECONDS)
                .maximumSize(100_000)
                .<PageId, Boolean>removalListener(removal -> {
                    if (removal.getCause() != RemovalCause.EXPLICIT && removal.getCause() != RemovalCause.REPLACED) {
                        stats.recordReadAheadWasted();
                    }
                })
                .build();
    }

    /** Pages to fetch ahead of a sequential reader; 0 when read-ahead is off. */
    int pages()
    {
        return pages;
    }

    /** Takes {@code bytes} of read-ahead memory, or nothing and false when that would pass the limit. */
    boolean reserve(long bytes)
    {
        while (true) {
            long used = memory.get();
            if (used + bytes > maxMemory) {
                stats.recordReadAheadSkippedMemory();
                return false;
            }
            if (memory.compareAndSet(used, used + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes)
    {
        memory.addAndGet(-bytes);
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
        unread.put(pageId, Boolean.TRUE);
    }

    /** A reader read the page, from the cache or from its fetch in flight. */
    void read(PageId pageId)
    {
        // called for every page read: without read-ahead there is nothing to look up
        if (pages > 0 && unread.asMap().remove(pageId) != null) {
            stats.recordReadAheadUsed();
        }
    }

    /** Counts the pages that expired unread as wasted now (Guava otherwise does it on later accesses). */
    void cleanUp()
    {
        unread.cleanUp();
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
    }
}
