package io.overdrive.merge.pool;

/**
 * A merge's place in the admission order: higher priority first, then lower arrival sequence first. With
 * {@code merge.fifo=false} every arrival sequence is 0, so equal-priority merges are unordered.
 */
public record MergeTicket(int priority, long arrival, long arrivalNanos)
{
}
