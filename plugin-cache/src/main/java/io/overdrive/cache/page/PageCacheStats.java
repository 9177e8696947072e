package io.overdrive.cache.page;

import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Overdrive page cache metrics, one MBean per catalog, exported with jmxutils (visible in Trino's {@code jmx} catalog).
 * Counters are cumulative since the worker started.
 */
public class PageCacheStats
{
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong bytesFromCache = new AtomicLong();
    private final AtomicLong bytesFromRemote = new AtomicLong();
    private final AtomicLong pagesWritten = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong pagesDeleted = new AtomicLong();
    private final AtomicLong getErrors = new AtomicLong();
    private final AtomicLong putErrors = new AtomicLong();
    private final AtomicLong putsInterrupted = new AtomicLong();
    private final AtomicLong corruptPages = new AtomicLong();
    private final AtomicLong checksumFailures = new AtomicLong();
    private final AtomicLong admissionRejections = new AtomicLong();
    private final AtomicLong rateLimitRejections = new AtomicLong();
    private final AtomicLong quotaEvictions = new AtomicLong();
    private final AtomicLong notCachedNotPreferred = new AtomicLong();
    private final AtomicLong dryRunWouldBeHits = new AtomicLong();
    private final AtomicLong directoriesDisabled = new AtomicLong();
    private final AtomicLong directoriesRestored = new AtomicLong();
    private final AtomicLong directoryProbeFailures = new AtomicLong();
    private final AtomicLong putsRefused = new AtomicLong();
    private final AtomicLong partialPageWrites = new AtomicLong();
    private final AtomicLong partialPageMisses = new AtomicLong();
    private final AtomicLong writeBufferBytes = new AtomicLong();
    private final AtomicLong backgroundWrites = new AtomicLong();
    private final AtomicLong notCachedWriteBufferFull = new AtomicLong();
    private final AtomicLong writeBufferHits = new AtomicLong();
    private final TimeStat backgroundWriteLatency = new TimeStat(MILLISECONDS);
    private final AtomicLong notCachedNoTable = new AtomicLong();
    private final AtomicLong notCachedExcludedTable = new AtomicLong();
    private final AtomicLong notCachedRecentlyModified = new AtomicLong();
    private final AtomicLong notCachedSessionBypass = new AtomicLong();
    private final AtomicLong notCachedSessionNever = new AtomicLong();
    private final AtomicLong bytesDeleted = new AtomicLong();
    private final AtomicLong restoresRunning = new AtomicLong();
    private final AtomicLong restoreFilesFound = new AtomicLong();
    private final AtomicLong restoreFilesDone = new AtomicLong();
    private final AtomicLong pagesRestored = new AtomicLong();
    private final AtomicLong pagesRestoredOnRead = new AtomicLong();
    private final AtomicLong restoreCorrupt = new AtomicLong();
    private final AtomicLong restoreOrphans = new AtomicLong();
    private final AtomicLong restoreExpired = new AtomicLong();
    private final AtomicLong restoreNoRoom = new AtomicLong();
    private final AtomicLong restoreFlushed = new AtomicLong();
    private final AtomicLong restoresFailed = new AtomicLong();
    private final AtomicLong readsSteppedAside = new AtomicLong();
    private final AtomicLong writesSteppedAside = new AtomicLong();
    private volatile Usage usage = Usage.NONE;
    private volatile DiskStepAside stepAside;

    /** What the cache holds now, read when a metric is: the stats do not hold the cache itself. */
    public interface Usage
    {
        Usage NONE = new Usage()
        {
            @Override
            public long bytesInUse()
            {
                return 0;
            }

            @Override
            public long bytesStored()
            {
                return 0;
            }

            @Override
            public long bytesRecovered()
            {
                return 0;
            }

            @Override
            public long directoriesOutOfUse()
            {
                return 0;
            }

            @Override
            public long indexedPaths()
            {
                return 0;
            }

            @Override
            public long indexRetainedBytes()
            {
                return 0;
            }
        };

        /** Bytes in the directories in use: what can be served. */
        long bytesInUse();

        /** Bytes in every directory, those out of use included. */
        long bytesStored();

        long bytesRecovered();

        long directoriesOutOfUse();

        /** Paths known to {@code flush_cache} and {@code expire}, and the heap that index holds. */
        long indexedPaths();

        long indexRetainedBytes();
    }

    public void setUsage(Usage usage)
    {
        this.usage = requireNonNull(usage, "usage is null");
    }

    void setStepAside(DiskStepAside stepAside)
    {
        this.stepAside = requireNonNull(stepAside, "stepAside is null");
    }

    void recordReadSteppedAside()
    {
        readsSteppedAside.incrementAndGet();
    }

    void recordWriteSteppedAside()
    {
        writesSteppedAside.incrementAndGet();
    }

    public void recordHit(int bytes)
    {
        hits.incrementAndGet();
        bytesFromCache.addAndGet(bytes);
    }

    public void recordMiss()
    {
        misses.incrementAndGet();
    }

    public void recordRemoteRead(long bytes)
    {
        bytesFromRemote.addAndGet(bytes);
    }

    public void recordWrite(int bytes)
    {
        pagesWritten.incrementAndGet();
        bytesWritten.addAndGet(bytes);
    }

    public void recordDelete(long pages, long bytes)
    {
        pagesDeleted.addAndGet(pages);
        bytesDeleted.addAndGet(bytes);
    }

    /** A directory's restore is submitted (it runs in the background). */
    void recordRestoreStarted()
    {
        restoresRunning.incrementAndGet();
    }

    /** Cached files (each a directory of pages) found on disk at startup. */
    void recordRestoreFound(long files)
    {
        restoreFilesFound.addAndGet(files);
    }

    void recordRestoreFileDone()
    {
        restoreFilesDone.incrementAndGet();
    }

    /** A page file found at startup was dealt with. */
    void recordRestoredPage(PageRestore.RestoreOutcome outcome)
    {
        if (outcome == PageRestore.RestoreOutcome.RESTORED) {
            pagesRestored.incrementAndGet();
        }
        else {
            recordRestoreDiscarded(outcome, 1);
        }
    }

    /** A page found at startup was restored early because a read asked for it. */
    void recordRestoredOnRead()
    {
        pagesRestoredOnRead.incrementAndGet();
    }

    /** Files found at startup and deleted: pages, and damaged {@link CachedFile} records. */
    void recordRestoreDiscarded(PageRestore.RestoreOutcome outcome, long files)
    {
        switch (outcome) {
            case CORRUPT -> restoreCorrupt.addAndGet(files);
            case ORPHAN -> restoreOrphans.addAndGet(files);
            case EXPIRED -> restoreExpired.addAndGet(files);
            case NO_ROOM -> restoreNoRoom.addAndGet(files);
            case FLUSHED -> restoreFlushed.addAndGet(files);
            case RESTORED, PRESENT -> {}
        }
    }

    /** A directory's restore stopped on an I/O error, leaving the pages it had not reached on disk. */
    void recordRestoreFailed()
    {
        restoresFailed.incrementAndGet();
    }

    void recordRestoreFinished()
    {
        restoresRunning.decrementAndGet();
    }

    public void recordGetError()
    {
        getErrors.incrementAndGet();
    }

    public void recordPutError()
    {
        putErrors.incrementAndGet();
    }

    public void recordPutInterrupted()
    {
        putsInterrupted.incrementAndGet();
    }

    public void recordCorruptPage()
    {
        corruptPages.incrementAndGet();
    }

    /** A hit found a chunk of the page failing its checksum (the page is dropped; also a corrupt page). */
    public void recordChecksumFailure()
    {
        checksumFailures.incrementAndGet();
    }

    public void recordAdmissionRejection()
    {
        admissionRejections.incrementAndGet();
    }

    public void recordQuotaEviction()
    {
        quotaEvictions.incrementAndGet();
    }

    public void recordNotCachedNotPreferred()
    {
        notCachedNotPreferred.incrementAndGet();
    }

    public void recordRateLimitRejection()
    {
        rateLimitRejections.incrementAndGet();
    }

    public void recordDryRunWouldBeHit()
    {
        dryRunWouldBeHits.incrementAndGet();
    }

    public void recordDirectoryDisabled()
    {
        directoriesDisabled.incrementAndGet();
    }

    public void recordDirectoryRestored()
    {
        directoriesRestored.incrementAndGet();
    }

    public void recordDirectoryProbeFailure()
    {
        directoryProbeFailures.incrementAndGet();
    }

    public void recordPutRefused()
    {
        putsRefused.incrementAndGet();
    }

    public void recordPartialPageWrite()
    {
        partialPageWrites.incrementAndGet();
    }

    /** Bytes of pages waiting for the cache disks: {@code bytes} more (or fewer, when negative). */
    public void addWriteBufferBytes(long bytes)
    {
        writeBufferBytes.addAndGet(bytes);
    }

    /** A page (or part of one) written by a background thread, {@code nanos} after it was handed over. */
    public void recordBackgroundWrite(long nanos)
    {
        backgroundWrites.incrementAndGet();
        backgroundWriteLatency.addNanos(nanos);
    }

    public void recordNotCachedWriteBufferFull()
    {
        notCachedWriteBufferFull.incrementAndGet();
    }

    public void recordWriteBufferHit()
    {
        writeBufferHits.incrementAndGet();
    }

    public void recordPartialPageMiss()
    {
        partialPageMisses.incrementAndGet();
    }

    public void recordNotCachedNoTable()
    {
        notCachedNoTable.incrementAndGet();
    }

    public void recordNotCachedExcludedTable()
    {
        notCachedExcludedTable.incrementAndGet();
    }

    public void recordNotCachedRecentlyModified()
    {
        notCachedRecentlyModified.incrementAndGet();
    }

    public void recordNotCachedSessionBypass()
    {
        notCachedSessionBypass.incrementAndGet();
    }

    public void recordNotCachedSessionNever()
    {
        notCachedSessionNever.incrementAndGet();
    }

    @Managed(description = "Page reads served from the local cache")
    public long getHits()
    {
        return hits.get();
    }

    @Managed(description = "Page reads the cache could not serve")
    public long getMisses()
    {
        return misses.get();
    }

    @Managed(description = "hits / (hits + misses)")
    public double getHitRatio()
    {
        long hits = this.hits.get();
        long total = hits + misses.get();
        return total == 0 ? 0 : (double) hits / total;
    }

    @Managed(description = "Bytes returned to readers from the local cache")
    public long getBytesFromCache()
    {
        return bytesFromCache.get();
    }

    @Managed(description = "Bytes read from remote storage (HDFS, object store) by the catalog's reads, those of tables left out by cache.include-tables or cache.exclude-tables included")
    public long getBytesFromRemote()
    {
        return bytesFromRemote.get();
    }

    @Managed(description = "bytesFromCache / (bytesFromCache + bytesFromRemote)")
    public double getByteHitRatio()
    {
        long cache = bytesFromCache.get();
        long total = cache + bytesFromRemote.get();
        return total == 0 ? 0 : (double) cache / total;
    }

    @Managed(description = "Bytes now in the cache (stored pages with their checksum trailers)")
    public long getBytesCached()
    {
        return usage.bytesInUse();
    }

    @Managed(description = "Bytes of pages found on disk at startup and reused (grows while the restore runs)")
    public long getBytesRecovered()
    {
        return usage.bytesRecovered();
    }

    @Managed(description = "Bytes that left the cache by eviction (size or TTL), not by explicit deletion")
    public long getBytesEvicted()
    {
        // bytes in directories out of use are not evicted, only unused for now
        return Math.max(0, usage.bytesRecovered() + bytesWritten.get() - bytesDeleted.get() - usage.bytesStored());
    }

    @Managed(description = "Cache directories whose pages from before the start are still being restored (a read of a page not restored yet restores it first)")
    public long getRestoresRunning()
    {
        return restoresRunning.get();
    }

    @Managed(description = "Cached files found on disk at startup, to restore")
    public long getRestoreFilesFound()
    {
        return restoreFilesFound.get();
    }

    @Managed(description = "Fraction of the cached files found at startup that the restore has dealt with (1 when done)")
    public double getRestoreProgress()
    {
        if (restoresRunning.get() == 0) {
            return 1;
        }
        long found = restoreFilesFound.get();
        return found == 0 ? 0 : Math.min(1, (double) restoreFilesDone.get() / found);
    }

    @Managed(description = "Pages found on disk at startup, verified and served again")
    public long getPagesRestored()
    {
        return pagesRestored.get();
    }

    @Managed(description = "Of PagesRestored, pages restored ahead of their turn because a read asked for them")
    public long getPagesRestoredOnRead()
    {
        return pagesRestoredOnRead.get();
    }

    @Managed(description = "Files found at startup and deleted as torn, cut short, unreadable or failing their checksum (pages and file records)")
    public long getRestoreDiscardedCorrupt()
    {
        return restoreCorrupt.get();
    }

    @Managed(description = "Files found at startup and deleted as orphans: pages without their file's record (such as pages of Overdrive before 2.0), stray files")
    public long getRestoreDiscardedOrphans()
    {
        return restoreOrphans.get();
    }

    @Managed(description = "Pages found at startup and deleted as older than cache.ttl")
    public long getRestoreDiscardedExpired()
    {
        return restoreExpired.get();
    }

    @Managed(description = "Pages found at startup and deleted for want of room: over cache.max-size or a quota, or the space taken by new pages")
    public long getRestoreDiscardedNoRoom()
    {
        return restoreNoRoom.get();
    }

    @Managed(description = "Pages found at startup and deleted because their file was flushed while the restore ran")
    public long getRestoreDiscardedFlushed()
    {
        return restoreFlushed.get();
    }

    @Managed(description = "Directory restores stopped by an I/O error: the pages they had not reached stay on disk, outside cache.max-size, until the next restart")
    public long getRestoresFailed()
    {
        return restoresFailed.get();
    }

    @Managed(description = "Pages written to the cache")
    public long getPagesWritten()
    {
        return pagesWritten.get();
    }

    @Managed(description = "Bytes written to the cache disks")
    public long getBytesWritten()
    {
        return bytesWritten.get();
    }

    @Managed(description = "Pages deleted on purpose: expired files, corrupt pages, flushes")
    public long getPagesDeleted()
    {
        return pagesDeleted.get();
    }

    @Managed(description = "Cache reads that failed with an I/O error (the read went to remote storage)")
    public long getGetErrors()
    {
        return getErrors.get();
    }

    @Managed(description = "Cache writes that failed with an I/O error (the page was not cached)")
    public long getPutErrors()
    {
        return putErrors.get();
    }

    @Managed(description = "Cache writes cut short by an interrupt of the reading thread (a cancelled query or split): the page was not cached; not an I/O error")
    public long getPutsInterrupted()
    {
        return putsInterrupted.get();
    }

    @Managed(description = "Pages a read found damaged (failing a chunk's checksum, or their files short or missing) and dropped; the read went to remote storage")
    public long getCorruptPages()
    {
        return corruptPages.get();
    }

    @Managed(description = "Of CorruptPages, pages a read found with a chunk failing its CRC32C checksum (bytes damaged on disk), deleted")
    public long getChecksumFailures()
    {
        return checksumFailures.get();
    }

    @Managed(description = "Pages not cached because they were not read often enough yet (cache.admission)")
    public long getAdmissionRejections()
    {
        return admissionRejections.get();
    }

    @Managed(description = "Pages cached at the price of pages of the same schema or table, which was at its quota")
    public long getQuotaEvictions()
    {
        return quotaEvictions.get();
    }

    @Managed(description = "Page reads not cached because this worker is not a preferred worker of the file (soft affinity)")
    public long getNotCachedNotPreferred()
    {
        return notCachedNotPreferred.get();
    }

    @Managed(description = "Pages not cached because they belong to no known table (read outside a table scan) while quotas are set")
    public long getNotCachedNoTable()
    {
        return notCachedNoTable.get();
    }

    // files, not pages: an excluded file's reads never reach the page layer, which is the point
    @Managed(description = "Files opened that bypassed the cache, neither looked up nor written, because cache.include-tables or cache.exclude-tables leave their table out; their bytes count in BytesFromRemote")
    public long getNotCachedExcludedTable()
    {
        return notCachedExcludedTable.get();
    }

    @Managed(description = "Files opened that bypassed the cache, neither looked up nor written, because their store records modification times in whole seconds and theirs is younger than cache.min-file-age; their bytes count in BytesFromRemote")
    public long getNotCachedRecentlyModified()
    {
        return notCachedRecentlyModified.get();
    }

    @Managed(description = "Files read from remote storage only, past the cache, for queries whose session set cache_enabled=false")
    public long getNotCachedSessionBypass()
    {
        return notCachedSessionBypass.get();
    }

    @Managed(description = "Pages not cached because the query's session set cache_populate=NEVER")
    public long getNotCachedSessionNever()
    {
        return notCachedSessionNever.get();
    }

    @Managed(description = "Pages not cached because cache.write-rate-limit was reached")
    public long getRateLimitRejections()
    {
        return rateLimitRejections.get();
    }

    @Managed(description = "With cache.dry-run: reads that would have been cache hits")
    public long getDryRunWouldBeHits()
    {
        return dryRunWouldBeHits.get();
    }

    @Managed(description = "Times a cache directory was taken out of use (unusable at startup, or repeated I/O errors)")
    public long getDirectoriesDisabled()
    {
        return directoriesDisabled.get();
    }

    @Managed(description = "Cache directories found working again by a probe and put back in use")
    public long getDirectoriesRestored()
    {
        return directoriesRestored.get();
    }

    @Managed(description = "Probes of directories out of use that failed (the directory stays out, the next probe waits longer)")
    public long getDirectoryProbeFailures()
    {
        return directoryProbeFailures.get();
    }

    @Managed(description = "Paths whose cached files flush_cache by schema or table and file expiry can find (the most recently cached, up to 1,000,000)")
    public long getIndexedPaths()
    {
        return usage.indexedPaths();
    }

    @Managed(description = "Heap held by the index of cached paths, estimated")
    public long getIndexRetainedBytes()
    {
        return usage.indexRetainedBytes();
    }

    @Managed(description = "Cache directories out of use now")
    public long getDirectoriesOutOfUse()
    {
        return usage.directoriesOutOfUse();
    }

    @Managed(description = "Pages the cache declined with nothing wrong: already cached or queued for writing, a lost eviction race, no room, larger than a quota")
    public long getPutsRefused()
    {
        return putsRefused.get();
    }

    @Managed(description = "Writes of part of a page (the chunks a reader fetched, not the whole page): new partial pages and chunks added to them")
    public long getPartialPageWrites()
    {
        return partialPageWrites.get();
    }

    @Managed(description = "Of Misses, reads of a partial page that lacked some of the bytes asked for (not fetched yet)")
    public long getPartialPageMisses()
    {
        return partialPageMisses.get();
    }

    @Managed(description = "Of Misses, reads of cached pages read from remote storage instead, their cache directory reading slower than storage")
    public long getReadsSteppedAside()
    {
        return readsSteppedAside.get();
    }

    @Managed(description = "Pages not written to the cache, their cache directory reading slower than remote storage")
    public long getWritesSteppedAside()
    {
        return writesSteppedAside.get();
    }

    @Managed(description = "Cache directories stepped aside now: reading slower than remote storage, their hits read from storage")
    public long getDirectoriesSteppedAside()
    {
        DiskStepAside stepAside = this.stepAside;
        return stepAside == null ? 0 : stepAside.directoriesSteppedAside();
    }

    @Managed(description = "Median time in milliseconds of a recent read of the cache directory that compares worst with remote storage; NaN until known")
    public double getDiskReadMillis()
    {
        DiskStepAside stepAside = this.stepAside;
        return stepAside == null ? Double.NaN : stepAside.worst().map(comparison -> comparison.diskNanos() / 1e6).orElse(Double.NaN);
    }

    @Managed(description = "Time in milliseconds remote storage takes, by the catalog's remote reads, for reads of the same bytes as DiskReadMillis; NaN until known")
    public double getStorageReadMillis()
    {
        DiskStepAside stepAside = this.stepAside;
        return stepAside == null ? Double.NaN : stepAside.worst().map(comparison -> comparison.storageNanos() / 1e6).orElse(Double.NaN);
    }

    @Managed(description = "Bytes of pages waiting for the cache disks (cache.async-write-enabled), at most cache.async-write-buffer-size")
    public long getWriteBufferBytes()
    {
        return writeBufferBytes.get();
    }

    @Managed(description = "Pages and parts of pages written to the cache disks by the background writers (cache.async-write-enabled)")
    public long getBackgroundWrites()
    {
        return backgroundWrites.get();
    }

    @Managed(description = "Pages not cached because the pages waiting for the cache disks already held cache.async-write-buffer-size")
    public long getNotCachedWriteBufferFull()
    {
        return notCachedWriteBufferFull.get();
    }

    @Managed(description = "Of Hits, reads served from a page still waiting for the cache disks")
    public long getWriteBufferHits()
    {
        return writeBufferHits.get();
    }

    @Managed
    @Nested
    public TimeStat getBackgroundWriteLatency()
    {
        return backgroundWriteLatency;
    }
}
