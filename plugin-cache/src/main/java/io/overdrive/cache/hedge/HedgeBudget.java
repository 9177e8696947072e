package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.stats.DecayCounter;
import io.airlift.stats.DecayConfig;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The most hedges over a recent window: {@code hedged-read.max-ratio} per read, plus a small reserve
 * ({@code hedged-read.budget-reserve}), as Finagle's {@code RetryBudget} adds {@code minRetriesPerSec} to its share of
 * requests. Reads and hedges are counted with a one-minute exponential decay, and a hedge starts only while the hedges
 * stay within the budget. A storage-wide slowdown, where every read runs past the threshold, therefore adds at most that
 * share of reads, plus the reserve, instead of doubling the load. The reserve lets a catalog that reads a storage rarely
 * (a cold cache in front of it sends a few reads a minute) hedge those reads too: the ratio alone would allow none
 * before twenty reads.
 */
final class HedgeBudget
{
    private final double maxRatio;
    private final int reserve;
    private final DecayCounter reads;
    private final DecayCounter hedges;

    HedgeBudget(double maxRatio, int reserve, Ticker ticker)
    {
        checkArgument(reserve >= 0, "reserve is negative");
        this.maxRatio = maxRatio;
        this.reserve = reserve;
        this.reads = new DecayCounter(DecayConfig.oneMinute(ticker));
        this.hedges = new DecayCounter(DecayConfig.oneMinute(ticker));
    }

    void recordRead()
    {
        reads.add(1);
    }

    /** Takes one hedge from the budget; false when it would exceed the ratio and the reserve. */
    synchronized boolean tryAcquire()
    {
        // a read gets one hedge at most, so a ratio of 1 refuses none; comparing would refuse some, as the read being
        // hedged may already weigh less than the hedge (the counters decay by the second) or round below it
        if (maxRatio < 1 && hedges.getCount() + 1 > maxRatio * reads.getCount() + reserve) {
            return false;
        }
        hedges.add(1);
        return true;
    }
}
