package io.overdrive.cache.scan;

import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/** Shared scan metrics, one MBean per catalog on each node that reads data. */
public class SharedScanStats
{
    private final AtomicLong fetches = new AtomicLong();
    private final AtomicLong fetchedPages = new AtomicLong();
    private final AtomicLong fetchedBytes = new AtomicLong();
    private final AtomicLong fetchFailures = new AtomicLong();
    private final AtomicLong rowGroupPrefetches = new AtomicLong();
    private final AtomicLong rowGroupPrefetchBytes = new AtomicLong();
    private final AtomicLong rowGroupPrefetchesSkipped = new AtomicLong();
    private final AtomicLong restOfPageFetches = new AtomicLong();
    private final AtomicLong restOfPageBytes = new AtomicLong();
    private final AtomicLong coalescedReads = new AtomicLong();
    private final AtomicLong remoteBytesSaved = new AtomicLong();
    private final AtomicLong takeOvers = new AtomicLong();
    private final AtomicLong waitTimeouts = new AtomicLong();
    private final TimeStat waitTime = new TimeStat(MILLISECONDS);
    private final AtomicLong readAheadPages = new AtomicLong();
    private final AtomicLong readAheadPagesUsed = new AtomicLong();
    private final AtomicLong readAheadPagesWasted = new AtomicLong();
    private final AtomicLong readAheadPagesHeld = new AtomicLong();
    private final AtomicLong readAheadSkippedMemory = new AtomicLong();
    private final AtomicLong readAheadSkippedThreads = new AtomicLong();
    private volatile LongSupplier readAheadMemory = () -> 0;
    private volatile LongSupplier pagesInFlight = () -> 0;
    private volatile Runnable countExpiredReadAhead = () -> {};
    private volatile Supplier<String> fetchCosts = () -> "";

    void recordFetch(int pages, long bytes)
    {
        fetches.incrementAndGet();
        fetchedPages.addAndGet(pages);
        fetchedBytes.addAndGet(bytes);
    }

    void recordRestOfPageFetch(long extraBytes)
    {
        restOfPageFetches.incrementAndGet();
        restOfPageBytes.addAndGet(extraBytes);
    }

    void setFetchCosts(Supplier<String> fetchCosts)
    {
        this.fetchCosts = fetchCosts;
    }

    void recordFetchFailure()
    {
        fetchFailures.incrementAndGet();
    }

    void recordRowGroupPrefetch(long bytes)
    {
        rowGroupPrefetches.incrementAndGet();
        rowGroupPrefetchBytes.addAndGet(bytes);
    }

    void recordRowGroupPrefetchSkipped()
    {
        rowGroupPrefetchesSkipped.incrementAndGet();
    }

    void recordCoalescedRead(long pageBytes, long waitNanos)
    {
        coalescedReads.incrementAndGet();
        remoteBytesSaved.addAndGet(pageBytes);
        waitTime.addNanos(waitNanos);
    }

    void recordTakeOver()
    {
        takeOvers.incrementAndGet();
    }

    void recordWaitTimeout(long waitNanos)
    {
        waitTimeouts.incrementAndGet();
        waitTime.addNanos(waitNanos);
    }

    void recordReadAhead(int pages)
    {
        readAheadPages.addAndGet(pages);
    }

    void recordReadAheadUsed()
    {
        readAheadPagesUsed.incrementAndGet();
    }

    void recordReadAheadWasted()
    {
        readAheadPagesWasted.incrementAndGet();
    }

    void recordReadAheadHeld()
    {
        readAheadPagesHeld.incrementAndGet();
    }

    void recordReadAheadSkippedMemory()
    {
        readAheadSkippedMemory.incrementAndGet();
    }

    void recordReadAheadSkippedThreads()
    {
        readAheadSkippedThreads.incrementAndGet();
    }

    void setGauges(LongSupplier readAheadMemory, LongSupplier pagesInFlight, Runnable countExpiredReadAhead)
    {
        this.readAheadMemory = readAheadMemory;
        this.pagesInFlight = pagesInFlight;
        this.countExpiredReadAhead = countExpiredReadAhead;
    }

    @Managed(description = "Remote reads of uncached pages (one per run of consecutive pages), foreground and read-ahead")
    public long getFetches()
    {
        return fetches.get();
    }

    @Managed(description = "Pages those remote reads fetched")
    public long getFetchedPages()
    {
        return fetchedPages.get();
    }

    @Managed(description = "Bytes those remote reads fetched")
    public long getFetchedBytes()
    {
        return fetchedBytes.get();
    }

    @Managed(description = "Readers' remote reads that also fetched the rest of their first and last pages, the transfer costing less than half a request (cache.fetch-rest-of-page)")
    public long getRestOfPageFetches()
    {
        return restOfPageFetches.get();
    }

    @Managed(description = "Bytes those reads fetched beyond the chunks their readers needed")
    public long getRestOfPageBytes()
    {
        return restOfPageBytes.get();
    }

    @Managed(description = "Each storage's request latency and bandwidth as measured from this catalog's fetches, which cache.fetch-rest-of-page weighs")
    public String getFetchCosts()
    {
        return fetchCosts.get();
    }

    @Managed(description = "Remote reads that failed or were abandoned by their reader; waiting readers took over")
    public long getFetchFailures()
    {
        return fetchFailures.get();
    }

    @Managed(description = "Page reads served by another reader's fetch in flight instead of a remote read of their own")
    public long getCoalescedReads()
    {
        return coalescedReads.get();
    }

    @Managed(description = "Bytes of the pages those coalesced reads did not read from remote storage")
    public long getRemoteBytesSaved()
    {
        return remoteBytesSaved.get();
    }

    @Managed(description = "Waiting readers that fetched a page themselves because its fetcher failed or was cancelled")
    public long getTakeOvers()
    {
        return takeOvers.get();
    }

    @Managed(description = "Waiting readers that read remote storage themselves after cache.shared-scans.max-wait")
    public long getWaitTimeouts()
    {
        return waitTimeouts.get();
    }

    @Managed
    @Nested
    public TimeStat getWaitTime()
    {
        return waitTime;
    }

    @Managed(description = "Pages fetched ahead of sequential readers")
    public long getReadAheadPages()
    {
        return readAheadPages.get();
    }

    @Managed(description = "Pages fetched ahead that a reader then read (joined in flight, or from the cache)")
    public long getReadAheadPagesUsed()
    {
        return readAheadPagesUsed.get();
    }

    @Managed(description = "Pages fetched ahead that no reader read within a minute, or before the reader they were held for closed its file")
    public long getReadAheadPagesWasted()
    {
        // pages expire unread lazily: count those due now
        countExpiredReadAhead.run();
        return readAheadPagesWasted.get();
    }

    @Managed(description = "Pages fetched ahead that the cache did not keep (admission, rate limit, quota), held in read-ahead memory until their reader read them")
    public long getReadAheadPagesHeld()
    {
        return readAheadPagesHeld.get();
    }

    @Managed(description = "Read-ahead fetches skipped because cache.read-ahead-max-memory was in use")
    public long getReadAheadSkippedMemory()
    {
        return readAheadSkippedMemory.get();
    }

    @Managed(description = "Read-ahead fetches skipped because every read-ahead thread was busy")
    public long getReadAheadSkippedThreads()
    {
        return readAheadSkippedThreads.get();
    }

    @Managed(description = "Read-ahead memory in use now: fetches in flight, and pages held for their reader")
    public long getReadAheadMemoryBytes()
    {
        return readAheadMemory.getAsLong();
    }

    @Managed(description = "Pages being fetched now")
    public long getPagesInFlight()
    {
        return pagesInFlight.getAsLong();
    }

    @Managed(description = "Remote reads that prefetched the chunks of the next row group (stripe) of the columns a reader reads")
    public long getRowGroupPrefetches()
    {
        return rowGroupPrefetches.get();
    }

    @Managed(description = "Bytes the row-group prefetches read from remote storage")
    public long getRowGroupPrefetchBytes()
    {
        return rowGroupPrefetchBytes.get();
    }

    @Managed(description = "Row-group prefetches not started: read-ahead memory or threads all in use")
    public long getRowGroupPrefetchesSkipped()
    {
        return rowGroupPrefetchesSkipped.get();
    }
}
