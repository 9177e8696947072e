package io.overdrive.cache.scan;

import io.overdrive.cache.page.PageFrame;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a remote read of one storage costs, learned from the shared scans' own last {@link #WINDOW} fetches of it: a
 * read of {@code n} bytes takes about {@code latency + n × time per byte} (a request's round trip and first byte, then
 * its transfer).
 * <p>
 * Both figures are estimated so as to err towards fetching less. Concurrent fetches share the storage's bandwidth, so a
 * fetch may wait behind others' bytes; a least-squares fit would count that wait as latency (small fetches look slow)
 * and conclude that bytes are cheap, and fetching more would make every fetch wait longer still. So the latency is a
 * low quantile ({@link #LATENCY_QUANTILE}) of the small fetches' times (less their transfer), those that waited behind
 * nobody, and the time per byte is the median over the large fetches of their time beyond that latency per byte, waits
 * included: under contention, bytes cost what the storage's shared bandwidth makes them cost.
 * <p>
 * It knows nothing until the window holds {@link #MIN_SMALL} small fetches (at most an eighth of a page, or one
 * checksum chunk) and {@link #MIN_LARGE} large ones (at least half a page); until then {@link #worthFetching} says no,
 * and a miss fetches only what its reader needs.
 */
final class FetchCost
{
    static final int WINDOW = 64;
    static final int MIN_SMALL = 3;
    static final int MIN_LARGE = 3;
    static final double LATENCY_QUANTILE = 0.25;
    // fetching more bytes now pays when their transfer costs at most this share of a request: the bytes are only needed
    // later with some chance, while their transfer is certain
    static final double SHARE_OF_A_REQUEST = 0.5;

    private final long smallBytes;
    private final long largeBytes;
    // the last WINDOW fetches, a ring; guarded by this
    private final long[] bytes = new long[WINDOW];
    private final long[] nanos = new long[WINDOW];
    private int next;
    private long fetches;

    FetchCost(int pageSize)
    {
        this.smallBytes = Math.max(PageFrame.CHUNK_SIZE, pageSize / 8);
        this.largeBytes = Math.max(2L * PageFrame.CHUNK_SIZE, pageSize / 2);
    }

    /** A fetch of {@code bytes} bytes that took {@code nanos}. */
    synchronized void record(long bytes, long nanos)
    {
        if (bytes <= 0 || nanos < 0) {
            return;
        }
        this.bytes[next] = bytes;
        this.nanos[next] = nanos;
        next = (next + 1) % WINDOW;
        fetches++;
    }

    /** The model, once the window holds enough small and large fetches. */
    synchronized Optional<Estimate> estimate()
    {
        int count = (int) Math.min(fetches, WINDOW);
        int small = 0;
        int large = 0;
        for (int i = 0; i < count; i++) {
            if (bytes[i] <= smallBytes) {
                small++;
            }
            else if (bytes[i] >= largeBytes) {
                large++;
            }
        }
        if (small < MIN_SMALL || large < MIN_LARGE) {
            return Optional.empty();
        }
        // the latency from the small fetches with their whole time, the time per byte from the large ones, then the
        // latency again with the small fetches' transfer taken off
        double latency = smallQuantile(count, small, 0);
        double nanosPerByte = largeMedian(count, large, latency);
        latency = smallQuantile(count, small, nanosPerByte);
        return Optional.of(new Estimate(latency, nanosPerByte, fetches));
    }

    private double smallQuantile(int count, int small, double nanosPerByte)
    {
        double[] latencies = new double[small];
        int j = 0;
        for (int i = 0; i < count; i++) {
            if (bytes[i] <= smallBytes) {
                latencies[j++] = Math.max(0, nanos[i] - nanosPerByte * bytes[i]);
            }
        }
        Arrays.sort(latencies);
        return latencies[(int) (LATENCY_QUANTILE * (small - 1))];
    }

    private double largeMedian(int count, int large, double latency)
    {
        double[] perByte = new double[large];
        int j = 0;
        for (int i = 0; i < count; i++) {
            if (bytes[i] >= largeBytes) {
                perByte[j++] = Math.max(0, nanos[i] - latency) / bytes[i];
            }
        }
        Arrays.sort(perByte);
        return perByte[large / 2];
    }

    /** Whether fetching {@code extraBytes} more in a read costs at most {@link #SHARE_OF_A_REQUEST} of a request. */
    boolean worthFetching(long extraBytes)
    {
        return estimate().map(estimate -> estimate.worthFetching(extraBytes)).orElse(false);
    }

    /**
     * The model: a request's latency, the transfer time of a byte, and the fetches it was learned from.
     */
    record Estimate(double latencyNanos, double nanosPerByte, long fetches)
    {
        boolean worthFetching(long extraBytes)
        {
            return latencyNanos > 0 && extraBytes * nanosPerByte <= SHARE_OF_A_REQUEST * latencyNanos;
        }

        /** The bandwidth in bytes per second; infinite when the transfer costs nothing measurable. */
        double bytesPerSecond()
        {
            return nanosPerByte == 0 ? Double.POSITIVE_INFINITY : 1e9 / nanosPerByte;
        }

        /** The most bytes worth fetching in a read to spare a later request. */
        double breakEvenBytes()
        {
            return nanosPerByte == 0 ? Double.POSITIVE_INFINITY : SHARE_OF_A_REQUEST * latencyNanos / nanosPerByte;
        }

        @Override
        public String toString()
        {
            return String.format("%.1f ms + %.1f MB/s over %d fetches", latencyNanos / 1e6, bytesPerSecond() / 1e6, fetches);
        }
    }
}
