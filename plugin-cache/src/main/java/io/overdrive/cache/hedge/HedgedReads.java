package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import com.google.inject.Inject;
import io.overdrive.cache.hedge.HedgedReadConfig.Mode;
import io.overdrive.cache.session.QueryReadStats;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.catalog.CatalogName;
import jakarta.annotation.PreDestroy;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static io.overdrive.cache.Storages.storageOf;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Overdrive's hedged reads of one catalog, below the page cache: {@link #wrap} hedges the positional reads of a data
 * file when the wrapper serves its storage. Owns the hedged read pool: {@code hedged-read.threadpool-size} threads at
 * most, started on demand and stopped after a minute idle, as HDFS's.
 */
public final class HedgedReads
{
    private static final Set<String> HDFS_SCHEMES = Set.of("hdfs", "viewfs");
    // Trino's local file system: a second read of a local disk goes to the same disk, so AUTO leaves it unhedged
    private static final Set<String> LOCAL_SCHEMES = Set.of("local", "file");
    // the adaptive threshold of HDFS's own hedging follows the last 1,000 reads of the last 10 seconds, from 3 seconds
    // after the catalog's first read: time for the first large reads of a scan to finish after its footers
    private static final int NATIVE_SAMPLES = 1000;
    private static final long NATIVE_WINDOW_NANOS = SECONDS.toNanos(10);
    // where the window holds too few reads (a catalog behind a warm cache), the latest ones of this horizon
    private static final long NATIVE_HORIZON_NANOS = MINUTES.toNanos(10);
    private static final long NATIVE_WARM_UP_NANOS = SECONDS.toNanos(3);
    // four times a second: a storage-wide slowdown raises the threshold within a quarter of a second of being seen
    private static final long NATIVE_UPDATE_MILLIS = 250;

    private final HedgedReadConfig config;
    private final boolean nativeHdfs;
    private final HedgedReadStats stats;
    private final ExecutorService pool;
    private final Hedger hedger;
    private final Ticker ticker;
    private final Map<String, HedgeThreshold> thresholds = new ConcurrentHashMap<>();
    // HDFS's own hedging with hedged-read.threshold=adaptive: its threshold, and the thread that updates it four times a second
    private final Optional<NativeAdaptiveThreshold> nativeThreshold;
    private final ScheduledExecutorService nativeThresholdUpdater;

    @Inject
    public HedgedReads(CatalogName catalogName, HedgedReadConfig config, FileSystemConfig fileSystemConfig, HedgedReadStats stats)
    {
        this(config, usesNativeHdfs(config, fileSystemConfig), stats, pool(catalogName.toString(), config.getThreadPoolSize()), Ticker.systemTicker());
    }

    HedgedReads(HedgedReadConfig config, boolean nativeHdfs, HedgedReadStats stats, ExecutorService pool, Ticker ticker)
    {
        this.config = requireNonNull(config, "config is null");
        this.nativeHdfs = nativeHdfs;
        this.stats = requireNonNull(stats, "stats is null");
        this.pool = requireNonNull(pool, "pool is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.hedger = new Hedger(pool, new HedgeBudget(config.getMaxRatio(), config.getBudgetReserve(), ticker), stats, ticker);
        if (nativeHdfs && config.isAdaptive()) {
            NativeAdaptiveThreshold threshold = new NativeAdaptiveThreshold(
                    new NativeThresholdPolicy(
                            config.getAdaptiveFactor(),
                            config.getAdaptiveMin().roundTo(NANOSECONDS),
                            config.getAdaptiveMax().roundTo(NANOSECONDS),
                            NATIVE_SAMPLES,
                            NATIVE_WINDOW_NANOS,
                            NATIVE_HORIZON_NANOS,
                            NATIVE_WARM_UP_NANOS),
                    nativeInitialThresholdMillis(config),
                    stats,
                    ticker);
            stats.registerThreshold("hdfs (HDFS's own hedging)", () -> MILLISECONDS.toNanos(threshold.millis()));
            stats.setNativeThreshold(threshold::millis);
            this.nativeThreshold = Optional.of(threshold);
            this.nativeThresholdUpdater = newSingleThreadScheduledExecutor(daemonThreadsNamed("hedged-read-threshold-%s"));
        }
        else {
            this.nativeThreshold = Optional.empty();
            this.nativeThresholdUpdater = null;
        }
    }

    /** The threshold HDFS's clients are created with: the fixed one, or the adaptive one's initial threshold until it adapts. */
    static long nativeInitialThresholdMillis(HedgedReadConfig config)
    {
        return Math.max(1, config.getFixedThreshold().orElse(config.getAdaptiveInitialWithinRange()).toMillis());
    }

    /**
     * With an adaptive threshold for HDFS's own hedging, starts setting it four times a second on the catalog's HDFS clients,
     * through {@code setter}; empty: they cannot be reached, and keep the threshold they were created with.
     */
    void startNativeThreshold(Optional<NativeAdaptiveThreshold.Setter> setter)
    {
        nativeThreshold.ifPresent(threshold -> {
            if (setter.isEmpty()) {
                threshold.unavailable();
                return;
            }
            threshold.start(setter.get());
            nativeThresholdUpdater.scheduleWithFixedDelay(threshold::update, NATIVE_UPDATE_MILLIS, NATIVE_UPDATE_MILLIS, MILLISECONDS);
        });
    }

    public boolean adaptsNativeThreshold()
    {
        return nativeThreshold.isPresent();
    }


    /** HDFS's own hedging serves {@code hdfs://} locations: enabled, HDFS on, the mode not {@code wrapper}. */
    public static boolean usesNativeHdfs(HedgedReadConfig config, FileSystemConfig fileSystemConfig)
    {
        return config.isEnabled() && fileSystemConfig.isHadoopEnabled() && config.getMode() != Mode.WRAPPER;
    }

    /** Some storage of the catalog needs the wrapper: it is on and not every enabled storage is served natively. */
    public static boolean needsWrapper(HedgedReadConfig config, FileSystemConfig fileSystemConfig)
    {
        if (!config.isEnabled()) {
            return false;
        }
        return switch (config.getMode()) {
            case NATIVE -> false;
            case WRAPPER -> true;
            // the object stores Trino's native file systems serve
            case AUTO -> fileSystemConfig.isS3Enabled() || fileSystemConfig.isGcsEnabled() || fileSystemConfig.isAzureEnabled();
        };
    }

    /** Hedged reads need to see the catalog's reads of data files: for the wrapper, or for HDFS's own hedging of tail reads. */
    public static boolean needsReads(HedgedReadConfig config, FileSystemConfig fileSystemConfig)
    {
        return needsWrapper(config, fileSystemConfig) || usesNativeHdfs(config, fileSystemConfig);
    }

    /** Whether the wrapper hedges reads of this location. */
    boolean hedges(Location location)
    {
        if (!config.isEnabled()) {
            return false;
        }
        return switch (config.getMode()) {
            case NATIVE -> false;
            case WRAPPER -> true;
            // HDFS hedges its own reads; a local disk read again is the same disk
            case AUTO -> !isHdfs(location) && !isLocal(location);
        };
    }

    /**
     * The file with its positional reads hedged by the wrapper; an HDFS file under HDFS's own hedging with its tail read
     * positionally, so that HDFS hedges that too; else the file itself.
     */
    public TrinoInputFile wrap(TrinoInputFile file)
    {
        return wrap(file, true, QueryReadStats.UNTRACKED);
    }

    /**
     * As {@link #wrap(TrinoInputFile)}, for a query whose session may switch hedging off ({@code hedging} false): then
     * the wrapper does not hedge, and an HDFS file under HDFS's own hedging is read with stateful reads, which HDFS does
     * not hedge. The wrapper's hedges of the file count in {@code readStats} too (HDFS's own are counted per client only).
     */
    public TrinoInputFile wrap(TrinoInputFile file, boolean hedging, QueryReadStats readStats)
    {
        if (!hedging) {
            if (!config.isEnabled()) {
                return file;
            }
            stats.recordNotHedgedBySession();
            return nativeHdfs && isHdfs(file.location()) ? new StatefulReadInputFile(file) : file;
        }
        if (nativeHdfs && isHdfs(file.location())) {
            return new PositionalReadInputFile(file, stats, nativeThreshold, ticker);
        }
        if (!hedges(file.location())) {
            return file;
        }
        return new HedgingInputFile(file, hedger, thresholdOf(file.location()), readStats);
    }

    private static boolean isHdfs(Location location)
    {
        // a location without a scheme is served by HDFS, Trino's fallback file system
        return location.scheme().map(HDFS_SCHEMES::contains).orElse(true);
    }

    private static boolean isLocal(Location location)
    {
        return location.scheme().map(LOCAL_SCHEMES::contains).orElse(false);
    }

    private HedgeThreshold thresholdOf(Location location)
    {
        return thresholds.computeIfAbsent(storageOf(location), key -> {
            HedgeThreshold threshold = config.getFixedThreshold()
                    .map(duration -> HedgeThreshold.fixed(duration.roundTo(NANOSECONDS)))
                    .orElseGet(() -> new AdaptiveThreshold(
                            config.getAdaptivePercentile(),
                            config.getAdaptiveFactor(),
                            config.getAdaptiveMin().roundTo(NANOSECONDS),
                            config.getAdaptiveMax().roundTo(NANOSECONDS),
                            config.getAdaptiveInitialWithinRange().roundTo(NANOSECONDS),
                            ticker));
            stats.registerThreshold(key, threshold::nanos);
            return threshold;
        });
    }


    @PreDestroy
    public void shutdown()
    {
        pool.shutdownNow();
        if (nativeThresholdUpdater != null) {
            nativeThresholdUpdater.shutdownNow();
        }
    }

    /**
     * The hedged read pool: at most {@code size} reads at a time, on virtual threads. An attempt no longer wanted (a
     * hedge's loser) is stopped by an interrupt, and only a virtual thread's socket read gives way to one: the socket is
     * closed and the read fails at once, so that an HTTP client's GET waiting for its first byte (S3, GCS, Azure) is
     * dropped instead of read to its end. A platform thread stays blocked in the read until the storage answers. HDFS's
     * channels stop on an interrupt on either kind of thread.
     */
    static ExecutorService pool(String catalogName, int size)
    {
        // no queue: a read that finds every thread busy runs in the reading thread, as in HDFS
        return new ThreadPoolExecutor(0, Math.max(1, size), 60, SECONDS, new SynchronousQueue<>(), Thread.ofVirtual().name("hedged-read-" + catalogName + "-", 0).factory());
    }
}
