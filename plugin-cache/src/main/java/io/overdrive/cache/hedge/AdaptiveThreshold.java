package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.stats.DecayTDigest;
import io.airlift.stats.DecayConfig;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * The hedge threshold of one storage, from its recent read latencies, kept within a floor and a ceiling. It is the
 * lower of a high percentile ("The Tail at Scale": hedge a read once it runs past the 95th percentile) and
 * {@code factor} times the median. The percentile alone follows any slowness that is not rare: with one request in
 * three sent to a slow endpoint the 95th percentile is a slow read, and no slow read would be hedged; the median stays a
 * healthy read as long as the slow ones are a minority, as {@link NativeThresholdPolicy} relies on too. Latencies decay
 * with a one-minute half-life so the threshold follows the storage.
 * <p>
 * A cold start does not hedge eagerly: until {@link #MIN_EARLY_SAMPLES} reads are seen an initial threshold applies
 * (HDFS's own default, 500 ms, unless set), then the median rule alone until {@link #MIN_SAMPLES} reads give a percentile. A cold cache sends a storage few reads, often
 * too few for a percentile, and those reads are the ones a slow endpoint delays. For the same reason an idle storage
 * keeps the threshold its reads last gave: once the decayed weight of its reads falls below
 * {@link #MIN_EARLY_SAMPLES} (a few idle minutes behind a warm cache), the threshold is held, not reset to the ceiling,
 * until enough new reads are seen to compute it again.
 */
final class AdaptiveThreshold
        implements HedgeThreshold
{
    static final int MIN_EARLY_SAMPLES = 5;
    static final int MIN_SAMPLES = 20;
    // the percentile is recomputed at most this often: reading the digest on every read would serialize readers
    private static final long REFRESH_NANOS = MILLISECONDS.toNanos(100);

    private final double quantile;
    private final double factor;
    private final long minNanos;
    private final long maxNanos;
    private final Ticker ticker;
    private final DecayTDigest latencies;
    private long refreshedAt;
    private volatile long thresholdNanos;

    AdaptiveThreshold(double percentile, double factor, long minNanos, long maxNanos, Ticker ticker)
    {
        this(percentile, factor, minNanos, maxNanos, maxNanos, ticker);
    }

    /** @param initialNanos the threshold until the storage's first reads are seen, within the floor and the ceiling */
    AdaptiveThreshold(double percentile, double factor, long minNanos, long maxNanos, long initialNanos, Ticker ticker)
    {
        checkArgument(factor >= 1, "factor must be at least 1");
        checkArgument(minNanos <= initialNanos && initialNanos <= maxNanos, "initialNanos must be within minNanos and maxNanos");
        this.quantile = percentile / 100;
        this.factor = factor;
        this.minNanos = minNanos;
        this.maxNanos = maxNanos;
        this.ticker = ticker;
        this.latencies = new DecayTDigest(100, DecayConfig.oneMinute(ticker));
        this.thresholdNanos = initialNanos;
        this.refreshedAt = ticker.read() - REFRESH_NANOS;
    }

    @Override
    public synchronized void record(long latencyNanos)
    {
        latencies.add(latencyNanos);
        long now = ticker.read();
        if (now - refreshedAt >= REFRESH_NANOS) {
            refreshedAt = now;
            thresholdNanos = compute();
        }
    }

    private long compute()
    {
        double count = latencies.getCount();
        if (count < MIN_EARLY_SAMPLES) {
            // the initial threshold until the storage's first reads are seen; after an idle time the threshold they gave
            return thresholdNanos;
        }
        double threshold = factor * latencies.valueAt(0.5);
        if (count >= MIN_SAMPLES) {
            threshold = Math.min(threshold, latencies.valueAt(quantile));
        }
        return Math.clamp((long) threshold, minNanos, maxNanos);
    }

    @Override
    public long nanos()
    {
        return thresholdNanos;
    }
}
