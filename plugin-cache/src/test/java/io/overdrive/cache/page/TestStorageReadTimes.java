package io.overdrive.cache.page;

import io.airlift.testing.TestingTicker;
import org.junit.jupiter.api.Test;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TestStorageReadTimes
{
    private final TestingTicker ticker = new TestingTicker();
    private final StorageReadTimes storage = new StorageReadTimes(ticker);

    @Test
    void knowsNothingUntilEnoughReads()
    {
        for (int i = 1; i < StorageReadTimes.MIN_READS; i++) {
            storage.record(65536, 1_000_000);
            assertThat(storage.estimateNanos(65536)).isEmpty();
        }
        storage.record(65536, 1_000_000);
        assertThat(storage.estimateNanos(65536)).hasValueCloseTo(1_000_000.0, within(1.0));
    }

    @Test
    void ignoresEmptyAndNegativeReads()
    {
        for (int i = 0; i < 10; i++) {
            storage.record(0, 1_000_000);
            storage.record(100, -1);
        }
        assertThat(storage.reads()).isZero();
        assertThat(storage.estimateNanos(100)).isEmpty();
    }

    @Test
    void latencyPlusTimePerByte()
    {
        // 2 ms a request, 10 ns a byte (100 MB/s)
        for (long bytes = 16384; bytes <= (1 << 20); bytes *= 2) {
            storage.record(bytes, 2_000_000 + 10 * bytes);
        }
        assertThat(storage.estimateNanos(65536)).hasValueCloseTo(2_000_000.0 + 655_360, within(1_000.0));
        assertThat(storage.estimateNanos(4 << 20)).hasValueCloseTo(2_000_000.0 + 10.0 * (4 << 20), within(10_000.0));
        assertThat(storage.estimateNanos(1)).hasValueCloseTo(2_000_010.0, within(1_000.0));
    }

    @Test
    void readsOfOneSizeTakeSmallerReadsToCostAsMuch()
    {
        for (int i = 0; i < 10; i++) {
            storage.record(1 << 20, 5_000_000);
        }
        // no line to draw: a smaller read is taken to cost as much (storage errs towards slow), a larger one more
        assertThat(storage.estimateNanos(16384)).hasValueCloseTo(5_000_000.0, within(1.0));
        assertThat(storage.estimateNanos(2 << 20)).hasValueCloseTo(10_000_000.0, within(1.0));
    }

    @Test
    void negativeLatencyCountsAsNone()
    {
        // larger reads proportionally faster than a line through zero would say: the fit's latency is below zero
        storage.record(1000, 0);
        storage.record(2000, 0);
        storage.record(1_000_000, 10_000_000);
        storage.record(2_000_000, 20_000_000);
        storage.record(3_000_000, 30_000_000);
        assertThat(storage.estimateNanos(1000).orElseThrow()).isGreaterThanOrEqualTo(0);
        assertThat(storage.estimateNanos(2_000_000).orElseThrow()).isGreaterThanOrEqualTo(19_000_000);
    }

    @Test
    void recentReadsWeighMore()
    {
        for (int i = 0; i < 10; i++) {
            storage.record(65536, 50_000_000);
        }
        for (int i = 0; i < 5; i++) {
            storage.record(65536, 1_000_000);
        }
        assertThat(storage.estimateNanos(65536).orElseThrow()).as("as old as the new ones: the average").isGreaterThan(30_000_000);

        StorageReadTimes decaying = new StorageReadTimes(ticker);
        for (int i = 0; i < 10; i++) {
            decaying.record(65536, 50_000_000);
        }
        // twelve half-lives later
        ticker.increment(12 * StorageReadTimes.HALF_LIFE_NANOS / 1_000_000_000L, SECONDS);
        for (int i = 0; i < 5; i++) {
            decaying.record(65536, 1_000_000);
        }
        assertThat(decaying.estimateNanos(65536).orElseThrow()).isBetween(1_000_000.0, 1_100_000.0);
    }
}
