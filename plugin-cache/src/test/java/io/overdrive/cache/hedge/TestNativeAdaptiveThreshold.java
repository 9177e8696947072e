package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.hdfs.TrinoFileSystemCache;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

class TestNativeAdaptiveThreshold
{
    @Test
    void setsTheThresholdOfALiveHdfsClientInTrinosCache()
            throws Exception
    {
        Configuration configuration = new Configuration();
        configuration.set("dfs.client.hedged.read.threadpool.size", "4");
        configuration.set("dfs.client.hedged.read.threshold.millis", "2000");
        Field instance = TrinoFileSystemCache.class.getDeclaredField("INSTANCE");
        instance.setAccessible(true);
        // a client of a NameNode that is not there: creating it contacts nothing
        FileSystem fileSystem = ((TrinoFileSystemCache) instance.get(null)).get(URI.create("hdfs://localhost:1/"), configuration);
        while (fileSystem instanceof FilterFileSystem filter) {
            fileSystem = filter.getRawFileSystem();
        }
        DistributedFileSystem hdfs = (DistributedFileSystem) fileSystem;
        assertThat(hdfs.getClient().getConf().getHedgedReadThresholdMillis()).isEqualTo(2000);

        HdfsClientThreshold threshold = HdfsClientThreshold.of(getClass().getClassLoader()).orElseThrow();
        assertThat(threshold.set(25)).isGreaterThanOrEqualTo(1);
        // what DFSInputStream reads on every hedged read
        assertThat(hdfs.getClient().getConf().getHedgedReadThresholdMillis()).isEqualTo(25);
        assertThat(threshold.set(40)).isGreaterThanOrEqualTo(1);
        assertThat(hdfs.getClient().getConf().getHedgedReadThresholdMillis()).isEqualTo(40);
    }

    @Test
    void anHdfsClientOutOfReachIsNotAdapted()
            throws Exception
    {
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            assertThat(HdfsClientThreshold.of(empty)).isEmpty();
        }
    }

    @Test
    void catalogWithoutReachableClientsKeepsTheInitialThresholdAndCountsIt()
    {
        HedgedReadStats stats = new HedgedReadStats();
        HedgedReads reads = new HedgedReads(new HedgedReadConfig().setThreadPoolSize(32), true, stats, Executors.newCachedThreadPool(), Ticker.systemTicker());
        try {
            assertThat(reads.adaptsNativeThreshold()).isTrue();
            reads.startNativeThreshold(Optional.empty());
            assertThat(stats.getNativeThresholdFailures()).isEqualTo(1);
            assertThat(stats.getNativeThresholdMillis()).isEqualTo(500);
            assertThat(stats.getThresholdMillis()).isEqualTo(500);
        }
        finally {
            reads.shutdown();
        }
    }

    @Test
    void switchedOnHdfsIsHedgedByHdfsOwnHedgingAtAnAdaptiveThreshold()
    {
        HedgedReadConfig defaults = new HedgedReadConfig().setThreadPoolSize(32);
        FileSystemConfig hdfsOnly = new FileSystemConfig().setHadoopEnabled(true).setS3Enabled(false).setGcsEnabled(false).setAzureEnabled(false).setLocalEnabled(false);
        assertThat(HedgedReads.usesNativeHdfs(defaults, hdfsOnly)).isTrue();
        assertThat(HedgedReads.needsWrapper(defaults, hdfsOnly)).isFalse();
        // HDFS's clients start at HDFS's own default threshold, until the catalog's reads show what a healthy read takes
        assertThat(HedgedReads.nativeInitialThresholdMillis(defaults)).isEqualTo(500);
        assertThat(HedgedReads.nativeInitialThresholdMillis(defaults.setAdaptiveInitial(new Duration(2, SECONDS)))).isEqualTo(2_000);
        // kept within the adaptive range
        assertThat(HedgedReads.nativeInitialThresholdMillis(new HedgedReadConfig().setAdaptiveMax(new Duration(300, MILLISECONDS)))).isEqualTo(300);
        assertThat(HedgedReads.nativeInitialThresholdMillis(new HedgedReadConfig().setAdaptiveMin(new Duration(1, SECONDS)))).isEqualTo(1_000);
        // a fixed threshold is the threshold
        assertThat(HedgedReads.nativeInitialThresholdMillis(new HedgedReadConfig().setThreshold("150ms"))).isEqualTo(150);
        // the wrapper keeps its own adaptive threshold
        assertThat(HedgedReads.usesNativeHdfs(new HedgedReadConfig().setMode("WRAPPER"), hdfsOnly)).isFalse();
    }

    @Test
    void fixedThresholdIsNotAdapted()
    {
        HedgedReadStats stats = new HedgedReadStats();
        HedgedReads reads = new HedgedReads(new HedgedReadConfig().setThreadPoolSize(32).setThreshold("500ms"), true, stats, Executors.newCachedThreadPool(), Ticker.systemTicker());
        try {
            assertThat(reads.adaptsNativeThreshold()).isFalse();
            assertThat(stats.getNativeThresholdMillis()).isNaN();
        }
        finally {
            reads.shutdown();
        }
    }

    @Test
    void setsWhatTheReadsCallForAndStopsAtTheFirstFailure()
    {
        AtomicLong now = new AtomicLong();
        Ticker ticker = ticker(now);
        HedgedReadStats stats = new HedgedReadStats();
        NativeAdaptiveThreshold threshold = adaptive(2000, stats, ticker);
        List<Long> set = started(threshold);
        // too few reads yet: the clients keep the ceiling
        threshold.update();
        assertThat(set).containsExactly(2000L);
        assertThat(stats.getNativeThresholdUpdates()).isZero();
        for (int i = 0; i < 100; i++) {
            now.addAndGet(MILLISECONDS.toNanos(1));
            threshold.record(64 * 1024, MILLISECONDS.toNanos(7));
        }
        threshold.update();
        assertThat(set).containsExactly(2000L, 21L);
        assertThat(threshold.millis()).isEqualTo(21);
        assertThat(stats.getNativeThresholdUpdates()).isEqualTo(1);

        // reads in flight together share the storage's bandwidth: recorded as that many times their size, so that
        // reads slowed by their neighbours are not taken for a slow replica
        NativeAdaptiveThreshold shared = adaptive(10_000, new HedgedReadStats(), ticker(new AtomicLong()));
        started(shared);
        // alone: 2 MB in 260 ms (8 MB/s); eight at once: 1 MB in 1 s each, the largest reads alone faster
        for (int i = 0; i < 50; i++) {
            shared.readFinished(shared.readStarted(2 << 20), MILLISECONDS.toNanos(260), true);
        }
        for (int burst = 0; burst < 10; burst++) {
            List<NativeAdaptiveThreshold.Read> started = new ArrayList<>();
            for (int read = 0; read < 8; read++) {
                started.add(shared.readStarted(1 << 20));
            }
            for (int read = 0; read < 8; read++) {
                shared.readFinished(started.get(read), MILLISECONDS.toNanos(1000), true);
            }
        }
        shared.update();
        assertThat(shared.millis()).as("threshold above the reads of a burst").isGreaterThan(1000);
        // a failed read leaves the count of reads in flight right
        NativeAdaptiveThreshold.Read before = shared.readStarted(1 << 20);
        shared.readFinished(before, 0, false);
        assertThat(shared.readStarted(1 << 20).inFlightAtStart()).isEqualTo(before.inFlightAtStart());

        // the clients refuse: counted once, never thrown, no further tries
        threshold.start(millis -> {
            throw new IllegalAccessException("refused");
        });
        threshold.update();
        threshold.update();
        assertThat(stats.getNativeThresholdFailures()).isEqualTo(1);
        assertThat(threshold.millis()).isEqualTo(21);
    }

    @Test
    void aStorageWideSlowdownRaisesTheThresholdWithinOneUpdate()
    {
        AtomicLong now = new AtomicLong();
        Ticker ticker = ticker(now);
        HedgedReadStats stats = new HedgedReadStats();
        NativeAdaptiveThreshold threshold = adaptive(10_000, stats, ticker);
        started(threshold);
        // fast storage: 1 MB in 8 ms
        for (int i = 0; i < 100; i++) {
            now.addAndGet(MILLISECONDS.toNanos(10));
            threshold.record(1 << 20, MILLISECONDS.toNanos(8));
        }
        threshold.update();
        assertThat(threshold.millis()).isEqualTo(24);
        assertThat(stats.getNativeThresholdSlowdowns()).isZero();

        // the storage slows to 8 MB/s: the reads in flight run past the threshold, none has ended yet
        List<NativeAdaptiveThreshold.Read> inFlight = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            inFlight.add(threshold.readStarted(1 << 20));
        }
        now.addAndGet(MILLISECONDS.toNanos(20));
        threshold.update();
        assertThat(threshold.millis()).as("not yet past the threshold").isEqualTo(24);
        now.addAndGet(MILLISECONDS.toNanos(80));
        threshold.update();
        assertThat(threshold.millis()).as("8 of the 10 latest reads past the threshold: not yet").isEqualTo(24);
        // two footers end in time, as small reads do on storage slowed by its bandwidth: they are left out
        threshold.record(16 * 1024, MILLISECONDS.toNanos(6));
        threshold.record(16 * 1024, MILLISECONDS.toNanos(6));
        threshold.update();
        assertThat(threshold.millis()).isEqualTo(24);
        // a ninth read runs past it: raised at once, before any of them ended, to 3 x their median
        inFlight.add(threshold.readStarted(1 << 20));
        now.addAndGet(MILLISECONDS.toNanos(30));
        threshold.update();
        assertThat(threshold.millis()).isEqualTo(3 * 130);
        long raised = threshold.millis();

        // the raised threshold holds while the slower storage's reads come in (the fast reads are forgotten), and then
        // the model of the slower storage takes over, above its reads
        for (NativeAdaptiveThreshold.Read read : inFlight) {
            now.addAndGet(MILLISECONDS.toNanos(30));
            threshold.readFinished(read, MILLISECONDS.toNanos(130), true);
        }
        threshold.update();
        assertThat(threshold.millis()).isEqualTo(raised);
        for (int i = 0; i < 40; i++) {
            now.addAndGet(MILLISECONDS.toNanos(130));
            threshold.record(1 << 20, MILLISECONDS.toNanos(130));
            threshold.update();
            assertThat(threshold.millis()).isGreaterThan(130);
        }
        assertThat(threshold.millis()).isEqualTo(390);
        assertThat(stats.getNativeThresholdSlowdowns()).isEqualTo(1);
        assertThat(stats.getNativeThresholdUpdates()).isEqualTo(2);
    }

    private static Ticker ticker(AtomicLong now)
    {
        return new Ticker()
        {
            @Override
            public long read()
            {
                return now.get();
            }
        };
    }

    // factor 3, 10 ms to maxMillis, the last 1,000 reads of 10 s, no warm-up; the clients start at maxMillis
    private static NativeAdaptiveThreshold adaptive(long maxMillis, HedgedReadStats stats, Ticker ticker)
    {
        return new NativeAdaptiveThreshold(
                new NativeThresholdPolicy(3, MILLISECONDS.toNanos(10), MILLISECONDS.toNanos(maxMillis), 1000, MILLISECONDS.toNanos(10_000), 0),
                maxMillis, stats, ticker);
    }

    // started on clients that take every threshold: what was set on them, in order
    private static List<Long> started(NativeAdaptiveThreshold threshold)
    {
        List<Long> set = new ArrayList<>();
        threshold.start(millis -> {
            set.add(millis);
            return 1;
        });
        return set;
    }
}
