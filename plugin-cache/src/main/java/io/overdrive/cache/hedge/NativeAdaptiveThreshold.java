package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.log.Logger;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The adaptive threshold of HDFS's own hedged reads ({@code hedged-read.threshold=adaptive} on HDFS): the catalog's
 * reads of HDFS are recorded (size, latency) into a {@link NativeThresholdPolicy}, and {@link #update}, called every
 * second, sets what the policy calls for on the catalog's live HDFS clients. The clients start at
 * {@code hedged-read.adaptive-max}, written to their configuration; where the threshold cannot be set they keep the
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

    private final NativeThresholdPolicy policy;
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

    void record(long bytes, long latencyNanos)
    {
        long now = ticker.read();
        synchronized (policy) {
            policy.record(bytes, latencyNanos, now);
        }
    }

    /** Sets the threshold the recent reads call for on the HDFS clients; never throws. */
    void update()
    {
        Setter current = setter;
        if (current == null || failed.get()) {
            return;
        }
        OptionalLong nanos;
        synchronized (policy) {
            nanos = policy.thresholdNanos(ticker.read());
        }
        long millis = Math.max(1, NANOSECONDS.toMillis(nanos.orElse(MILLISECONDS.toNanos(currentMillis.get()))));
        try {
            int clients = current.set(millis);
            if (clients > 0 && currentMillis.getAndSet(millis) != millis) {
                stats.recordNativeThresholdUpdate();
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
