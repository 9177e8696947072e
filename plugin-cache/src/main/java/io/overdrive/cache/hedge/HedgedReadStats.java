package io.overdrive.cache.hedge;

import io.airlift.stats.CounterStat;
import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Hedged read metrics, one MBean per catalog. {@code HedgedReadOps}, {@code HedgedReadOpsWin} and
 * {@code HedgedReadOpsInCurThread} carry HDFS's names and meaning, and add HDFS's own counters (the native path) to
 * Overdrive's wrapper's.
 */
public class HedgedReadStats
{
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong hedges = new AtomicLong();
    private final AtomicLong wins = new AtomicLong();
    private final AtomicLong hedgesInCallerThread = new AtomicLong();
    private final AtomicLong refusedByBudget = new AtomicLong();
    private final AtomicLong unhedgedPoolFull = new AtomicLong();
    private final AtomicLong bothFailed = new AtomicLong();
    private final AtomicLong wastedBytes = new AtomicLong();
    private final AtomicLong attemptsRunning = new AtomicLong();
    private final AtomicLong abandonedAttemptsStopped = new AtomicLong();
    private final CounterStat readFailures = new CounterStat();
    private final TimeStat readLatency = new TimeStat(MILLISECONDS);
    private final TimeStat primaryLatency = new TimeStat(MILLISECONDS);
    private final TimeStat hedgeLatency = new TimeStat(MILLISECONDS);
    private final Map<String, Supplier<Long>> thresholds = new ConcurrentHashMap<>();
    private final AtomicLong nativeThresholdUpdates = new AtomicLong();
    private final AtomicLong nativeThresholdFailures = new AtomicLong();
    private final AtomicLong nativeThresholdSlowdowns = new AtomicLong();
    private final AtomicLong notHedgedBySession = new AtomicLong();
    private volatile NativeHedgedReadMetrics nativeMetrics = NativeHedgedReadMetrics.NONE;
    private volatile Supplier<Long> nativeThresholdMillis;

    void recordRead()
    {
        reads.incrementAndGet();
    }

    void recordHedge(boolean inCallerThread)
    {
        hedges.incrementAndGet();
        if (inCallerThread) {
            hedgesInCallerThread.incrementAndGet();
        }
    }

    void recordWin()
    {
        wins.incrementAndGet();
    }

    void recordNotHedgedBySession()
    {
        notHedgedBySession.incrementAndGet();
    }

    void recordRefusedByBudget()
    {
        refusedByBudget.incrementAndGet();
    }

    void recordUnhedgedPoolFull()
    {
        unhedgedPoolFull.incrementAndGet();
    }

    void recordFailure(boolean bothFailed)
    {
        readFailures.update(1);
        if (bothFailed) {
            this.bothFailed.incrementAndGet();
        }
    }

    void recordWastedBytes(long bytes)
    {
        wastedBytes.addAndGet(bytes);
    }

    void recordAttemptStarted()
    {
        attemptsRunning.incrementAndGet();
    }

    void recordAttemptFinished(boolean stoppedWhenAbandoned)
    {
        attemptsRunning.decrementAndGet();
        if (stoppedWhenAbandoned) {
            abandonedAttemptsStopped.incrementAndGet();
        }
    }

    void recordReadLatency(long nanos)
    {
        readLatency.addNanos(nanos);
    }

    void recordPrimaryLatency(long nanos)
    {
        primaryLatency.addNanos(nanos);
    }

    void recordHedgeLatency(long nanos)
    {
        hedgeLatency.addNanos(nanos);
    }

    void registerThreshold(String storage, Supplier<Long> thresholdNanos)
    {
        thresholds.put(storage, thresholdNanos);
    }

    void recordNativeThresholdUpdate()
    {
        nativeThresholdUpdates.incrementAndGet();
    }

    void recordNativeThresholdSlowdown()
    {
        nativeThresholdSlowdowns.incrementAndGet();
    }

    void recordNativeThresholdFailure()
    {
        nativeThresholdFailures.incrementAndGet();
    }

    void setNativeThreshold(Supplier<Long> millis)
    {
        this.nativeThresholdMillis = millis;
    }

    void setNativeMetrics(NativeHedgedReadMetrics nativeMetrics)
    {
        this.nativeMetrics = nativeMetrics;
    }

    @Managed(description = "Files opened for queries whose session switched hedging off (hedged_reads_enabled=false): none of their reads is hedged")
    public long getFilesNotHedgedBySession()
    {
        return notHedgedBySession.get();
    }

    @Managed(description = "Reads that went through Overdrive's hedging wrapper")
    public long getReads()
    {
        return reads.get();
    }

    @Managed(description = "Hedged reads started, as HDFS's HedgedReadOps: Overdrive's wrapper plus HDFS's own hedging")
    public long getHedgedReadOps()
    {
        return hedges.get() + nativeMetrics.hedgedReadOps();
    }

    @Managed(description = "Hedged reads that finished before the read they hedged, as HDFS's HedgedReadOpsWin")
    public long getHedgedReadOpsWin()
    {
        return wins.get() + nativeMetrics.hedgedReadOpsWin();
    }

    @Managed(description = "Hedged reads run in the reading thread because the hedged read pool was full, as HDFS's HedgedReadOpsInCurThread")
    public long getHedgedReadOpsInCurThread()
    {
        return hedgesInCallerThread.get() + nativeMetrics.hedgedReadOpsInCurThread();
    }

    @Managed(description = "Hedges not started because the hedge budget (hedged-read.max-ratio) was spent")
    public long getHedgesRefusedByBudget()
    {
        return refusedByBudget.get();
    }

    @Managed(description = "Reads run unhedged in the reading thread because every hedged read thread was busy")
    public long getUnhedgedReadsPoolFull()
    {
        return unhedgedPoolFull.get();
    }

    @Managed(description = "Reads where the read and its hedge both failed")
    public long getBothFailed()
    {
        return bothFailed.get();
    }

    @Managed(description = "Bytes read by the losers of hedged reads, read for nothing")
    public long getWastedBytes()
    {
        return wastedBytes.get();
    }

    @Managed(description = "Reads and hedges running now on the hedged read pool or in a reading thread")
    public long getAttemptsRunning()
    {
        return attemptsRunning.get();
    }

    @Managed(description = "Attempts no longer wanted (a hedge's loser, the reads of a query cancelled) that an interrupt stopped before they had read their range")
    public long getAbandonedAttemptsStopped()
    {
        return abandonedAttemptsStopped.get();
    }

    @Managed(description = "The highest current hedge threshold over the storages read, in milliseconds")
    public double getThresholdMillis()
    {
        return thresholds.values().stream()
                .mapToDouble(nanos -> nanos.get() / 1e6)
                .max()
                .orElse(Double.NaN);
    }

    @Managed(description = "The current hedge threshold of each storage")
    public String getThresholds()
    {
        return thresholds.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(entry -> "%s=%.1fms".formatted(entry.getKey(), entry.getValue().get() / 1e6))
                .collect(Collectors.joining(", "));
    }

    @Managed(description = "The threshold of HDFS's own hedged reads, in milliseconds, with hedged-read.threshold=adaptive on HDFS (else NaN)")
    public double getNativeThresholdMillis()
    {
        Supplier<Long> millis = nativeThresholdMillis;
        return millis == null ? Double.NaN : millis.get();
    }

    @Managed(description = "Times the adaptive threshold of HDFS's own hedged reads was changed on the HDFS clients")
    public long getNativeThresholdUpdates()
    {
        return nativeThresholdUpdates.get();
    }

    @Managed(description = "Storage-wide slowdowns seen by the adaptive threshold of HDFS's own hedged reads: most recent reads ran past it, and it was raised at once")
    public long getNativeThresholdSlowdowns()
    {
        return nativeThresholdSlowdowns.get();
    }

    @Managed(description = "Times the adaptive threshold of HDFS's own hedged reads could not be set on the HDFS clients (it then stays where it was)")
    public long getNativeThresholdFailures()
    {
        return nativeThresholdFailures.get();
    }

    @Managed
    @Nested
    public CounterStat getReadFailures()
    {
        return readFailures;
    }

    /** What the reader waited: until the first of the read and its hedge finished. */
    @Managed
    @Nested
    public TimeStat getReadLatency()
    {
        return readLatency;
    }

    @Managed
    @Nested
    public TimeStat getPrimaryReadLatency()
    {
        return primaryLatency;
    }

    @Managed
    @Nested
    public TimeStat getHedgedReadLatency()
    {
        return hedgeLatency;
    }
}
