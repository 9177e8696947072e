package io.overdrive.cache.placement;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The file a split of a table scan reads, and where in it the split starts: what soft affinity places by.
 */
public record SplitFile(String path, long start)
{
    public SplitFile
    {
        requireNonNull(path, "path is null");
        checkArgument(start >= 0, "start is negative: %s", start);
    }
}
