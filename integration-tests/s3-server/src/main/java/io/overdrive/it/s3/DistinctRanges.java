package io.overdrive.it.s3;

import com.google.common.collect.Range;
import com.google.common.collect.RangeSet;
import com.google.common.collect.TreeRangeSet;

import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The distinct bytes of each object that the server sent since the last {@link #reset}: the union of the byte ranges
 * sent, per object. Against the bytes sent, it tells how much of them storage sent more than once (the same bytes to
 * two workers, or twice to one).
 */
final class DistinctRanges
{
    private final Map<String, RangeSet<Long>> sent = new HashMap<>();

    /** Bytes {@code [start, end)} of {@code object} were sent. */
    synchronized void add(String object, long start, long end)
    {
        requireNonNull(object, "object is null");
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad range [%s, %s)".formatted(start, end));
        }
        if (end > start) {
            sent.computeIfAbsent(object, _ -> TreeRangeSet.create()).add(Range.closedOpen(start, end));
        }
    }

    /** The distinct bytes sent since the last reset, over every object. */
    synchronized long bytes()
    {
        long total = 0;
        for (RangeSet<Long> ranges : sent.values()) {
            for (Range<Long> range : ranges.asRanges()) {
                total += range.upperEndpoint() - range.lowerEndpoint();
            }
        }
        return total;
    }

    synchronized void reset()
    {
        sent.clear();
    }
}
