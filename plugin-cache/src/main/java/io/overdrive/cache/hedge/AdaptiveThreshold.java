package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.stats.DecayTDigest;
import io.airlift.stats.DecayConfig;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * The hedge threshold of one storage: a high percentile of its recent read latencies ("The Tail at Scale": hedge a read
 * once it runs past the 95th percentile), kept within a floor and a ceiling. Latencies decay with a one-minute half-life
 * so the threshold follows the storage. Until {@link #MIN_SAMPLES} reads are seen the ceiling applies: a cold start
 * does not hedge eagerly.
 */
final class AdaptiveThreshold
        implements HedgeThreshold
{
    static final int MIN_SAMPLES = 20;
    // the percentile is recomputed at most this often: reading the digest on every read would serialize readers
    private static final long REFRESH_NANOS = MILLISECONDS.toNanos(100);

    private final double quantile;
    private final long minNanos;
    private final long maxNanos;
    private final Ticker ticker;
    private final DecayTDigest latencies;
    private long refreshedAt;
    private volatile long thresholdNanos;

    AdaptiveThreshold(double percentile, long minNanos, long maxNanos, Ticker ticker)
    {
        this.quantile = percentile / 100;
        this.minNanos = minNanos;
        this.maxNanos = maxNanos;
        this.ticker = ticker;
        this.latencies = new DecayTDigest(100, DecayConfig.oneMinute(ticker));
        this.thresholdNanos = maxNanos;
        this.refreshedAt = ticker.read() - REFRESH_NANOS;
    }

    @Override
    public synchronized void record(long latencyNanos)
    {
        latencies.add(latencyNanos);
        long now = ticker.read();
        if (now - refreshedAt >= REFRESH_NANOS) {
            refreshedAt = now;
            thresholdNanos = latencies.getCount() < MIN_SAMPLES
                    ? maxNanos
                    : Math.clamp((long) latencies.valueAt(quantile), minNanos, maxNanos);
        }
    }

    @Override
    public long nanos()
    {
        return thresholdNanos;
    }
}
