package io.overdrive.cache.peer;

import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Peer read metrics, one MBean per catalog on each node that reads data: what this worker asked its peers for (reads,
 * hits, bytes, failures by kind, latency) and what it served them.
 */
public class PeerStats
{
    // asking
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong hitBytes = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong connectionFailures = new AtomicLong();
    private final AtomicLong checksumFailures = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private final AtomicLong skippedPeerDown = new AtomicLong();
    private final AtomicLong fetchWaits = new AtomicLong();
    private final TimeStat hitTime = new TimeStat(MILLISECONDS);
    private final TimeStat failureTime = new TimeStat(MILLISECONDS);
    // serving
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong servedBytes = new AtomicLong();
    private final AtomicLong servedMisses = new AtomicLong();
    private final AtomicLong servedAfterFetch = new AtomicLong();
    private final AtomicLong servedBusy = new AtomicLong();
    private final AtomicLong unauthenticated = new AtomicLong();
    private final AtomicLong badRequests = new AtomicLong();
    private final AtomicLong loadAnswers = new AtomicLong();
    private final AtomicLong loadUnknown = new AtomicLong();

    void recordHit(long bytes, long nanos)
    {
        reads.incrementAndGet();
        hits.incrementAndGet();
        hitBytes.addAndGet(bytes);
        hitTime.add(nanos, NANOSECONDS);
    }

    void recordMiss()
    {
        reads.incrementAndGet();
        misses.incrementAndGet();
    }

    void recordFailure(PeerFailure failure, long nanos)
    {
        reads.incrementAndGet();
        failureTime.add(nanos, NANOSECONDS);
        switch (failure) {
            case TIMEOUT -> timeouts.incrementAndGet();
            case CONNECTION -> connectionFailures.incrementAndGet();
            case CHECKSUM -> checksumFailures.incrementAndGet();
            case REFUSED -> refused.incrementAndGet();
            case BUSY -> busy.incrementAndGet();
        }
    }

    void recordLoadAnswer(boolean known)
    {
        (known ? loadAnswers : loadUnknown).incrementAndGet();
    }

    void recordFetchWait()
    {
        fetchWaits.incrementAndGet();
    }

    void recordServedAfterFetch()
    {
        servedAfterFetch.incrementAndGet();
    }

    void recordSkippedPeerDown()
    {
        skippedPeerDown.incrementAndGet();
    }

    void recordServed(long bytes)
    {
        served.incrementAndGet();
        servedBytes.addAndGet(bytes);
    }

    void recordServedMiss()
    {
        servedMisses.incrementAndGet();
    }

    void recordServedBusy()
    {
        servedBusy.incrementAndGet();
    }

    void recordUnauthenticated()
    {
        unauthenticated.incrementAndGet();
    }

    void recordBadRequest()
    {
        badRequests.incrementAndGet();
    }

    @Managed(description = "Peer reads that found the peer reading those bytes from storage and asked again, waiting for that read (cache.peer.fetch-wait); each is also a hit, a miss or a failure")
    public long getFetchWaits()
    {
        return fetchWaits.get();
    }

    @Managed(description = "Peer requests this worker answered with the bytes of its own storage read in flight, having waited for it")
    public long getServedAfterFetch()
    {
        return servedAfterFetch.get();
    }

    @Managed(description = "Reads of missed pages this worker asked a peer for")
    public long getReads()
    {
        return reads.get();
    }

    @Managed(description = "Peer reads the peer answered with every byte asked for, checksums verified: storage not read")
    public long getHits()
    {
        return hits.get();
    }

    @Managed(description = "Bytes those peer hits brought instead of storage")
    public long getHitBytes()
    {
        return hitBytes.get();
    }

    @Managed(description = "Peer reads the peer did not hold (all the bytes asked for): storage read")
    public long getMisses()
    {
        return misses.get();
    }

    @Managed(description = "Peer reads abandoned after cache.peer.read-timeout: storage read")
    public long getTimeouts()
    {
        return timeouts.get();
    }

    @Managed(description = "Peer reads that could not reach the peer or lost the connection mid-answer: storage read")
    public long getConnectionFailures()
    {
        return connectionFailures.get();
    }

    @Managed(description = "Peer answers whose bytes failed their chunk checksums, discarded: storage read")
    public long getChecksumFailures()
    {
        return checksumFailures.get();
    }

    @Managed(description = "Peer reads the peer refused as not signed with its secret (the nodes' cache.peer.shared-secret differ) or as malformed: storage read")
    public long getRefused()
    {
        return refused.get();
    }

    @Managed(description = "Peer reads the peer refused as busy (cache.peer.server-threads): storage read")
    public long getBusy()
    {
        return busy.get();
    }

    @Managed(description = "Peer reads not attempted because that peer failed within cache.peer.retry-after: storage read")
    public long getSkippedPeerDown()
    {
        return skippedPeerDown.get();
    }

    @Managed
    @Nested
    public TimeStat getHitTime()
    {
        return hitTime;
    }

    @Managed
    @Nested
    public TimeStat getFailureTime()
    {
        return failureTime;
    }

    @Managed(description = "Peer requests this worker answered with the bytes asked for")
    public long getServed()
    {
        return served.get();
    }

    @Managed(description = "Bytes this worker served to peers")
    public long getServedBytes()
    {
        return servedBytes.get();
    }

    @Managed(description = "Peer requests for bytes this worker does not hold (or holds for another version of the file)")
    public long getServedMisses()
    {
        return servedMisses.get();
    }

    @Managed(description = "Peer requests refused because cache.peer.server-threads requests were being served")
    public long getServedBusy()
    {
        return servedBusy.get();
    }

    @Managed(description = "Requests refused as not signed with this catalog's cache.peer.shared-secret")
    public long getUnauthenticated()
    {
        return unauthenticated.get();
    }

    @Managed(description = "Signed requests refused as malformed (unknown path, bad parameters, another page size)")
    public long getBadRequests()
    {
        return badRequests.get();
    }

    @Managed(description = "Load requests of the coordinator's placer this worker answered with its load")
    public long getLoadAnswers()
    {
        return loadAnswers.get();
    }

    @Managed(description = "Load requests this worker answered 404: it cannot read its task executor's counts")
    public long getLoadUnknown()
    {
        return loadUnknown.get();
    }
}
