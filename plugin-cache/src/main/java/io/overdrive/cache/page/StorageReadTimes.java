package io.overdrive.cache.page;

import com.google.common.base.Ticker;

import java.util.OptionalDouble;

import static java.util.Objects.requireNonNull;

/**
 * How long a read of remote storage takes, learned from the catalog's own remote reads: a read of {@code n} bytes takes
 * about {@code latency + n × time per byte}, a least-squares line through the recent reads, each weighted by its age
 * (halved every {@link #HALF_LIFE_NANOS}).
 * <p>
 * It errs towards storage being slow, so that the cache never steps aside for a storage it only thinks fast: waits
 * behind other reads count as latency, a negative latency counts as none, and when the reads were all about one size
 * (no line to draw), a read of fewer bytes is taken to cost as much as the average read. It knows nothing until
 * {@link #MIN_READS} reads were recorded.
 */
final class StorageReadTimes
{
    static final int MIN_READS = 5;
    static final long HALF_LIFE_NANOS = 10_000_000_000L;

    private final Ticker ticker;
    // the age-weighted sums over the reads (x: bytes, y: nanos); guarded by this
    private double weight;
    private double sumBytes;
    private double sumNanos;
    private double sumBytesSquared;
    private double sumBytesNanos;
    private long reads;
    private long lastNanos;

    StorageReadTimes(Ticker ticker)
    {
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    /** A remote read of {@code bytes} bytes that took {@code nanos}. */
    synchronized void record(long bytes, long nanos)
    {
        if (bytes <= 0 || nanos < 0) {
            return;
        }
        long now = ticker.read();
        if (reads > 0) {
            double decay = Math.pow(0.5, Math.max(0, now - lastNanos) / (double) HALF_LIFE_NANOS);
            weight *= decay;
            sumBytes *= decay;
            sumNanos *= decay;
            sumBytesSquared *= decay;
            sumBytesNanos *= decay;
        }
        lastNanos = now;
        double x = bytes;
        weight += 1;
        sumBytes += x;
        sumNanos += nanos;
        sumBytesSquared += x * x;
        sumBytesNanos += x * nanos;
        reads++;
    }

    /** The time a remote read of {@code bytes} bytes takes, once {@link #MIN_READS} reads were recorded. */
    synchronized OptionalDouble estimateNanos(long bytes)
    {
        if (reads < MIN_READS || weight <= 0) {
            return OptionalDouble.empty();
        }
        double meanBytes = sumBytes / weight;
        double meanNanos = sumNanos / weight;
        double variance = sumBytesSquared / weight - meanBytes * meanBytes;
        // sizes within a few percent of each other draw no line: a read costs at least the average read, and
        // proportionally more when larger
        if (variance <= 0.0025 * meanBytes * meanBytes) {
            return OptionalDouble.of(Math.max(meanNanos, meanNanos * bytes / meanBytes));
        }
        double nanosPerByte = Math.max(0, (sumBytesNanos / weight - meanBytes * meanNanos) / variance);
        double latency = Math.max(0, meanNanos - nanosPerByte * meanBytes);
        return OptionalDouble.of(latency + nanosPerByte * bytes);
    }

    synchronized long reads()
    {
        return reads;
    }
}
