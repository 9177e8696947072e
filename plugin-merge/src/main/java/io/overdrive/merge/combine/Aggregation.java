package io.overdrive.merge.combine;

import com.google.common.collect.ImmutableList;

import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * One aggregation of the combine step over input channels. With raw input every function reads one channel, except
 * {@code count()} (no channel: counts rows). With partial-state input every function reads its one state column,
 * except {@code avg}, which reads two: the sum and the count.
 * <p>
 * {@code resultType}, when present, is the final type when it is not the one the state implies: {@code bigint} for a
 * sum whose states are {@code decimal(38, 0)} (sums of integers carried without overflow), {@code decimal(p, s)} for
 * an average whose sum states are {@code decimal(38, s)} (Trino's {@code avg(decimal(p, s))}).
 */
public record Aggregation(AggregationFunction function, List<Integer> inputChannels, Optional<Type> resultType)
{
    public Aggregation
    {
        requireNonNull(function, "function is null");
        inputChannels = ImmutableList.copyOf(requireNonNull(inputChannels, "inputChannels is null"));
        requireNonNull(resultType, "resultType is null");
        checkArgument(inputChannels.size() <= 2, "an aggregation reads at most two channels");
        inputChannels.forEach(channel -> checkArgument(channel >= 0, "channel must not be negative: %s", channel));
    }

    public Aggregation(AggregationFunction function, List<Integer> inputChannels)
    {
        this(function, inputChannels, Optional.empty());
    }

    /**
     * This aggregation with the final type {@code resultType} (see the class comment for the supported cases).
     */
    public Aggregation withResultType(Type resultType)
    {
        return new Aggregation(function, inputChannels, Optional.of(resultType));
    }

    public static Aggregation sum(int channel)
    {
        return new Aggregation(AggregationFunction.SUM, List.of(channel));
    }

    public static Aggregation countRows()
    {
        return new Aggregation(AggregationFunction.COUNT, List.of());
    }

    public static Aggregation count(int channel)
    {
        return new Aggregation(AggregationFunction.COUNT, List.of(channel));
    }

    public static Aggregation min(int channel)
    {
        return new Aggregation(AggregationFunction.MIN, List.of(channel));
    }

    public static Aggregation max(int channel)
    {
        return new Aggregation(AggregationFunction.MAX, List.of(channel));
    }

    public static Aggregation avg(int channel)
    {
        return new Aggregation(AggregationFunction.AVG, List.of(channel));
    }

    /**
     * Average over partial states: a sum column and a count column.
     */
    public static Aggregation avgOfStates(int sumChannel, int countChannel)
    {
        return new Aggregation(AggregationFunction.AVG, List.of(sumChannel, countChannel));
    }
}
