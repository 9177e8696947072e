package io.overdrive.merge.shards;

import io.overdrive.merge.combine.AggregationFunction;

import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One aggregate computed by the shards as a partial state and finished by the merge: {@code function(argument)}
 * ({@code count(*)} has no argument), its result column {@code output}.
 */
public record PushedAggregate(AggregationFunction function, Optional<ShardsColumnHandle> argument, ShardsColumnHandle output)
{
    public PushedAggregate
    {
        requireNonNull(function, "function is null");
        requireNonNull(argument, "argument is null");
        requireNonNull(output, "output is null");
    }

    @Override
    public String toString()
    {
        return "%s(%s)".formatted(function.name().toLowerCase(Locale.ROOT), argument.map(ShardsColumnHandle::name).orElse("*"));
    }

    /**
     * The partial state's select expressions: avg is carried as its sum and its count.
     */
    public String[] stateExpressions()
    {
        String column = argument.map(handle -> ShardValues.quoted(handle.name())).orElse("*");
        return switch (function) {
            case COUNT -> new String[] {"count(" + column + ")"};
            case SUM -> new String[] {"sum(" + column + ")"};
            case MIN -> new String[] {"min(" + column + ")"};
            case MAX -> new String[] {"max(" + column + ")"};
            case AVG -> new String[] {"sum(" + column + ")", "count(" + column + ")"};
        };
    }
}
