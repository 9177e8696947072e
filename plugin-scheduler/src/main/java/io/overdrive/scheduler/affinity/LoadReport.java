package io.overdrive.scheduler.affinity;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A worker's own count of its work, as last received by the coordinator.
 *
 * @param outstandingSplits leaf splits queued or running on the worker when it answered, in standard splits
 * @param completedSplitsPerSecond the rate at which the worker finished splits between its last two answers
 * @param receivedNanos when the answer was received, on the placer's ticker
 */
public record LoadReport(double outstandingSplits, double completedSplitsPerSecond, long receivedNanos)
{
    public LoadReport
    {
        checkArgument(outstandingSplits >= 0 && Double.isFinite(outstandingSplits), "outstandingSplits must be finite and not negative: %s", outstandingSplits);
        checkArgument(completedSplitsPerSecond >= 0 && Double.isFinite(completedSplitsPerSecond), "completedSplitsPerSecond must be finite and not negative: %s", completedSplitsPerSecond);
    }

    /**
     * The outstanding splits now, {@code ageNanos} after the report, with {@code placedSince} standard splits placed on
     * the worker since: the report, plus what was placed since, less what the worker is expected to have finished since
     * at its last rate; never negative.
     */
    double estimate(long ageNanos, double placedSince)
    {
        double finished = completedSplitsPerSecond * Math.max(ageNanos, 0) / 1e9;
        return Math.max(0, outstandingSplits + placedSince - finished);
    }
}
