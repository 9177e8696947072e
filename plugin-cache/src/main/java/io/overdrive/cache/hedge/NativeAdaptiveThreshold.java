package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.log.Logger;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The adaptive threshold of HDFS's own hedged reads ({@code hedged-read.threshold=adaptive} on HDFS): the catalog's
 * reads of HDFS are recorded (size, latency) into a {@link NativeThresholdPolicy}, and {@link #update}, called four times a
 * second, sets what the policy calls for on the catalog's live HDFS clients. A read's size is recorded times the reads in flight with it: on storage
 * whose bandwidth is the limit, reads started together take longer together, and the threshold must stay above them. The clients start at
 * {@code hedged-read.adaptive-initial} (within the adaptive range), written to their configuration; where the threshold cannot be set they keep the
 * last one set, adapting stops, and the failure is counted ({@code NativeThresholdFailures}) and logged once.
 */
final class NativeAdaptiveThreshold
{
    private static final Logger log = Logger.get(NativeAdaptiveThreshold.class);

    /** Sets the threshold on the live HDFS clients; returns how many have it. */
    interface Setter
    {
        int set(long millis)
                throws ReflectiveOperationException;
    }

    /** A read in flight: its length, when it started (ticker nanos), and the reads in flight when it did, itself included. */
    static final class Read
    {
        private final long bytes;
        private final long startNanos;
        private final int inFlightAtStart;

        private Read(long bytes, long startNanos, int inFlightAtStart)
        {
            this.bytes = bytes;
            this.startNanos = startNanos;
            this.inFlightAtStart = inFlightAtStart;
        }

        int inFlightAtStart()
        {
            return inFlightAtStart;
        }
    }

    private final NativeThresholdPolicy policy;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Set<Read> reads = ConcurrentHashMap.newKeySet();
    private final Ticker ticker;
    private final HedgedReadStats stats;
    private final AtomicLong currentMillis;
    private final AtomicBoolean failed = new AtomicBoolean();
    private volatile Setter setter;

    NativeAdaptiveThreshold(NativeThresholdPolicy policy, long initialMillis, HedgedReadStats stats, Ticker ticker)
    {
        this.policy = requireNonNull(policy, "policy is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.currentMillis = new AtomicLong(initialMillis);
    }

    /** Where the HDFS clients are reached; until then, and after a failure, the clients keep their threshold. */
    void start(Setter setter)
    {
        this.setter = requireNonNull(setter, "setter is null");
    }

    /** The HDFS clients' threshold could not be reached at all. */
    void unavailable()
    {
        fail(null);
    }

    /** A read of {@code bytes} bytes of the catalog's HDFS starts. */
    Read readStarted(long bytes)
    {
        Read read = new Read(bytes, ticker.read(), inFlight.incrementAndGet());
        reads.add(read);
        return read;
    }

    /**
     * The read started by {@link #readStarted} ended. A successful read is recorded as its bytes times the most reads
     * that were in flight with it: reads in flight together share the storage's bandwidth where that is the limit, so
     * a read among eight takes as long as one of eight times its size.
     */
    void readFinished(Read read, long latencyNanos, boolean succeeded)
    {
        reads.remove(read);
        int concurrent = Math.max(read.inFlightAtStart, inFlight.getAndDecrement());
        if (!succeeded) {
            return;
        }
        long now = ticker.read();
        synchronized (policy) {
            policy.record(read.bytes, read.bytes * Math.max(1, concurrent), latencyNanos, now);
        }
    }

    /** A successful read alone. */
    void record(long bytes, long latencyNanos)
    {
        readFinished(readStarted(bytes), latencyNanos, true);
    }

    /**
     * Sets the threshold the recent reads call for on the HDFS clients, raised at once where nine of the ten latest
     * reads of 64 KB or more, in flight or ended, ran past the one in force (a storage-wide slowdown, see {@link NativeThresholdPolicy#slowdownThresholdNanos});
     * never throws. Called by one thread.
     */
    void update()
    {
        Setter current = setter;
        if (current == null || failed.get()) {
            return;
        }
        long now = ticker.read();
        List<Read> running = List.copyOf(reads);
        long[] inFlightBytes = running.stream().mapToLong(read -> read.bytes).toArray();
        long[] inFlightAges = running.stream().mapToLong(read -> now - read.startNanos).toArray();
        long currentNanos = MILLISECONDS.toNanos(currentMillis.get());
        OptionalLong nanos;
        boolean slowdown;
        synchronized (policy) {
            nanos = policy.slowdownThresholdNanos(now, currentNanos, inFlightBytes, inFlightAges);
            slowdown = nanos.isPresent();
            if (!slowdown) {
                nanos = policy.thresholdNanos(now);
            }
        }
        long millis = Math.max(1, NANOSECONDS.toMillis(nanos.orElse(currentNanos)));
        try {
            int clients = current.set(millis);
            if (clients > 0 && currentMillis.getAndSet(millis) != millis) {
                stats.recordNativeThresholdUpdate();
                if (slowdown) {
                    stats.recordNativeThresholdSlowdown();
                }
            }
        }
        catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            fail(e);
        }
    }

    private void fail(Throwable cause)
    {
        if (failed.compareAndSet(false, true)) {
            stats.recordNativeThresholdFailure();
            log.warn(cause, "The hedge threshold of HDFS's own hedged reads cannot be adapted: it stays at %s ms", currentMillis.get());
        }
    }

    long millis()
    {
        return currentMillis.get();
    }
}
