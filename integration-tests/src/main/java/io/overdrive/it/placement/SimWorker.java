package io.overdrive.it.placement;

import io.overdrive.cache.page.AdmissionFilter;
import io.overdrive.cache.page.PageCacheConfig;
import it.unimi.dsi.fastutil.longs.LongLinkedOpenHashSet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated worker: split slots, a FIFO queue of the splits assigned to it beyond its slots, and a page cache of a
 * fixed number of splits' data, least recently used first out. Overdrive's workers also admit as Overdrive's page cache
 * does ({@code cache.admission}, on by default): every read is counted by the real {@link AdmissionFilter}, and once the
 * cache is full, data read fewer than {@code cache.admission.min-frequency} times recently is not cached. Trino's and
 * Presto's caches (Alluxio's) cache every read.
 */
final class SimWorker
{
    // the admission filter's file id: a chunk number names the split's data in the whole lake
    private static final String ADMISSION_FILE = "lake";

    final String nodeId;
    final int number;
    final List<SplitTask> running = new ArrayList<>();
    final ArrayDeque<SplitTask> queue = new ArrayDeque<>();
    // Trino's reference model: splits waiting on the coordinator for this worker (lazily removed once assigned)
    final ArrayDeque<SplitTask> waiting = new ArrayDeque<>();
    private final LongLinkedOpenHashSet cache = new LongLinkedOpenHashSet();
    private final int cacheCapacity;
    // null: every read is cached (LRU alone)
    private final AdmissionFilter admission;

    boolean alive;
    long admissionRejections;
    long aliveFromNanos;
    long aliveUntilNanos = Long.MAX_VALUE;
    // executions started in the measured window
    long splitsRun;
    long busyNanos;
    // splits that finished on it over the whole run: what it reports to Overdrive's load poller
    long completedSplits;

    SimWorker(String nodeId, int number, int cacheCapacity)
    {
        this(nodeId, number, cacheCapacity, false);
    }

    /**
     * @param admission whether the cache admits as Overdrive's does, with its default minimum frequency (sized, as
     * Overdrive sizes it, by how many units the cache holds); false: every read is cached
     */
    SimWorker(String nodeId, int number, int cacheCapacity, boolean admission)
    {
        this.nodeId = nodeId;
        this.number = number;
        this.cacheCapacity = cacheCapacity;
        this.admission = admission ? new AdmissionFilter(cacheCapacity, new PageCacheConfig().getAdmissionMinFrequency()) : null;
    }

    int assigned()
    {
        return running.size() + queue.size();
    }

    /** Whether the chunk is cached; a hit makes it the most recently used. Every read counts for admission. */
    boolean readCached(long chunk)
    {
        if (admission != null) {
            admission.recordRead(ADMISSION_FILE, chunk);
        }
        if (cache.contains(chunk)) {
            cache.addAndMoveToLast(chunk);
            return true;
        }
        return false;
    }

    /**
     * Caches the chunk after a miss, evicting the least recently used when full; with admission, a chunk read fewer
     * than the minimum times recently is not cached once caching it would evict (as Overdrive's {@code WriteGate}).
     */
    void cache(long chunk)
    {
        if (admission != null && cache.size() >= cacheCapacity && !cache.contains(chunk) && !admission.admits(ADMISSION_FILE, chunk)) {
            admissionRejections++;
            return;
        }
        cache.addAndMoveToLast(chunk);
        if (cache.size() > cacheCapacity) {
            cache.removeFirstLong();
        }
    }

    LongLinkedOpenHashSet cachedChunks()
    {
        return cache;
    }

    void loseCache()
    {
        cache.clear();
    }

    @Override
    public String toString()
    {
        return nodeId;
    }
}
