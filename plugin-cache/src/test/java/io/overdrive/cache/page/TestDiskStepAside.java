package io.overdrive.cache.page;

import io.airlift.testing.TestingTicker;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The comparison of a cache directory's reads with storage's, on known reads and a ticker the test moves.
 */
class TestDiskStepAside
{
    private static final int HIT_BYTES = 65536;
    private static final long MILLIS = 1_000_000;

    private final TestingTicker ticker = new TestingTicker();
    private final PageCacheStats stats = new PageCacheStats();
    private final DiskStepAside stepAside = new DiskStepAside(true, ticker, stats);
    private final DiskStepAside.Disk disk = stepAside.disk(Path.of("/cache/a"));

    @Test
    void neverStepsAsideKnowingNothingOfStorage()
    {
        reads(disk, 100, 20 * MILLIS);
        assertThat(disk.steppedAside()).isFalse();
        assertThat(disk.readsDisk(() -> true)).isTrue();
        assertThat(disk.writesDisk()).isTrue();
        assertThat(stepAside.worst()).isEmpty();
        assertThat(stats.getReadsSteppedAside()).isZero();
        assertThat(stats.getWritesSteppedAside()).isZero();
    }

    @Test
    void slowDiskStepsAsideAndComesBackWhenFast()
    {
        stats.setStepAside(stepAside);
        storage(10, HIT_BYTES, MILLIS);
        reads(disk, DiskStepAside.MIN_READS - 1, 20 * MILLIS);
        assertThat(disk.steppedAside()).as("too few reads to tell").isFalse();
        reads(disk, 1, 20 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
        assertThat(stats.getDirectoriesSteppedAside()).isEqualTo(1);
        assertThat(stats.getDiskReadMillis()).isCloseTo(20, within(0.01));
        assertThat(stats.getStorageReadMillis()).isCloseTo(1, within(0.01));

        // hits become misses, writes are skipped, both counted
        assertThat(disk.readsDisk(() -> true)).isFalse();
        assertThat(disk.readsDisk(() -> true)).isFalse();
        assertThat(disk.writesDisk()).isFalse();
        assertThat(stats.getReadsSteppedAside()).isEqualTo(2);
        assertThat(stats.getWritesSteppedAside()).isEqualTo(1);

        // a read of a page the directory does not hold is a miss anyway: not counted, and no probe
        ticker.increment(DiskStepAside.PROBE_INTERVAL_NANOS, NANOSECONDS);
        assertThat(disk.readsDisk(() -> false)).isFalse();
        assertThat(stats.getReadsSteppedAside()).isEqualTo(2);
        assertThat(disk.readsDisk(() -> true)).as("the probe").isTrue();
        assertThat(stats.getReadsSteppedAside()).isEqualTo(2);

        // one read per probe interval still reads the disk
        ticker.increment(DiskStepAside.PROBE_INTERVAL_NANOS - 1, NANOSECONDS);
        assertThat(disk.readsDisk(() -> true)).isFalse();
        ticker.increment(1, NANOSECONDS);
        assertThat(disk.readsDisk(() -> true)).isTrue();
        assertThat(disk.readsDisk(() -> true)).isFalse();

        // the disk is fast again: 8 slow and 8 fast reads are no majority yet, the ninth fast one is
        reads(disk, 8, MILLIS / 10);
        assertThat(disk.steppedAside()).isTrue();
        reads(disk, 1, MILLIS / 10);
        assertThat(disk.steppedAside()).isFalse();
        assertThat(disk.readsDisk(() -> true)).isTrue();
        assertThat(disk.writesDisk()).isTrue();
        assertThat(stats.getDirectoriesSteppedAside()).isZero();
        assertThat(stats.getReadsSteppedAside()).isEqualTo(4);
    }

    @Test
    void hysteresis()
    {
        storage(10, HIT_BYTES, 20 * MILLIS);
        reads(disk, 50, 26 * MILLIS);
        assertThat(disk.steppedAside()).as("1.3 times storage's time").isFalse();
        reads(disk, 50, 32 * MILLIS);
        assertThat(disk.steppedAside()).as("1.6 times").isTrue();
        reads(disk, 50, 24 * MILLIS);
        assertThat(disk.steppedAside()).as("1.2 times: still slower than storage").isTrue();
        reads(disk, 50, 19 * MILLIS);
        assertThat(disk.steppedAside()).as("faster than storage").isFalse();
    }

    @Test
    void slowerByLessThanFiveMillisecondsIsNoReason()
    {
        assertThat(DiskStepAside.MIN_EXCESS_NANOS).isEqualTo(5 * MILLIS);
        // storage on a fast local file system: the cache disk takes 35 times as long, but less than 5 ms more
        storage(10, HIT_BYTES, MILLIS / 10);
        reads(disk, 50, 35 * MILLIS / 10);
        assertThat(disk.steppedAside()).isFalse();
        reads(disk, 50, 6 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
        // 3 ms, 2.9 more: still aside; 2.5 ms, less than 2.5 ms more: back
        reads(disk, 50, 3 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
        reads(disk, 50, 25 * MILLIS / 10);
        assertThat(disk.steppedAside()).isFalse();
    }

    @Test
    void comparesReadsOfTheSameBytes()
    {
        // storage: 1 ms a request, 2 ns a byte (500 MB/s)
        for (long bytes = 16384; bytes <= (4 << 20); bytes *= 2) {
            stepAside.recordStorageRead(bytes, MILLIS + 2 * bytes);
        }
        // 7 ms for 4 MB beats storage's 9.4 ms; 7 ms for 16 kB is seven times storage's 1 ms
        DiskStepAside.Disk largeReads = stepAside.disk(Path.of("/cache/large"));
        DiskStepAside.Disk smallReads = stepAside.disk(Path.of("/cache/small"));
        for (int i = 0; i < 50; i++) {
            largeReads.recordRead(4 << 20, 7 * MILLIS);
            smallReads.recordRead(16384, 7 * MILLIS);
        }
        assertThat(largeReads.steppedAside()).isFalse();
        assertThat(smallReads.steppedAside()).isTrue();
        assertThat(stepAside.directoriesSteppedAside()).isEqualTo(1);
        DiskStepAside.Comparison worst = stepAside.worst().orElseThrow();
        assertThat(worst.diskNanos()).isEqualTo(7.0 * MILLIS);
        assertThat(worst.storageNanos()).isCloseTo(MILLIS + 2 * 16384.0, within(1_000.0));
    }

    @Test
    void aPauseNowAndThenDecidesNothing()
    {
        storage(10, HIT_BYTES, MILLIS);
        for (int i = 0; i < 200; i++) {
            // a quarter of the reads stall half a second (a garbage collection, say)
            disk.recordRead(HIT_BYTES, i % 4 == 0 ? 500 * MILLIS : MILLIS / 10);
            assertThat(disk.steppedAside()).isFalse();
        }
    }

    @Test
    void disabledMeasuresButNeverStepsAside()
    {
        DiskStepAside disabled = new DiskStepAside(false, ticker, stats);
        DiskStepAside.Disk slow = disabled.disk(Path.of("/cache/slow"));
        for (int i = 0; i < 10; i++) {
            disabled.recordStorageRead(HIT_BYTES, MILLIS);
        }
        reads(slow, 100, 50 * MILLIS);
        assertThat(slow.steppedAside()).isFalse();
        assertThat(slow.readsDisk(() -> true)).isTrue();
        assertThat(slow.writesDisk()).isTrue();
        assertThat(disabled.worst().orElseThrow().ratio()).isCloseTo(50, within(0.01));
    }

    @Test
    void directoryNotReadForLongComesBackAndIsMeasuredAnew()
    {
        storage(10, HIT_BYTES, MILLIS);
        reads(disk, 20, 20 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
        ticker.increment(DiskStepAside.STALE_NANOS - 1, NANOSECONDS);
        assertThat(disk.steppedAside()).isTrue();
        ticker.increment(1, NANOSECONDS);
        assertThat(disk.steppedAside()).as("no read for %s s: nothing is known of the disk now", DiskStepAside.STALE_NANOS / 1_000_000_000L).isFalse();
        assertThat(disk.writesDisk()).isTrue();
        // its earlier reads forgotten: it takes as many slow reads as at first
        storage(10, HIT_BYTES, MILLIS);
        reads(disk, DiskStepAside.MIN_READS - 1, 20 * MILLIS);
        assertThat(disk.steppedAside()).isFalse();
        reads(disk, 1, 20 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
    }

    @Test
    void oneProbePerIntervalWhateverTheThreads()
            throws Exception
    {
        storage(10, HIT_BYTES, MILLIS);
        reads(disk, 20, 20 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
        int threads = 8;
        int callsPerThread = 2_000;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                ticker.increment(DiskStepAside.PROBE_INTERVAL_NANOS, NANOSECONDS);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Integer>> probes = new ArrayList<>();
                for (int thread = 0; thread < threads; thread++) {
                    probes.add(executor.submit(() -> {
                        start.await();
                        int probed = 0;
                        for (int call = 0; call < callsPerThread; call++) {
                            if (disk.readsDisk(() -> true)) {
                                probed++;
                            }
                        }
                        return probed;
                    }));
                }
                start.countDown();
                int probed = 0;
                for (Future<Integer> future : probes) {
                    probed += future.get(10, SECONDS);
                }
                assertThat(probed).as("round %s", round).isEqualTo(1);
            }
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(stats.getReadsSteppedAside()).isEqualTo(20L * (threads * callsPerThread - 1));
    }

    @Test
    void manyThreadsReadingRecordingAndAsking()
            throws Exception
    {
        storage(10, HIT_BYTES, MILLIS);
        int threads = 8;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                futures.add(executor.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 20_000; i++) {
                        switch (random.nextInt(6)) {
                            case 0 -> stepAside.recordStorageRead(random.nextLong(1, 1 << 20), random.nextLong(MILLIS / 10, 3 * MILLIS));
                            case 1 -> disk.recordRead(random.nextLong(1, 1 << 20), random.nextBoolean() ? MILLIS / 10 : 30 * MILLIS);
                            case 2 -> disk.readsDisk(random::nextBoolean);
                            case 3 -> disk.writesDisk();
                            case 4 -> stepAside.worst().ifPresent(comparison -> assertThat(comparison.diskNanos()).isBetween(MILLIS / 10.0, 30.0 * MILLIS));
                            default -> ticker.increment(random.nextLong(1, 10), MILLISECONDS);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(1, MINUTES);
            }
        }
        finally {
            executor.shutdownNow();
        }
        // whatever happened meanwhile, a window of slow reads steps aside and one of fast reads comes back
        reads(disk, DiskStepAside.WINDOW, 100 * MILLIS);
        assertThat(disk.steppedAside()).isTrue();
        assertThat(stepAside.worst().orElseThrow().diskNanos()).isEqualTo(100.0 * MILLIS);
        reads(disk, DiskStepAside.WINDOW, 0);
        assertThat(disk.steppedAside()).isFalse();
        assertThat(stepAside.worst().orElseThrow().diskNanos()).isZero();
    }

    private void storage(int reads, long bytes, long nanos)
    {
        for (int i = 0; i < reads; i++) {
            stepAside.recordStorageRead(bytes, nanos);
        }
    }

    private void reads(DiskStepAside.Disk target, int reads, long nanos)
    {
        for (int i = 0; i < reads; i++) {
            ticker.increment(1, MILLISECONDS);
            target.recordRead(HIT_BYTES, nanos);
        }
    }
}
