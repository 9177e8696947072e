package io.overdrive.cache.hedge;

import java.util.Arrays;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The adaptive threshold of HDFS's own hedged reads. HDFS takes one threshold per client for reads of every size, so
 * the threshold has to stay above the time a healthy read of the largest usual size takes on this storage, or every
 * such read is read twice; and low enough that a read stuck on a slow replica is hedged soon.
 * <p>
 * From the recent reads (size and latency; a caller may weigh the size, as {@link NativeAdaptiveThreshold} does by the
 * reads in flight together), a model of a healthy read is fitted with medians, which a minority of slow
 * reads (a slow replica among three) does not move: the median latency {@code a} of the smaller half of the reads at
 * their median size, the median latency {@code b} of the largest quarter at theirs, and the line through both. The
 * threshold is {@code factor} times the modelled time of a read of the 95th percentile size, kept within a floor and a
 * ceiling. A hedged read ends early (at most the threshold plus a healthy read), which keeps a slow replica's reads near
 * the threshold; as they stay a minority they never become the median, so the threshold does not chase them. When
 * the storage itself slows (most reads run past the threshold), the medians of a window would follow only after
 * seconds of hedging every read; {@link #slowdownThresholdNanos} raises the threshold at once instead.
 * <p>
 * Not thread-safe: {@link NativeAdaptiveThreshold} records and computes under its lock.
 */
final class NativeThresholdPolicy
{
    // the fewest reads the model is fitted to: behind a page cache a freshly started worker's cold queries send each
    // storage about ten; fitted to 8 healthy reads of a scan's usual sizes the threshold stays above the healthy reads
    // that follow (TestNativeThresholdPolicy)
    static final int MIN_SAMPLES = 8;
    // a window holding this many reads is the model's alone; with fewer, the latest this many of the horizon are
    static final int WINDOW_SAMPLES = 20;
    // a storage-wide slowdown: of the latest reads of at least LARGE_READ_BYTES (in flight, then ended last), at least
    // this many ran past the threshold, and nine in ten of them did. Reads sent to one slow replica in three do so in
    // about one draw of 10 reads in 3,000
    static final int RECENT_READS = 10;
    static final int MIN_OVERRUNS = 9;
    static final long LARGE_READ_BYTES = 64 * 1024;

    private final double factor;
    private final long minNanos;
    private final long maxNanos;
    private final long windowNanos;
    private final long horizonNanos;
    private final long warmUpNanos;
    private final long[] bytes;
    private final long[] rawBytes;
    private final long[] nanos;
    private final long[] times;
    private int next;
    private int size;
    private long firstRecorded;
    // reads that ended before this (ticker nanos) describe the storage before a slowdown and no longer count
    private boolean forgetting;
    private long forgetBefore;

    NativeThresholdPolicy(double factor, long minNanos, long maxNanos, int capacity, long windowNanos, long warmUpNanos)
    {
        this(factor, minNanos, maxNanos, capacity, windowNanos, windowNanos, warmUpNanos);
    }

    /**
     * @param windowNanos the model is fitted to the reads of this last window when there are at least {@link #WINDOW_SAMPLES}
     * @param horizonNanos otherwise to the latest {@link #WINDOW_SAMPLES} reads of this longer horizon (at least
     * {@link #MIN_SAMPLES}): sparse reads, as a catalog behind a warm cache makes, still give a threshold
     */
    NativeThresholdPolicy(double factor, long minNanos, long maxNanos, int capacity, long windowNanos, long horizonNanos, long warmUpNanos)
    {
        checkArgument(horizonNanos >= windowNanos, "horizonNanos must not be below windowNanos");
        checkArgument(factor >= 1, "factor must be at least 1");
        checkArgument(minNanos > 0 && minNanos <= maxNanos, "minNanos must be above 0 and not above maxNanos");
        checkArgument(capacity >= WINDOW_SAMPLES, "capacity must be at least %s", WINDOW_SAMPLES);
        this.factor = factor;
        this.minNanos = minNanos;
        this.maxNanos = maxNanos;
        this.windowNanos = windowNanos;
        this.horizonNanos = horizonNanos;
        this.warmUpNanos = warmUpNanos;
        this.bytes = new long[capacity];
        this.rawBytes = new long[capacity];
        this.nanos = new long[capacity];
        this.times = new long[capacity];
    }

    /** A read of {@code readBytes} bytes took {@code latencyNanos}, ending at {@code now} (ticker nanos). */
    void record(long readBytes, long latencyNanos, long now)
    {
        record(readBytes, readBytes, latencyNanos, now);
    }

    /**
     * A read of {@code readBytes} bytes took {@code latencyNanos}, ending at {@code now} (ticker nanos); the model takes
     * it as {@code modelBytes} long (the caller's weighing).
     */
    void record(long readBytes, long modelBytes, long latencyNanos, long now)
    {
        if (readBytes <= 0 || modelBytes <= 0 || latencyNanos < 0) {
            return;
        }
        if (size == 0 || now - times[Math.floorMod(next - 1, bytes.length)] > windowNanos) {
            // the first read, or the first after the window emptied (the catalog was idle): a new query reads its
            // footers first, and the threshold set before is kept until its large reads are seen
            firstRecorded = now;
        }
        bytes[next] = modelBytes;
        rawBytes[next] = readBytes;
        nanos[next] = latencyNanos;
        times[next] = now;
        next = (next + 1) % bytes.length;
        size = Math.min(size + 1, bytes.length);
    }

    /**
     * The threshold the recent reads call for; empty during the warm-up after the first read, and after the first read
     * that follows an idle window (the first reads of a query are its footers and metadata, small and fast: the large
     * reads that follow would be hedged before the model sees any), and until {@link #MIN_SAMPLES} reads are known. The
     * model is fitted to the reads of the last window when it holds {@link #WINDOW_SAMPLES} or more, else to the latest
     * {@link #WINDOW_SAMPLES} (at least {@link #MIN_SAMPLES}) of the horizon.
     */
    OptionalLong thresholdNanos(long now)
    {
        if (size == 0 || now - firstRecorded < warmUpNanos) {
            return OptionalLong.empty();
        }
        int count = 0;
        long[][] samples = new long[size][];
        for (int i = 0; i < size; i++) {
            if (now - times[i] <= windowNanos && !forgotten(times[i])) {
                samples[count++] = new long[] {bytes[i], nanos[i]};
            }
        }
        if (count < WINDOW_SAMPLES) {
            // sparse reads (a catalog behind a warm cache reads its storage a few times a minute): the latest reads of
            // the horizon, newest first, describe the storage as it was last seen
            count = 0;
            for (int i = 1; i <= size && count < WINDOW_SAMPLES; i++) {
                int index = Math.floorMod(next - i, bytes.length);
                if (now - times[index] > horizonNanos || forgotten(times[index])) {
                    break;
                }
                samples[count++] = new long[] {bytes[index], nanos[index]};
            }
            if (count < MIN_SAMPLES) {
                return OptionalLong.empty();
            }
        }
        long[][] recent = Arrays.copyOf(samples, count);
        Arrays.sort(recent, (left, right) -> Long.compare(left[0], right[0]));
        // the smaller half and the largest quarter, by size
        long[][] small = Arrays.copyOfRange(recent, 0, count / 2);
        long[][] large = Arrays.copyOfRange(recent, count - count / 4, count);
        double smallBytes = median(small, 0);
        double smallNanos = median(small, 1);
        double largeBytes = median(large, 0);
        double largeNanos = median(large, 1);
        long sizeP95 = recent[Math.min(count - 1, (int) Math.ceil(0.95 * count) - 1)][0];
        double modelled = largeNanos;
        if (largeBytes > smallBytes && largeNanos > smallNanos) {
            double nanosPerByte = (largeNanos - smallNanos) / (largeBytes - smallBytes);
            modelled = Math.max(largeNanos, largeNanos + nanosPerByte * (sizeP95 - largeBytes));
        }
        return OptionalLong.of(Math.clamp((long) (factor * modelled), minNanos, maxNanos));
    }

    /**
     * A storage-wide slowdown: the threshold {@code thresholdNanos} in force is below what most reads now take. A slow
     * replica delays a minority of reads (one replica in three at most); when, of the {@link #RECENT_READS} latest
     * reads of at least {@link #LARGE_READ_BYTES} (the reads in flight, {@code inFlightBytes} long and
     * {@code inFlightAges} running so far, then the reads that ended last, within the window), at least
     * {@link #MIN_OVERRUNS} ran past the threshold, the storage itself is slower, and a hedge would only add a second
     * slow read. Smaller reads (footers, dictionaries) are left out: on storage slowed by its bandwidth they still end in
     * time. The reads recorded until now are forgotten (they describe the storage before), and the threshold returned
     * is {@code factor} times the longest of what the reads past it took or have run so far (at least twice the one in
     * force, within the floor and ceiling): it holds until {@link #MIN_SAMPLES} reads of the slower storage give the
     * model again. Empty: no slowdown.
     */
    OptionalLong slowdownThresholdNanos(long now, long thresholdNanos, long[] inFlightBytes, long[] inFlightAges)
    {
        checkArgument(inFlightBytes.length == inFlightAges.length, "inFlightBytes and inFlightAges differ in length");
        long[] latest = new long[Math.max(RECENT_READS, inFlightAges.length)];
        int count = 0;
        for (int i = 0; i < inFlightAges.length; i++) {
            if (inFlightBytes[i] >= LARGE_READ_BYTES) {
                latest[count++] = inFlightAges[i];
            }
        }
        for (int i = 1; i <= size && count < RECENT_READS; i++) {
            int index = Math.floorMod(next - i, bytes.length);
            if (now - times[index] > windowNanos || forgotten(times[index])) {
                break;
            }
            if (rawBytes[index] >= LARGE_READ_BYTES) {
                latest[count++] = nanos[index];
            }
        }
        int overruns = 0;
        // the longest of them: the reads in flight are still running, what they have run so far is less than they take
        long longest = 0;
        for (int i = 0; i < count; i++) {
            if (latest[i] > thresholdNanos) {
                overruns++;
                longest = Math.max(longest, latest[i]);
            }
        }
        if (overruns < MIN_OVERRUNS || 10L * overruns < 9L * count) {
            return OptionalLong.empty();
        }
        forgetting = true;
        forgetBefore = now + 1;
        long raised = (long) Math.max(factor * longest, 2.0 * thresholdNanos);
        return OptionalLong.of(Math.clamp(raised, minNanos, maxNanos));
    }

    private boolean forgotten(long time)
    {
        return forgetting && time - forgetBefore < 0;
    }

    private static double median(long[][] samples, int column)
    {
        long[] values = new long[samples.length];
        for (int i = 0; i < samples.length; i++) {
            values[i] = samples[i][column];
        }
        Arrays.sort(values);
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
    }
}
