package io.overdrive.it.placement;

import it.unimi.dsi.fastutil.longs.LongLinkedOpenHashSet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated worker: split slots, a FIFO queue of the splits assigned to it beyond its slots, and a page cache of a
 * fixed number of splits' data, least recently used first out.
 */
final class SimWorker
{
    final String nodeId;
    final int number;
    final List<SplitTask> running = new ArrayList<>();
    final ArrayDeque<SplitTask> queue = new ArrayDeque<>();
    // Trino's reference model: splits waiting on the coordinator for this worker (lazily removed once assigned)
    final ArrayDeque<SplitTask> waiting = new ArrayDeque<>();
    private final LongLinkedOpenHashSet cache = new LongLinkedOpenHashSet();
    private final int cacheCapacity;

    boolean alive;
    long aliveFromNanos;
    long aliveUntilNanos = Long.MAX_VALUE;
    // executions started in the measured window
    long splitsRun;
    long busyNanos;

    SimWorker(String nodeId, int number, int cacheCapacity)
    {
        this.nodeId = nodeId;
        this.number = number;
        this.cacheCapacity = cacheCapacity;
    }

    int assigned()
    {
        return running.size() + queue.size();
    }

    /** Whether the chunk is cached; a hit makes it the most recently used. */
    boolean readCached(long chunk)
    {
        if (cache.contains(chunk)) {
            cache.addAndMoveToLast(chunk);
            return true;
        }
        return false;
    }

    void cache(long chunk)
    {
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
