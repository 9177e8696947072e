package io.overdrive.cache.hedge;

import io.airlift.testing.TestingTicker;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestAdaptiveThreshold
{
    private static final long MIN = MILLISECONDS.toNanos(10);
    private static final long MAX = SECONDS.toNanos(1);

    private final TestingTicker ticker = new TestingTicker();

    @Test
    void initialThresholdUntilEarlySamples()
    {
        long initial = MILLISECONDS.toNanos(500);
        TestingTicker clock = new TestingTicker();
        AdaptiveThreshold threshold = new AdaptiveThreshold(95, 3, MIN, MAX * 10, initial, clock);
        assertThat(threshold.nanos()).isEqualTo(initial);
        for (int read = 1; read < AdaptiveThreshold.MIN_EARLY_SAMPLES; read++) {
            clock.increment(100, MILLISECONDS);
            threshold.record(MILLISECONDS.toNanos(read % 2 == 0 ? 2_000 : 20));
            assertThat(threshold.nanos()).as("%s reads", read).isEqualTo(initial);
        }
        // then the reads' own rule: three times the median of healthy 20 ms reads
        for (int read = 0; read < 10; read++) {
            clock.increment(100, MILLISECONDS);
            threshold.record(MILLISECONDS.toNanos(20));
        }
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(40), MILLISECONDS.toNanos(80));
        assertThatThrownBy(() -> new AdaptiveThreshold(95, 3, MIN, MAX, MAX + 1, clock)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AdaptiveThreshold(95, 3, MIN, MAX, MIN - 1, clock)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ceilingUntilEarlySamplesThenMedianThenPercentile()
    {
        assertThat(new AdaptiveThreshold(95, 3, MIN, MAX, ticker).nanos()).isEqualTo(MAX);
        // n samples of 1..n ms within one refresh interval and the same second (no decay between them), then one refresh
        for (int samples = 1; samples <= AdaptiveThreshold.MIN_SAMPLES + 5; samples++) {
            TestingTicker clock = new TestingTicker();
            AdaptiveThreshold threshold = new AdaptiveThreshold(95, 3, MILLISECONDS.toNanos(1), MAX, clock);
            for (int sample = 1; sample < samples; sample++) {
                threshold.record(MILLISECONDS.toNanos(sample));
            }
            clock.increment(100, MILLISECONDS);
            threshold.record(MILLISECONDS.toNanos(samples));
            if (samples < AdaptiveThreshold.MIN_EARLY_SAMPLES) {
                assertThat(threshold.nanos()).as("%s samples", samples).isEqualTo(MAX);
            }
            else if (samples < AdaptiveThreshold.MIN_SAMPLES) {
                // three times the median of 1..n ms, (n + 1) / 2, within the digest's interpolation of a few samples
                assertThat(threshold.nanos()).as("%s samples", samples)
                        .isBetween(MILLISECONDS.toNanos(3 * samples / 2 - 3), MILLISECONDS.toNanos(3 * (samples + 1) / 2 + 3));
            }
            else {
                // the 95th percentile of 1..n ms, lower than three times the median: between n - 2 and n ms
                assertThat(threshold.nanos()).as("%s samples", samples)
                        .isBetween(MILLISECONDS.toNanos(samples - 2), MILLISECONDS.toNanos(samples));
            }
        }
    }

    @Test
    void aSlowMinorityIsHedgedAtAMultipleOfTheMedian()
    {
        // one read in three goes to a slow endpoint, 500-1500ms; the others take 20-40ms. The 95th percentile is a slow
        // read, so the percentile alone would hedge none of them; three times the median (a healthy read) hedges them all
        AdaptiveThreshold threshold = new AdaptiveThreshold(95, 3, MIN, MAX * 10, ticker);
        Random random = new Random(5);
        for (int read = 0; read < 300; read++) {
            ticker.increment(50, MILLISECONDS);
            threshold.record(MILLISECONDS.toNanos(read % 3 == 0 ? 500 + random.nextInt(1001) : 20 + random.nextInt(21)));
        }
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(60), MILLISECONDS.toNanos(130));

        // the same with the early rule: five reads of a cold cache, two of them slow
        TestingTicker clock = new TestingTicker();
        AdaptiveThreshold cold = new AdaptiveThreshold(95, 3, MIN, MAX * 10, clock);
        for (long millis : new long[] {25, 900, 30, 1200, 35}) {
            clock.increment(100, MILLISECONDS);
            cold.record(MILLISECONDS.toNanos(millis));
        }
        assertThat(cold.nanos()).isBetween(MILLISECONDS.toNanos(75), MILLISECONDS.toNanos(135));
    }

    @Test
    void factorScalesTheMedianRule()
    {
        TestingTicker clock = new TestingTicker();
        AdaptiveThreshold threshold = new AdaptiveThreshold(95, 1.5, MIN, MAX, clock);
        for (int read = 0; read < 10; read++) {
            clock.increment(100, MILLISECONDS);
            threshold.record(MILLISECONDS.toNanos(40));
        }
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(59), MILLISECONDS.toNanos(61));
    }

    @Test
    void percentileOfRecentLatencies()
    {
        AdaptiveThreshold p95 = new AdaptiveThreshold(95, 3, MIN, MAX, ticker);
        recordUniform(p95, ticker, 1, 100, 10, new Random(1));
        assertThat(p95.nanos()).isBetween(MILLISECONDS.toNanos(93), MILLISECONDS.toNanos(97));

        TestingTicker medianTicker = new TestingTicker();
        AdaptiveThreshold p50 = new AdaptiveThreshold(50, 3, MIN, MAX, medianTicker);
        recordUniform(p50, medianTicker, 1, 100, 10, new Random(2));
        assertThat(p50.nanos()).isBetween(MILLISECONDS.toNanos(48), MILLISECONDS.toNanos(52));

        TestingTicker p99Ticker = new TestingTicker();
        AdaptiveThreshold p99 = new AdaptiveThreshold(99, 3, MIN, MAX, p99Ticker);
        recordUniform(p99, p99Ticker, 100, 300, 5, new Random(3));
        assertThat(p99.nanos()).isBetween(MILLISECONDS.toNanos(295), MILLISECONDS.toNanos(301));
    }

    @Test
    void refreshedAtMostEveryHundredMilliseconds()
    {
        AdaptiveThreshold threshold = new AdaptiveThreshold(95, 3, MIN, MAX, ticker);
        for (int sample = 0; sample < 100; sample++) {
            threshold.record(MILLISECONDS.toNanos(50));
        }
        // the first sample refreshed it, with too few samples; none since, at the same instant
        assertThat(threshold.nanos()).isEqualTo(MAX);
        ticker.increment(99, MILLISECONDS);
        threshold.record(MILLISECONDS.toNanos(50));
        assertThat(threshold.nanos()).isEqualTo(MAX);
        ticker.increment(1, MILLISECONDS);
        threshold.record(MILLISECONDS.toNanos(50));
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(49), MILLISECONDS.toNanos(51));
    }

    @Test
    void clampedToFloorAndCeiling()
    {
        AdaptiveThreshold fast = new AdaptiveThreshold(95, 3, MIN, MAX, ticker);
        for (int sample = 0; sample < 100; sample++) {
            fast.record(MILLISECONDS.toNanos(1));
        }
        ticker.increment(100, MILLISECONDS);
        fast.record(MILLISECONDS.toNanos(1));
        assertThat(fast.nanos()).isEqualTo(MIN);

        TestingTicker slowTicker = new TestingTicker();
        AdaptiveThreshold slow = new AdaptiveThreshold(95, 3, MIN, MAX, slowTicker);
        for (int sample = 0; sample < 100; sample++) {
            slow.record(SECONDS.toNanos(5));
        }
        slowTicker.increment(100, MILLISECONDS);
        slow.record(SECONDS.toNanos(5));
        assertThat(slow.nanos()).isEqualTo(MAX);
    }

    @Test
    void followsAChangeOfLatency()
    {
        AdaptiveThreshold threshold = new AdaptiveThreshold(95, 3, MIN, MAX, ticker);
        // a minute of slow reads, 5 a second, 180-220ms
        Random random = new Random(3);
        recordOverTime(threshold, 60, 5, 180, 220, random);
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(200), MILLISECONDS.toNanos(220));

        // the storage recovers: 15-25ms. Ten seconds later the slow reads still weigh more than 5%: still slow
        recordOverTime(threshold, 10, 5, 15, 25, random);
        assertThat(threshold.nanos()).isGreaterThan(MILLISECONDS.toNanos(150));

        // five minutes later the slow minute weighs under 1%: the threshold is the fast reads' 95th percentile
        recordOverTime(threshold, 290, 5, 15, 25, random);
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(22), MILLISECONDS.toNanos(26));

        // a storage-wide slowdown: while the slow reads are a minority the threshold stays at three times a fast read
        // (the hedge budget bounds what hedging them costs); once they are the median, it is their 95th percentile
        recordOverTime(threshold, 5, 5, 400, 500, random);
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(45), MILLISECONDS.toNanos(75));
        recordOverTime(threshold, 60, 5, 400, 500, random);
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(480), MILLISECONDS.toNanos(500));
    }

    @Test
    void idleStorageKeepsItsLastThresholdUntilNewReadsGiveOne()
    {
        AdaptiveThreshold threshold = new AdaptiveThreshold(95, 3, MIN, 10 * MAX, ticker);
        recordOverTime(threshold, 60, 5, 15, 25, new Random(4));
        long learnt = threshold.nanos();
        assertThat(learnt).isBetween(MILLISECONDS.toNanos(20), MILLISECONDS.toNanos(30));
        // ten idle minutes (a warm cache in front): the old reads weigh far less than 5, and the threshold they gave is
        // held, not reset to the ceiling: the next reads are misses, the ones a slow endpoint delays
        ticker.increment(10, MINUTES);
        threshold.record(MILLISECONDS.toNanos(900));
        assertThat(threshold.nanos()).isEqualTo(learnt);
        for (int read = 0; read < AdaptiveThreshold.MIN_EARLY_SAMPLES - 2; read++) {
            ticker.increment(100, MILLISECONDS);
            threshold.record(MILLISECONDS.toNanos(400 + 10 * read));
        }
        assertThat(threshold.nanos()).isEqualTo(learnt);
        // once the new reads weigh 5, they set it: the storage is slower now (400-900 ms), three times their median
        ticker.increment(100, MILLISECONDS);
        threshold.record(MILLISECONDS.toNanos(430));
        assertThat(threshold.nanos()).isBetween(MILLISECONDS.toNanos(1100), MILLISECONDS.toNanos(1400));
        // a storage never read keeps the ceiling
        assertThat(new AdaptiveThreshold(95, 3, MIN, MAX, ticker).nanos()).isEqualTo(MAX);
    }

    // count rounds of every latency from minMillis to maxMillis, shuffled, then one more sample past the refresh interval
    private static void recordUniform(AdaptiveThreshold threshold, TestingTicker clock, int minMillis, int maxMillis, int rounds, Random random)
    {
        List<Long> samples = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            for (int millis = minMillis; millis <= maxMillis; millis++) {
                samples.add(MILLISECONDS.toNanos(millis));
            }
        }
        Collections.shuffle(samples, random);
        samples.forEach(threshold::record);
        clock.increment(100, MILLISECONDS);
        threshold.record(MILLISECONDS.toNanos((minMillis + maxMillis) / 2));
    }

    private void recordOverTime(AdaptiveThreshold threshold, int seconds, int perSecond, int minMillis, int maxMillis, Random random)
    {
        for (int second = 0; second < seconds; second++) {
            for (int sample = 0; sample < perSecond; sample++) {
                ticker.increment(1000 / perSecond, MILLISECONDS);
                threshold.record(MILLISECONDS.toNanos(minMillis + random.nextInt(maxMillis - minMillis + 1)));
            }
        }
    }
}
