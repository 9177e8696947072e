package io.overdrive.it.harness;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The most hedges the hedging wrapper's budget lets a run start, for tests that check the budget holds.
 * <p>
 * A hedge starts only while the hedges of the last minute, plus it, stay within {@code hedged-read.max-ratio} times the
 * reads of the last minute plus {@code hedged-read.budget-reserve}, both counted with a one-minute exponential decay.
 * The reads of the last minute are at most every read of the catalog so far, and a hedge of a run weighs at least
 * {@code exp(-run / 1 min)} when a later one is admitted, so on each worker a run's hedges are at most
 * {@code 1 + (max-ratio * reads + reserve - 1) * exp(run / 1 min)}; summed over the workers, with {@code reads} the
 * reads of all of them.
 */
public final class HedgeBudget
{
    private HedgeBudget() {}

    public static double maxHedges(double maxRatio, int reserve, long readsSoFar, double runSeconds, int workers)
    {
        checkArgument(maxRatio >= 0 && reserve >= 0 && readsSoFar >= 0 && runSeconds >= 0 && workers > 0, "invalid budget inputs");
        return Math.max(0, workers + (maxRatio * readsSoFar + workers * (reserve - 1.0)) * Math.exp(runSeconds / 60));
    }
}
