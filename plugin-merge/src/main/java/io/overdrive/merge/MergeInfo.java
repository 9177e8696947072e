package io.overdrive.merge;

import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * A snapshot of one merge: its state, the layer-1 tasks chosen when it started (0 before), when it arrived, started
 * and ended ({@link System#nanoTime()}), the rows it has output so far, the bytes of pages buffered in its
 * queues, and whether it is terminated: every task has exited and every input is closed (this can trail the end of the
 * output by a moment).
 */
public record MergeInfo(MergeState state, int parallelism, long arrivalNanos, OptionalLong startNanos, OptionalLong endNanos, long outputRows, long bufferedBytes, boolean terminated)
{
    public MergeInfo
    {
        requireNonNull(state, "state is null");
        requireNonNull(startNanos, "startNanos is null");
        requireNonNull(endNanos, "endNanos is null");
    }

    public enum MergeState
    {
        QUEUED, RUNNING, FINISHED, FAILED, CANCELLED;

        public boolean isDone()
        {
            return this == FINISHED || this == FAILED || this == CANCELLED;
        }
    }
}
