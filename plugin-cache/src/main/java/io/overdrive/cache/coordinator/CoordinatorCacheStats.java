package io.overdrive.cache.coordinator;

import org.weakref.jmx.Managed;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * Metrics of the coordinator's memory tier, one MBean per catalog on a coordinator that runs no splits, exported with
 * jmxutils (visible in Trino's {@code jmx} catalog). Counters are cumulative since the coordinator started.
 */
public class CoordinatorCacheStats
{
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong bytesFromMemory = new AtomicLong();
    private final AtomicLong bytesFromStorage = new AtomicLong();
    private final AtomicLong filesTooLarge = new AtomicLong();
    private final AtomicLong changedWhileLoading = new AtomicLong();
    private final AtomicLong recentlyModified = new AtomicLong();
    private final AtomicLong expirations = new AtomicLong();
    private volatile LongSupplier entries = () -> 0;
    private volatile LongSupplier bytesCached = () -> 0;
    private volatile LongSupplier evictions = () -> 0;

    /** What the tier holds now and how many files it evicted so far, read when a metric is. */
    void setUsage(LongSupplier entries, LongSupplier bytesCached, LongSupplier evictions)
    {
        this.entries = requireNonNull(entries, "entries is null");
        this.bytesCached = requireNonNull(bytesCached, "bytesCached is null");
        this.evictions = requireNonNull(evictions, "evictions is null");
    }

    void recordHit()
    {
        hits.incrementAndGet();
    }

    void recordMiss(long bytesLoaded)
    {
        misses.incrementAndGet();
        bytesFromStorage.addAndGet(bytesLoaded);
    }

    void recordBytesFromMemory(long bytes)
    {
        bytesFromMemory.addAndGet(bytes);
    }

    void recordFileTooLarge()
    {
        filesTooLarge.incrementAndGet();
    }

    void recordChangedWhileLoading()
    {
        changedWhileLoading.incrementAndGet();
    }

    void recordRecentlyModified()
    {
        recentlyModified.incrementAndGet();
    }

    void recordExpirations(long count)
    {
        expirations.addAndGet(count);
    }

    /** Opens of a file found in memory (a cache key seen before: same path, modification time and length). */
    @Managed
    public long getHits()
    {
        return hits.get();
    }

    /** Opens of a file not in memory, which was then read whole from storage and kept. */
    @Managed
    public long getMisses()
    {
        return misses.get();
    }

    /** Bytes readers read from memory. */
    @Managed
    public long getBytesFromMemory()
    {
        return bytesFromMemory.get();
    }

    /** Bytes read from storage to fill the tier (whole files, on misses). */
    @Managed
    public long getBytesFromStorage()
    {
        return bytesFromStorage.get();
    }

    /** Opens of files larger than {@code cache.coordinator.max-file-size}, read from storage and not kept. */
    @Managed
    public long getFilesTooLarge()
    {
        return filesTooLarge.get();
    }

    /**
     * Loads not kept because the file's length on storage was not the length of its cache key (it was replaced between
     * its status and its read); the reader reads it from storage instead.
     */
    @Managed
    public long getChangedWhileLoading()
    {
        return changedWhileLoading.get();
    }

    /**
     * Opens read from storage and not kept because the file's store records modification times in whole seconds and
     * its modification time is younger than {@code cache.min-file-age}.
     */
    @Managed
    public long getRecentlyModified()
    {
        return recentlyModified.get();
    }

    /** Files dropped to stay within {@code cache.coordinator.max-size}. */
    @Managed
    public long getEvictions()
    {
        return evictions.getAsLong();
    }

    /** Files dropped because Trino wrote, renamed or deleted their path (or a directory above it) through the catalog. */
    @Managed
    public long getExpirations()
    {
        return expirations.get();
    }

    /** Files in memory now. */
    @Managed
    public long getEntries()
    {
        return entries.getAsLong();
    }

    /** Bytes in memory now: the files' contents and their keys. */
    @Managed
    public long getBytesCached()
    {
        return bytesCached.getAsLong();
    }
}
