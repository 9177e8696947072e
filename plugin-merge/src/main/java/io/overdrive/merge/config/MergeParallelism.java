package io.overdrive.merge.config;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * How many layer-1 tasks a merge uses: {@code auto} (chosen from pool utilisation when the merge starts) or a fixed
 * positive number; 1 means a single serial task.
 */
public record MergeParallelism(OptionalInt fixed)
{
    public static final MergeParallelism AUTO = new MergeParallelism(OptionalInt.empty());

    public MergeParallelism
    {
        fixed.ifPresent(value -> checkArgument(value > 0, "parallelism must be positive: %s", value));
    }

    public static MergeParallelism fixed(int tasks)
    {
        return new MergeParallelism(OptionalInt.of(tasks));
    }

    /** {@code auto} (any case) or a positive integer, with blanks around it; empty for anything else. */
    public static Optional<MergeParallelism> parse(String value)
    {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("auto")) {
            return Optional.of(AUTO);
        }
        try {
            int tasks = Integer.parseInt(text);
            if (tasks > 0) {
                return Optional.of(fixed(tasks));
            }
        }
        catch (NumberFormatException _) {
            // not a number: not a parallelism
        }
        return Optional.empty();
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
