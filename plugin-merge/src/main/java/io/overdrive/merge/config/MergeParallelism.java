package io.overdrive.merge.config;

import java.util.Locale;
import java.util.OptionalInt;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * How many layer-1 tasks a merge uses: {@code auto} (chosen from pool utilisation when the merge starts) or a fixed
 * positive number; 1 means a single serial task.
 */
public record MergeParallelism(OptionalInt fixed)
{
    public static final MergeParallelism AUTO = new MergeParallelism(OptionalInt.empty());
    // what valueOf accepts (for bean validation of the property text)
    public static final String PATTERN = "(?i)\\s*(auto|0*[1-9][0-9]{0,8})\\s*";

    public MergeParallelism
    {
        fixed.ifPresent(value -> checkArgument(value > 0, "parallelism must be positive: %s", value));
    }

    public static MergeParallelism fixed(int tasks)
    {
        return new MergeParallelism(OptionalInt.of(tasks));
    }

    /**
     * Parses the {@code merge.parallelism} property; Airlift calls this to coerce the property text.
     */
    public static MergeParallelism valueOf(String value)
    {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (text.equals("auto")) {
            return AUTO;
        }
        try {
            int tasks = Integer.parseInt(text);
            if (tasks > 0) {
                return fixed(tasks);
            }
        }
        catch (NumberFormatException _) {
            // reported below
        }
        throw new IllegalArgumentException("merge.parallelism must be 'auto' or a positive integer, but was '" + value + "'");
    }

    public boolean isAuto()
    {
        return fixed.isEmpty();
    }

    @Override
    public String toString()
    {
        return fixed.isPresent() ? Integer.toString(fixed.getAsInt()) : "auto";
    }
}
