package io.overdrive.cache.hedge;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adaptive threshold of HDFS's own hedging against synthetic storage: reads of the sizes a Parquet scan makes
 * (footers of a few KB to column chunks of a few MB), on healthy latency-bound storage, with one slow replica in three,
 * and on healthy bandwidth-bound storage.
 */
class TestNativeThresholdPolicy
{
    private static final long MIN = MILLISECONDS.toNanos(10);
    private static final long MAX = SECONDS.toNanos(2);
    private static final long WINDOW = SECONDS.toNanos(10);
    private static final double FACTOR = 3;

    private final Random random = new Random(42);

    /** A healthy read: a first-byte latency, then the bytes at a bandwidth, with 0-20% jitter. */
    private long healthy(long bytes, double firstByteMillis, double megabytesPerSecond)
    {
        double millis = firstByteMillis + bytes / (megabytesPerSecond * 1024 * 1024) * 1000;
        return (long) (MILLISECONDS.toNanos(1) * millis * (1 + 0.2 * random.nextDouble()));
    }

    private long size()
    {
        // a few small reads (footers, dictionaries) and many column chunks up to 4 MB
        return random.nextInt(4) == 0 ? 1024 + random.nextInt(64 * 1024) : 256 * 1024 + random.nextInt(4 * 1024 * 1024);
    }

    private record Read(long bytes, long nanos) {}

    private long threshold(List<Read> reads)
    {
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        long now = 0;
        for (Read read : reads) {
            now += MILLISECONDS.toNanos(5);
            policy.record(read.bytes(), read.nanos(), now);
        }
        return policy.thresholdNanos(now).orElseThrow();
    }

    @Test
    void latencyBoundHealthyStorageGetsALowThresholdAboveItsReads()
    {
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            long bytes = size();
            reads.add(new Read(bytes, healthy(bytes, 5, 1000)));
        }
        long threshold = threshold(reads);
        assertThat(threshold).isLessThan(MILLISECONDS.toNanos(50));
        // no healthy read is hedged
        assertThat(reads).allMatch(read -> read.nanos() < threshold);
    }

    @Test
    void oneSlowReplicaInThreeKeepsTheThresholdLow()
    {
        // one read in three goes to a replica that waits a further 500 ms; HDFS hedges it after the threshold, so the
        // reader sees at most the threshold plus a healthy read: feed back what the reader sees, as the catalog does
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        long now = 0;
        long threshold = MAX;
        List<Long> thresholds = new ArrayList<>();
        for (int second = 0; second < 30; second++) {
            for (int i = 0; i < 200; i++) {
                now += MILLISECONDS.toNanos(5);
                long bytes = size();
                long nanos = healthy(bytes, 5, 1000);
                if (random.nextInt(3) == 0) {
                    long slow = nanos + MILLISECONDS.toNanos(500);
                    nanos = Math.min(slow, threshold + healthy(bytes, 5, 1000));
                }
                policy.record(bytes, nanos, now);
            }
            threshold = policy.thresholdNanos(now).orElse(threshold);
            thresholds.add(threshold);
        }
        // adapted after the first second, and stays well below the slow replica's 500 ms without drifting up
        assertThat(thresholds).allMatch(nanos -> nanos < MILLISECONDS.toNanos(60));
    }

    @Test
    void bandwidthBoundHealthyStorageGetsAThresholdAboveItsLargestReads()
    {
        // 8 MB/s and 15 ms a request: a 4 MB read lasts half a second, and is healthy
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            long bytes = size();
            reads.add(new Read(bytes, healthy(bytes, 15, 8)));
        }
        long threshold = threshold(reads);
        assertThat(reads).allMatch(read -> read.nanos() < threshold);
        assertThat(threshold).isLessThanOrEqualTo(MAX);
    }

    @Test
    void aFixedFiftyMillisecondsWouldHedgeMostBandwidthBoundReads()
    {
        // the reason the threshold adapts: most of these healthy reads outlast 50 ms
        long slowerThanFifty = 0;
        for (int i = 0; i < 1000; i++) {
            long bytes = size();
            if (healthy(bytes, 15, 8) > MILLISECONDS.toNanos(50)) {
                slowerThanFifty++;
            }
        }
        assertThat(slowerThanFifty).isGreaterThan(500);
    }

    @Test
    void noThresholdUntilEnoughRecentReads()
    {
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        for (int i = 0; i < NativeThresholdPolicy.MIN_SAMPLES - 1; i++) {
            policy.record(1024, MILLISECONDS.toNanos(5), i);
        }
        assertThat(policy.thresholdNanos(NativeThresholdPolicy.MIN_SAMPLES)).isEmpty();
        policy.record(1024, MILLISECONDS.toNanos(5), NativeThresholdPolicy.MIN_SAMPLES);
        assertThat(policy.thresholdNanos(NativeThresholdPolicy.MIN_SAMPLES)).hasValue(MILLISECONDS.toNanos(15));
        // reads older than the window no longer count
        assertThat(policy.thresholdNanos(NativeThresholdPolicy.MIN_SAMPLES + WINDOW + 1)).isEmpty();
        // empty reads say nothing about the storage
        policy.record(0, MILLISECONDS.toNanos(5), 0);
    }

    @Test
    void followsTheStorageWithinTheWindow()
    {
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        long now = 0;
        for (int i = 0; i < 1000; i++) {
            now += MILLISECONDS.toNanos(5);
            long bytes = size();
            policy.record(bytes, healthy(bytes, 15, 8), now);
        }
        assertThat(policy.thresholdNanos(now).orElseThrow()).isGreaterThan(MILLISECONDS.toNanos(500));
        // the storage heals: a few seconds of fast reads bring the threshold down
        for (int i = 0; i < 1000; i++) {
            now += MILLISECONDS.toNanos(5);
            long bytes = size();
            policy.record(bytes, healthy(bytes, 5, 1000), now);
        }
        assertThat(policy.thresholdNanos(now).orElseThrow()).isLessThan(MILLISECONDS.toNanos(50));
    }

    @Test
    void noThresholdDuringTheWarmUpAfterTheFirstRead()
    {
        // a catalog's first reads are footers: small and fast. The column chunks that follow would all be hedged if
        // the threshold followed the footers at once
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, WINDOW);
        long now = SECONDS.toNanos(100);
        for (int i = 0; i < 100; i++) {
            now += MILLISECONDS.toNanos(1);
            policy.record(16 * 1024, MILLISECONDS.toNanos(6), now);
        }
        assertThat(policy.thresholdNanos(now)).isEmpty();
        for (int i = 0; i < 100; i++) {
            now += MILLISECONDS.toNanos(100);
            policy.record(4 << 20, MILLISECONDS.toNanos(520), now);
        }
        // 10 s after the first read: the model has seen the large reads
        assertThat(policy.thresholdNanos(now).orElseThrow()).isGreaterThan(MILLISECONDS.toNanos(520));
    }

    @Test
    void eightReadsGiveAThresholdAboveTheHealthyReadsThatFollow()
    {
        // behind a page cache a freshly started worker sends a storage about ten reads in its first cold queries: fitted
        // to the first 8, the threshold must stay above the healthy reads of the usual sizes that follow, on storage
        // limited by latency, by bandwidth, or both, and still hedge most reads a slow replica delays by 500 ms
        double[][] storages = {{5, 1000}, {15, 64}, {15, 8}};
        for (double[] storage : storages) {
            long healthyPast = 0;
            long slowPast = 0;
            long checked = 0;
            for (int trial = 0; trial < 500; trial++) {
                NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, SECONDS.toNanos(10), 1000, WINDOW, 0);
                long now = 0;
                for (int read = 0; read < NativeThresholdPolicy.MIN_SAMPLES; read++) {
                    now += MILLISECONDS.toNanos(5);
                    long bytes = size();
                    policy.record(bytes, healthy(bytes, storage[0], storage[1]), now);
                }
                long threshold = policy.thresholdNanos(now).orElseThrow();
                for (int read = 0; read < 100; read++) {
                    long bytes = size();
                    long healthy = healthy(bytes, storage[0], storage[1]);
                    healthyPast += healthy > threshold ? 1 : 0;
                    slowPast += healthy + MILLISECONDS.toNanos(500) > threshold ? 1 : 0;
                    checked++;
                }
            }
            double healthyShare = healthyPast / (double) checked;
            double slowShare = slowPast / (double) checked;
            System.out.printf("%s ms, MB/s: healthy reads past the threshold %.4f, slow %.4f%n", Arrays.toString(storage), healthyShare, slowShare);
            assertThat(healthyShare).as("healthy reads hedged, storage %s", Arrays.toString(storage)).isLessThan(0.002);
            if (storage[1] >= 64) {
                assertThat(slowShare).as("slow replica's reads hedged, storage %s", Arrays.toString(storage)).isGreaterThan(0.9);
            }
        }
        // 7 reads give none
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        for (int read = 1; read < NativeThresholdPolicy.MIN_SAMPLES; read++) {
            policy.record(1 << 20, MILLISECONDS.toNanos(30), read);
        }
        assertThat(policy.thresholdNanos(NativeThresholdPolicy.MIN_SAMPLES)).isEmpty();
    }

    @Test
    void sparseReadsGiveAThresholdFromTheLatestOfTheHorizon()
    {
        // a catalog behind a warm cache: one read every 20 seconds, never more than one in a 10-second window. With a
        // horizon of ten minutes the latest reads give the model from the 8th on; without one (horizon = window) nothing
        // ever does
        long horizon = SECONDS.toNanos(600);
        long warmUp = SECONDS.toNanos(3);
        NativeThresholdPolicy sparse = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, horizon, warmUp);
        NativeThresholdPolicy windowOnly = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, warmUp);
        long now = 0;
        for (int i = 0; i < NativeThresholdPolicy.MIN_SAMPLES - 1; i++) {
            now += SECONDS.toNanos(20);
            sparse.record(1 << 20, MILLISECONDS.toNanos(130), now);
            windowOnly.record(1 << 20, MILLISECONDS.toNanos(130), now);
        }
        assertThat(sparse.thresholdNanos(now + warmUp)).isEmpty();
        now += SECONDS.toNanos(20);
        sparse.record(1 << 20, MILLISECONDS.toNanos(130), now);
        windowOnly.record(1 << 20, MILLISECONDS.toNanos(130), now);
        // every read follows an idle window: the threshold in force is kept for the warm-up after it, then the model's
        assertThat(sparse.thresholdNanos(now)).isEmpty();
        assertThat(sparse.thresholdNanos(now + warmUp)).hasValue(MILLISECONDS.toNanos(390));
        assertThat(windowOnly.thresholdNanos(now + warmUp)).isEmpty();

        // the latest 20 only: the storage got faster, 20 more sparse reads of 30 ms replace the model
        for (int i = 0; i < NativeThresholdPolicy.WINDOW_SAMPLES; i++) {
            now += SECONDS.toNanos(20);
            sparse.record(1 << 20, MILLISECONDS.toNanos(30), now);
        }
        assertThat(sparse.thresholdNanos(now + warmUp)).hasValue(MILLISECONDS.toNanos(90));
        // reads older than the horizon no longer count
        assertThat(sparse.thresholdNanos(now + horizon - SECONDS.toNanos(380))).isPresent();
        assertThat(sparse.thresholdNanos(now + horizon)).isEmpty();

        // a burst of 20 reads within the window is the model, whatever the older sparse reads said
        for (int i = 0; i < NativeThresholdPolicy.WINDOW_SAMPLES; i++) {
            now += MILLISECONDS.toNanos(100);
            sparse.record(1 << 20, MILLISECONDS.toNanos(60), now);
        }
        assertThat(sparse.thresholdNanos(now + warmUp)).hasValue(MILLISECONDS.toNanos(180));
    }

    @Test
    void keptWithinFloorAndCeiling()
    {
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        for (int i = 0; i < 100; i++) {
            policy.record(1024, 1000, i);
        }
        assertThat(policy.thresholdNanos(100)).hasValue(MIN);
        for (int i = 0; i < 1000; i++) {
            policy.record(1024, SECONDS.toNanos(5), 100 + i);
        }
        assertThat(policy.thresholdNanos(1100)).hasValue(MAX);
    }

    @Test
    void aSlowReplicaIsNotTakenForAStorageWideSlowdown()
    {
        // 20 reads a second for ten minutes, one in three to a replica that waits a further 500 ms and is hedged after
        // the threshold; four updates a second, each with the reads in flight
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        long now = 0;
        long threshold = MAX;
        int slowdowns = 0;
        List<Long> inFlight = new ArrayList<>();
        List<Long> inFlightBytes = new ArrayList<>();
        for (int tick = 0; tick < 4 * 600; tick++) {
            inFlight.clear();
            inFlightBytes.clear();
            for (int i = 0; i < 5; i++) {
                now += MILLISECONDS.toNanos(50);
                long bytes = size();
                long nanos = healthy(bytes, 5, 1000);
                if (random.nextInt(3) == 0) {
                    nanos = Math.min(nanos + MILLISECONDS.toNanos(500), threshold + healthy(bytes, 5, 1000));
                }
                if (i >= 3) {
                    // the last two of the tick are still running: as far as they got
                    inFlight.add(random.nextLong(nanos + 1));
                    inFlightBytes.add(bytes);
                    continue;
                }
                policy.record(bytes, nanos, now);
            }
            long[] ages = inFlight.stream().mapToLong(Long::longValue).toArray();
            if (policy.slowdownThresholdNanos(now, threshold, inFlightBytes.stream().mapToLong(Long::longValue).toArray(), ages).isPresent()) {
                slowdowns++;
            }
            threshold = policy.thresholdNanos(now).orElse(threshold);
        }
        assertThat(slowdowns).isZero();
        assertThat(threshold).isLessThan(MILLISECONDS.toNanos(60));
    }

    @Test
    void aStorageWideSlowdownForgetsTheFasterStorage()
    {
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        long now = 0;
        for (int i = 0; i < 200; i++) {
            now += MILLISECONDS.toNanos(5);
            long bytes = size();
            policy.record(bytes, healthy(bytes, 5, 1000), now);
        }
        long threshold = policy.thresholdNanos(now).orElseThrow();
        assertThat(threshold).isLessThan(MILLISECONDS.toNanos(50));
        // every read in flight has run past it: the storage itself slowed
        long[] inFlight = new long[10];
        Arrays.fill(inFlight, 4 * threshold);
        long[] megabyte = new long[10];
        Arrays.fill(megabyte, 1 << 20);
        long raised = policy.slowdownThresholdNanos(now, threshold, megabyte, inFlight).orElseThrow();
        assertThat(raised).isEqualTo(Math.min(MAX, (long) (FACTOR * 4 * threshold)));
        // the reads of the faster storage no longer count: no model until enough reads of the slower one
        assertThat(policy.thresholdNanos(now)).isEmpty();
        for (int i = 0; i < NativeThresholdPolicy.MIN_SAMPLES; i++) {
            now += MILLISECONDS.toNanos(100);
            long bytes = size();
            policy.record(bytes, healthy(bytes, 15, 8), now);
        }
        assertThat(policy.thresholdNanos(now).orElseThrow()).isGreaterThan(MILLISECONDS.toNanos(500));
        // the reads past the threshold hold less than nine in ten of the latest ten's bytes: no slowdown
        long[] some = new long[10];
        Arrays.fill(some, 0, 8, SECONDS.toNanos(1));
        assertThat(policy.slowdownThresholdNanos(now, threshold, megabyte, some)).isEmpty();
        // nor with fewer than four reads past it, whatever their bytes
        long[] three = new long[3];
        Arrays.fill(three, SECONDS.toNanos(1));
        assertThat(policy.slowdownThresholdNanos(now, SECONDS.toNanos(10), new long[0], new long[0])).isEmpty();
        NativeThresholdPolicy fresh = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, 0);
        assertThat(fresh.slowdownThresholdNanos(now, threshold, new long[] {1 << 20, 1 << 20, 1 << 20}, three)).isEmpty();
    }

    @Test
    void aQueryAfterAnIdleWindowWaitsForItsLargeReads()
    {
        long warmUp = SECONDS.toNanos(3);
        NativeThresholdPolicy policy = new NativeThresholdPolicy(FACTOR, MIN, MAX, 1000, WINDOW, warmUp);
        long now = 0;
        for (int i = 0; i < 100; i++) {
            now += MILLISECONDS.toNanos(100);
            policy.record(1 << 20, MILLISECONDS.toNanos(130), now);
        }
        assertThat(policy.thresholdNanos(now).orElseThrow()).isEqualTo(MILLISECONDS.toNanos(390));
        // idle for longer than the window; the next query reads its footers first: no threshold from them alone
        now += 2 * WINDOW;
        for (int i = 0; i < 50; i++) {
            now += MILLISECONDS.toNanos(20);
            policy.record(16 * 1024, MILLISECONDS.toNanos(6), now);
        }
        assertThat(policy.thresholdNanos(now)).isEmpty();
        // its column chunks follow: after the wait the model has them
        for (int i = 0; i < 30; i++) {
            now += MILLISECONDS.toNanos(100);
            policy.record(1 << 20, MILLISECONDS.toNanos(130), now);
        }
        assertThat(policy.thresholdNanos(now).orElseThrow()).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(390));
        // without an idle window there is no new wait: footers among recent large reads change the model at once
        for (int i = 0; i < 5; i++) {
            now += MILLISECONDS.toNanos(20);
            policy.record(16 * 1024, MILLISECONDS.toNanos(6), now);
        }
        assertThat(policy.thresholdNanos(now)).isPresent();
    }
}
