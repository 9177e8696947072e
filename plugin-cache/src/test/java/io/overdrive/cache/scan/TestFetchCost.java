package io.overdrive.cache.scan;

import io.overdrive.cache.scan.FetchCost.Estimate;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The cost model of a storage's remote reads: learned from fetches whose time follows a known latency and bandwidth,
 * it finds them; a heavy tail and waits behind other fetches make bytes look dearer, never requests; it says nothing
 * before it has small and large fetches; it follows a storage that changes; it weighs extra bytes against half a
 * request.
 */
class TestFetchCost
{
    private static final int KB = 1024;
    private static final int MB = 1024 * KB;
    private static final int PAGE_SIZE = MB;

    @Test
    void findsTheLatencyAndBandwidthOfReadsOfMixedSizes()
    {
        Random random = new Random(11);
        for (int trial = 0; trial < 50; trial++) {
            double latencyNanos = 1e6 * (1 + random.nextInt(50));
            double bytesPerSecond = 1e6 * (4 + random.nextInt(200));
            FetchCost cost = new FetchCost(PAGE_SIZE);
            for (int fetch = 0; fetch < 200; fetch++) {
                long bytes = mixedSize(random);
                // 0-1 ms of scheduling noise on each read
                cost.record(bytes, (long) (latencyNanos + bytes * 1e9 / bytesPerSecond + 1e6 * random.nextDouble()));
            }
            Estimate estimate = cost.estimate().orElseThrow();
            assertThat(estimate.latencyNanos()).as("trial %s latency", trial).isCloseTo(latencyNanos, within(0.1 * latencyNanos + 0.5e6));
            assertThat(estimate.bytesPerSecond()).as("trial %s bandwidth", trial).isCloseTo(bytesPerSecond, within(0.25 * bytesPerSecond));
            assertThat(estimate.fetches()).isEqualTo(200);
        }
    }

    @Test
    void aHeavyTailOfFirstBytesIsNotCountedAsLatency()
    {
        // 30 ms to the first byte, 1 read in 10 waiting 500 ms more; 100 MB/s
        Random random = new Random(3);
        FetchCost cost = new FetchCost(PAGE_SIZE);
        for (int fetch = 0; fetch < 2000; fetch++) {
            long bytes = mixedSize(random);
            double firstByte = 30e6 + (random.nextInt(10) == 0 ? 500e6 : 0);
            cost.record(bytes, (long) (firstByte + bytes * 10.0));
        }
        Estimate estimate = cost.estimate().orElseThrow();
        // what most requests cost: the tail makes no request cheaper to spare
        assertThat(estimate.latencyNanos()).isCloseTo(30e6, within(1e6));
        assertThat(estimate.bytesPerSecond()).isCloseTo(100e6, within(10e6));
        // 1 MB costs 10 ms, a third of a request; 2 MB more than half
        assertThat(estimate.worthFetching(MB)).isTrue();
        assertThat(estimate.worthFetching(2 * MB)).isFalse();
    }

    @Test
    void waitsBehindOtherFetchesMakeBytesDearerNotRequests()
    {
        // 15 ms per request, 8 MB/s shared by concurrent fetches: most fetches wait 0-300 ms behind others' bytes
        Random random = new Random(5);
        FetchCost cost = new FetchCost(PAGE_SIZE);
        for (int fetch = 0; fetch < 500; fetch++) {
            long bytes = mixedSize(random);
            double wait = random.nextInt(4) == 0 ? 0 : 300e6 * random.nextDouble();
            cost.record(bytes, (long) (15e6 + wait + bytes * 1e9 / 8e6));
        }
        Estimate estimate = cost.estimate().orElseThrow();
        // the small fetches that waited behind nobody tell the latency (less their transfer at the dearer rate below)
        assertThat(estimate.latencyNanos()).isBetween(10e6, 60e6);
        // the large ones' waits count as the cost of their bytes: at most the bandwidth there is
        assertThat(estimate.bytesPerSecond()).isLessThanOrEqualTo(8.5e6);
        // so fetching the rest of a page is not worth it; only a few KB more are
        assertThat(estimate.worthFetching(512 * KB)).isFalse();
        assertThat(estimate.breakEvenBytes()).isLessThan(250 * KB);
    }

    @Test
    void knowsNothingBeforeEnoughSmallAndLargeFetches()
    {
        FetchCost cost = new FetchCost(PAGE_SIZE);
        // small: at most an eighth of a page; large: at least half a page; between: neither
        for (int fetch = 0; fetch < 100; fetch++) {
            cost.record(300 * KB, 20_000_000);
        }
        for (int fetch = 0; fetch < FetchCost.MIN_LARGE; fetch++) {
            cost.record(MB, 30_000_000);
        }
        for (int fetch = 1; fetch < FetchCost.MIN_SMALL; fetch++) {
            cost.record(100 * KB, 20_000_000);
            assertThat(cost.estimate()).isEmpty();
            assertThat(cost.worthFetching(1)).isFalse();
        }
        cost.record(128 * KB, 20_000_000);
        assertThat(cost.estimate()).isPresent();
        assertThat(cost.worthFetching(1)).isTrue();

        // every fetch the same size: latency and transfer cannot be told apart
        FetchCost sameSize = new FetchCost(PAGE_SIZE);
        for (int fetch = 0; fetch < 100; fetch++) {
            sameSize.record(MB, 20_000_000 + fetch);
        }
        assertThat(sameSize.estimate()).isEmpty();

        // nothing recorded for reads of nothing, or of negative times
        FetchCost ignored = new FetchCost(PAGE_SIZE);
        for (int fetch = 0; fetch < 100; fetch++) {
            ignored.record(0, 1_000_000);
            ignored.record(fetch % 2 == 0 ? 16 * KB : MB, -1);
        }
        assertThat(ignored.estimate()).isEmpty();

        // small pages: a fetch of one checksum chunk is small, one of two chunks large
        FetchCost smallPages = new FetchCost(64 * KB);
        for (int fetch = 0; fetch < 3; fetch++) {
            smallPages.record(16 * KB, 10_000_000);
            smallPages.record(32 * KB, 10_100_000);
        }
        assertThat(smallPages.estimate()).isPresent();
    }

    @Test
    void followsAStorageThatChanges()
    {
        Random random = new Random(7);
        FetchCost cost = new FetchCost(PAGE_SIZE);
        // fast: 1 ms and 500 MB/s, so 1 MB costs 2 ms, four times half a request
        feed(cost, random, 1e6, 500e6, 300);
        assertThat(cost.worthFetching(MB)).isFalse();
        assertThat(cost.worthFetching(64 * KB)).isTrue();
        // then 40 ms to the first byte at 100 MB/s: 1 MB costs 10 ms, half of 40 is 20; within one window of fetches
        feed(cost, random, 40e6, 100e6, FetchCost.WINDOW);
        Estimate estimate = cost.estimate().orElseThrow();
        assertThat(estimate.latencyNanos()).isCloseTo(40e6, within(2e6));
        assertThat(cost.worthFetching(MB)).isTrue();
        assertThat(cost.worthFetching(4 * MB)).isFalse();
    }

    @Test
    void weighsExtraBytesAgainstHalfARequest()
    {
        // 15 ms per request, 8 MB/s: half a request is 60,000 bytes of transfer
        Estimate estimate = new Estimate(15e6, 1e9 / 8e6, 100);
        assertThat(estimate.breakEvenBytes()).isCloseTo(60_000, within(1.0));
        assertThat(estimate.worthFetching(60_000)).isTrue();
        assertThat(estimate.worthFetching(60_001)).isFalse();
        // transfer that costs nothing measurable: anything is worth fetching
        Estimate free = new Estimate(15e6, 0, 100);
        assertThat(free.worthFetching(Long.MAX_VALUE / 2)).isTrue();
        assertThat(free.bytesPerSecond()).isInfinite();
        // requests that cost nothing beyond their transfer: nothing is
        assertThat(new Estimate(0, 1, 100).worthFetching(1)).isFalse();
        assertThat(estimate.toString()).isEqualTo("15.0 ms + 8.0 MB/s over 100 fetches");
    }

    private static void feed(FetchCost cost, Random random, double latencyNanos, double bytesPerSecond, int fetches)
    {
        for (int fetch = 0; fetch < fetches; fetch++) {
            long bytes = mixedSize(random);
            cost.record(bytes, (long) (latencyNanos + bytes * 1e9 / bytesPerSecond + 0.2e6 * random.nextDouble()));
        }
    }

    // what a columnar reader fetches: footers and small columns (16-64 KB), column chunks, runs of whole pages (1-4 MB)
    private static long mixedSize(Random random)
    {
        return switch (random.nextInt(3)) {
            case 0 -> 16 * KB + random.nextInt(48 * KB);
            case 1 -> 64 * KB + random.nextInt(MB);
            default -> MB + random.nextInt(3 * MB);
        };
    }
}
