package io.overdrive.scheduler.affinity;

import com.google.common.collect.ImmutableSortedMap;

import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * How one table scan's (split source's) splits were spread over the workers that were live when it last placed one.
 *
 * @param splitsPerNode splits per node id, zero for a live worker that got none
 */
public record PlacementSummary(Map<String, Long> splitsPerNode)
{
    public PlacementSummary
    {
        splitsPerNode = ImmutableSortedMap.copyOf(requireNonNull(splitsPerNode, "splitsPerNode is null"));
        splitsPerNode.values().forEach(splits -> checkArgument(splits >= 0, "negative split count: %s", splits));
    }

    public long totalSplits()
    {
        return splitsPerNode.values().stream().mapToLong(Long::longValue).sum();
    }

    public long maxSplits()
    {
        return splitsPerNode.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    public double averageSplits()
    {
        return splitsPerNode.isEmpty() ? 0 : (double) totalSplits() / splitsPerNode.size();
    }

    /**
     * Max over average splits per worker: 1 is a perfect spread; soft affinity keeps it near {@code 1 + epsilon}.
     * 1 when no split was placed.
     */
    public double imbalance()
    {
        long total = totalSplits();
        return total == 0 ? 1 : maxSplits() / averageSplits();
    }
}
