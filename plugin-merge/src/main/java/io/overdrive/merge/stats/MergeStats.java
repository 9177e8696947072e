package io.overdrive.merge.stats;

import io.airlift.stats.CounterStat;
import io.airlift.stats.DistributionStat;
import io.airlift.stats.TimeStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Node-wide counters of the merge engine, exported through JMX.
 */
public final class MergeStats
{
    private final AtomicLong queuedMerges = new AtomicLong();
    private final AtomicLong runningMerges = new AtomicLong();
    private final CounterStat startedMerges = new CounterStat();
    private final CounterStat finishedMerges = new CounterStat();
    private final CounterStat failedMerges = new CounterStat();
    private final CounterStat cancelledMerges = new CounterStat();
    private final TimeStat poolWait = new TimeStat(MILLISECONDS);
    private final DistributionStat parallelism = new DistributionStat();
    private final DistributionStat rowsPerMerge = new DistributionStat();
    private final TimeStat runTime = new TimeStat(MILLISECONDS);
    private final CounterStat rowsIn = new CounterStat();
    private final CounterStat rowsOut = new CounterStat();
    private final CounterStat yields = new CounterStat();

    public void mergeQueued()
    {
        queuedMerges.incrementAndGet();
    }

    public void mergeStarted(long poolWaitNanos, int chosenParallelism)
    {
        queuedMerges.decrementAndGet();
        runningMerges.incrementAndGet();
        startedMerges.update(1);
        poolWait.addNanos(poolWaitNanos);
        parallelism.add(chosenParallelism);
    }

    /**
     * A merge left the queue without starting (cancelled or failed while waiting).
     */
    public void mergeDequeued()
    {
        queuedMerges.decrementAndGet();
    }

    /** A merge ended: its rows out and how long it ran (0 if it never started). */
    public void mergeEnded(MergeOutcome outcome, boolean wasRunning, long outputRows, long runNanos)
    {
        if (wasRunning) {
            runningMerges.decrementAndGet();
            rowsPerMerge.add(outputRows);
            runTime.addNanos(runNanos);
        }
        switch (outcome) {
            case FINISHED -> finishedMerges.update(1);
            case FAILED -> failedMerges.update(1);
            case CANCELLED -> cancelledMerges.update(1);
        }
    }

    public void rowsIn(long rows)
    {
        rowsIn.update(rows);
    }

    public void rowsOut(long rows)
    {
        rowsOut.update(rows);
    }

    public void taskYielded()
    {
        yields.update(1);
    }

    @Managed(description = "Merges admitted to the pool whose tasks have not all ended")
    public long getRunningMerges()
    {
        return runningMerges.get();
    }

    @Managed(description = "Merges waiting for a thread of the merge pool")
    public long getQueuedMerges()
    {
        return queuedMerges.get();
    }

    @Managed
    @Nested
    public CounterStat getStartedMerges()
    {
        return startedMerges;
    }

    @Managed
    @Nested
    public CounterStat getFinishedMerges()
    {
        return finishedMerges;
    }

    @Managed
    @Nested
    public CounterStat getFailedMerges()
    {
        return failedMerges;
    }

    @Managed
    @Nested
    public CounterStat getCancelledMerges()
    {
        return cancelledMerges;
    }

    @Managed
    @Nested
    public DistributionStat getRowsPerMerge()
    {
        return rowsPerMerge;
    }

    @Managed
    @Nested
    public TimeStat getRunTime()
    {
        return runTime;
    }

    @Managed(description = "Time from a merge's arrival to the start of its first task")
    @Nested
    public TimeStat getPoolWait()
    {
        return poolWait;
    }

    @Managed(description = "Layer-1 tasks chosen per merge (1 = serial)")
    @Nested
    public DistributionStat getParallelism()
    {
        return parallelism;
    }

    @Managed(description = "Rows read from merge inputs")
    @Nested
    public CounterStat getRowsIn()
    {
        return rowsIn;
    }

    @Managed(description = "Rows handed to merge consumers")
    @Nested
    public CounterStat getRowsOut()
    {
        return rowsOut;
    }

    @Managed(description = "Times a merge task gave up its thread after its row budget")
    @Nested
    public CounterStat getYields()
    {
        return yields;
    }

    public enum MergeOutcome
    {
        FINISHED, FAILED, CANCELLED
    }
}
