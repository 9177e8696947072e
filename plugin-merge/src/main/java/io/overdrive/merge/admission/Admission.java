package io.overdrive.merge.admission;

/**
 * A merge's place in the admission order: higher priority first, then lower arrival sequence first. With
 * {@code merge.fifo=false} every arrival sequence is 0, so equal-priority merges are unordered.
 */
public record Admission(int priority, long arrival, long arrivalNanos)
{
}
