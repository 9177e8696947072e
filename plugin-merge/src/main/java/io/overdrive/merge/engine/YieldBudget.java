package io.overdrive.merge.engine;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * How many input rows a task processes before it yields its thread (at first the rows a target-time slice takes at
 * 50 ns per row, at most 16,384). Each run measures its rate and the budget moves
 * halfway towards the rows that would take {@code merge.target-task-time} at that rate, so a task settles near the
 * target without swinging on one noisy run (Druid smooths with a cumulative moving average; this converges faster).
 */
final class YieldBudget
{
    static final int INITIAL_ROWS = 16_384;
    static final int MIN_ROWS = 256;
    static final int MAX_ROWS = 1 << 24;
    // runs shorter than this say more about scheduling noise than about the merge rate
    private static final int MIN_SAMPLE_ROWS = 128;
    // a pessimistic first guess of the merge rate, so a short target is not overshot before the first measurement
    private static final int ASSUMED_NANOS_PER_ROW = 50;

    private final long targetNanos;
    private double rows;

    YieldBudget(long targetNanos)
    {
        checkArgument(targetNanos > 0, "targetNanos must be positive");
        this.targetNanos = targetNanos;
        this.rows = Math.clamp(targetNanos / ASSUMED_NANOS_PER_ROW, MIN_ROWS, INITIAL_ROWS);
    }

    int rows()
    {
        return (int) rows;
    }

    void record(long processedRows, long elapsedNanos)
    {
        if (processedRows < MIN_SAMPLE_ROWS || elapsedNanos <= 0) {
            return;
        }
        double projected = (double) targetNanos * processedRows / elapsedNanos;
        rows = Math.clamp((rows + projected) / 2, MIN_ROWS, MAX_ROWS);
    }
}
