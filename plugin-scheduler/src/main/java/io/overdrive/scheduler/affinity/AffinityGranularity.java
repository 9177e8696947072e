package io.overdrive.scheduler.affinity;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What a split's preferred workers are derived from ({@code node-selection.affinity-granularity}).
 */
public enum AffinityGranularity
{
    /**
     * All splits of a file share the file's preferred workers: one cached copy of each file in the cluster.
     */
    FILE,
    /**
     * Each split range of a file has its own preferred workers: a large hot file is spread over more workers.
     */
    SPLIT;

    /**
     * The affinity key of a split of {@code path} starting at byte {@code splitStart}. Every coordinator and worker
     * must derive it the same way, so this is the only place that does.
     */
    public String affinityKey(String path, long splitStart)
    {
        requireNonNull(path, "path is null");
        checkArgument(splitStart >= 0, "splitStart is negative: %s", splitStart);
        return switch (this) {
            case FILE -> path;
            // '#' and a decimal offset: unambiguous because the offset is the suffix after the last '#'
            case SPLIT -> path + "#" + splitStart;
        };
    }
}
