package io.overdrive.cache.hedge;

import com.google.common.collect.Comparators;
import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.units.Duration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Catalog properties of hedged reads ({@code hedged-read.*}). The first two follow HDFS's
 * {@code dfs.client.hedged.read.threadpool.size} and {@code dfs.client.hedged.read.threshold.millis}, but hedging is
 * on by default ({@code AUTO}): where HDFS serves, by HDFS's own hedging, which sends the hedge to another replica; on
 * object stores (S3, GCS, Azure), by Overdrive's wrapper, whose second request goes to whichever server the store
 * picks. The threshold adapts to the storage unless it is set. Local files are hedged only when asked ({@code WRAPPER}).
 */
public class HedgedReadConfig
{
    public static final String ADAPTIVE = "adaptive";

    public enum Mode
    {
        /** HDFS's own hedging for {@code hdfs://} locations, the wrapper for object stores; local files not hedged */
        AUTO,
        /** HDFS's own hedging only: it picks a different replica; other storage is not hedged */
        NATIVE,
        /** Overdrive's wrapper of Trino's reads, for every storage */
        WRAPPER;

        /** Case-insensitive, as Airlift's own enum coercion; empty for an unknown name. */
        static Optional<Mode> fromName(String name)
        {
            requireNonNull(name, "name is null");
            return Arrays.stream(values())
                    .filter(mode -> mode.name().equalsIgnoreCase(name.strip()))
                    .findFirst();
        }
    }

    private int threadPoolSize = 32;
    private String threshold = ADAPTIVE;
    private double adaptivePercentile = 95;
    private double adaptiveFactor = 3;
    private Duration adaptiveMin = new Duration(10, MILLISECONDS);
    private Duration adaptiveMax = new Duration(10, SECONDS);
    // HDFS's own default threshold (dfs.client.hedged.read.threshold.millis): a prior until the storage's reads are seen
    private Duration adaptiveInitial = new Duration(500, MILLISECONDS);
    private double maxRatio = 0.05;
    private int budgetReserve = 10;
    private Mode mode = Mode.AUTO;
    // whether hedged-read.mode was set: NATIVE without HDFS is then a mistake, where the default only has nothing to do
    private boolean modeSet;

    @Min(0)
    public int getThreadPoolSize()
    {
        return threadPoolSize;
    }

    @Config("hedged-read.threadpool-size")
    @ConfigDescription("Threads for hedged reads, started on demand; 0 turns hedged reads off")
    public HedgedReadConfig setThreadPoolSize(int threadPoolSize)
    {
        this.threadPoolSize = threadPoolSize;
        return this;
    }

    public boolean isEnabled()
    {
        return threadPoolSize > 0;
    }

    @NotNull
    public String getThreshold()
    {
        return threshold;
    }

    @Config("hedged-read.threshold")
    @ConfigDescription("How long a read runs before a second identical read starts: a duration (e.g. 500ms) or 'adaptive'")
    public HedgedReadConfig setThreshold(String threshold)
    {
        this.threshold = requireNonNull(threshold, "threshold is null").strip().toLowerCase(Locale.ROOT);
        return this;
    }

    public boolean isAdaptive()
    {
        return threshold.equals(ADAPTIVE);
    }

    /** The fixed threshold; empty when it is {@code adaptive}. */
    public Optional<Duration> getFixedThreshold()
    {
        return isAdaptive() ? Optional.empty() : Optional.of(Duration.valueOf(threshold));
    }

    @AssertTrue(message = "hedged-read.threshold must be a duration above 0 (e.g. 500ms) or 'adaptive'")
    public boolean isThresholdValid()
    {
        if (isAdaptive()) {
            return true;
        }
        try {
            return Duration.valueOf(threshold).roundTo(NANOSECONDS) > 0;
        }
        catch (IllegalArgumentException e) {
            return false;
        }
    }

    @DecimalMin(value = "0", inclusive = false, message = "hedged-read.adaptive-percentile must be above 0 and below 100")
    @DecimalMax(value = "100", inclusive = false, message = "hedged-read.adaptive-percentile must be above 0 and below 100")
    public double getAdaptivePercentile()
    {
        return adaptivePercentile;
    }

    @Config("hedged-read.adaptive-percentile")
    @ConfigDescription("With an adaptive threshold, Overdrive's wrapper hedges a read once it runs longer than this percentile of recent read latencies of its storage")
    public HedgedReadConfig setAdaptivePercentile(double adaptivePercentile)
    {
        this.adaptivePercentile = adaptivePercentile;
        return this;
    }

    @DecimalMin(value = "1", message = "hedged-read.adaptive-factor must be at least 1")
    public double getAdaptiveFactor()
    {
        return adaptiveFactor;
    }

    @Config("hedged-read.adaptive-factor")
    @ConfigDescription("With an adaptive threshold, a read is hedged once it runs this many times longer than a healthy read: for HDFS's own hedging, a healthy read of the largest usual size; for the wrapper, the median of the storage's recent reads (or their percentile, when lower)")
    public HedgedReadConfig setAdaptiveFactor(double adaptiveFactor)
    {
        this.adaptiveFactor = adaptiveFactor;
        return this;
    }

    @NotNull
    @MinDuration(value = "1ms", message = "hedged-read.adaptive-min must be at least 1ms")
    public Duration getAdaptiveMin()
    {
        return adaptiveMin;
    }

    @Config("hedged-read.adaptive-min")
    @ConfigDescription("The lowest adaptive threshold")
    public HedgedReadConfig setAdaptiveMin(Duration adaptiveMin)
    {
        this.adaptiveMin = adaptiveMin;
        return this;
    }

    @NotNull
    public Duration getAdaptiveMax()
    {
        return adaptiveMax;
    }

    @Config("hedged-read.adaptive-max")
    @ConfigDescription("The highest adaptive threshold")
    public HedgedReadConfig setAdaptiveMax(Duration adaptiveMax)
    {
        this.adaptiveMax = adaptiveMax;
        return this;
    }

    @NotNull
    @MinDuration(value = "1ms", message = "hedged-read.adaptive-initial must be at least 1ms")
    public Duration getAdaptiveInitial()
    {
        return adaptiveInitial;
    }

    @Config("hedged-read.adaptive-initial")
    @ConfigDescription("The adaptive threshold until enough of a storage's reads are seen, kept within hedged-read.adaptive-min and hedged-read.adaptive-max")
    public HedgedReadConfig setAdaptiveInitial(Duration adaptiveInitial)
    {
        this.adaptiveInitial = adaptiveInitial;
        return this;
    }

    /**
     * The adaptive threshold in force until enough reads are seen: {@code hedged-read.adaptive-initial} kept within
     * {@code hedged-read.adaptive-min} and {@code hedged-read.adaptive-max}, so that narrowing the range alone never
     * fails a catalog that worked.
     */
    public Duration getAdaptiveInitialWithinRange()
    {
        return Comparators.min(Comparators.max(adaptiveInitial, adaptiveMin), adaptiveMax);
    }

    @AssertTrue(message = "hedged-read.adaptive-min must not be above hedged-read.adaptive-max")
    public boolean isAdaptiveRangeValid()
    {
        return adaptiveMin == null || adaptiveMax == null || adaptiveMin.compareTo(adaptiveMax) <= 0;
    }

    @DecimalMin(value = "0", inclusive = false, message = "hedged-read.max-ratio must be above 0 and at most 1")
    @DecimalMax(value = "1", message = "hedged-read.max-ratio must be above 0 and at most 1")
    public double getMaxRatio()
    {
        return maxRatio;
    }

    @Config("hedged-read.max-ratio")
    @ConfigDescription("The most hedges per read over the last minute (the hedge budget): past it no new hedge starts")
    public HedgedReadConfig setMaxRatio(double maxRatio)
    {
        this.maxRatio = maxRatio;
        return this;
    }

    @Min(value = 0, message = "hedged-read.budget-reserve must be at least 0")
    public int getBudgetReserve()
    {
        return budgetReserve;
    }

    @Config("hedged-read.budget-reserve")
    @ConfigDescription("Hedges the budget allows over the last minute beyond hedged-read.max-ratio, so that a storage read rarely (behind a cold cache) is hedged too; 0: the ratio alone")
    public HedgedReadConfig setBudgetReserve(int budgetReserve)
    {
        this.budgetReserve = budgetReserve;
        return this;
    }

    // null only after an unknown name was set
    @NotNull(message = "hedged-read.mode must be one of AUTO, NATIVE, WRAPPER")
    public Mode getMode()
    {
        return mode;
    }

    // a String setter so that an unknown name fails validation with the allowed values, as cache.eviction-policy does
    @Config("hedged-read.mode")
    @ConfigDescription("AUTO (the default): HDFS's own replica-aware hedging for HDFS, Overdrive's wrapper for object stores (S3, GCS, Azure), local files not hedged; NATIVE: HDFS's own hedging only; WRAPPER: the wrapper for every storage")
    public HedgedReadConfig setMode(String mode)
    {
        this.mode = Mode.fromName(mode).orElse(null);
        this.modeSet = true;
        return this;
    }

    /** Whether {@code hedged-read.mode} was set, rather than left at its default. */
    public boolean modeWasSet()
    {
        return modeSet;
    }
}
