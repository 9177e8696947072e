package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.stats.DecayCounter;
import io.airlift.stats.DecayConfig;

/**
 * The most hedges per read over a recent window ({@code hedged-read.max-ratio}): reads and hedges are counted with a
 * one-minute exponential decay, and a hedge starts only while the hedges stay within the ratio. A storage-wide slowdown,
 * where every read runs past the threshold, therefore adds at most that share of reads instead of doubling the load.
 */
final class HedgeBudget
{
    private final double maxRatio;
    private final DecayCounter reads;
    private final DecayCounter hedges;

    HedgeBudget(double maxRatio, Ticker ticker)
    {
        this.maxRatio = maxRatio;
        this.reads = new DecayCounter(DecayConfig.oneMinute(ticker));
        this.hedges = new DecayCounter(DecayConfig.oneMinute(ticker));
    }

    void recordRead()
    {
        reads.add(1);
    }

    /** Takes one hedge from the budget; false when it would exceed the ratio. */
    synchronized boolean tryAcquire()
    {
        // a read gets one hedge at most, so a ratio of 1 refuses none; comparing would refuse some, as the read being
        // hedged may already weigh less than the hedge (the counters decay by the second) or round below it
        if (maxRatio < 1 && hedges.getCount() + 1 > maxRatio * reads.getCount()) {
            return false;
        }
        hedges.add(1);
        return true;
    }
}
