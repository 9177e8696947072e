package io.overdrive.merge.combine;

import com.google.common.collect.ImmutableList;
import io.overdrive.merge.ordering.KeyComparators;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;

import java.util.List;

import static io.trino.spi.StandardErrorCode.INVALID_FUNCTION_ARGUMENT;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * One aggregation resolved against the merge's input types: its state and final types, and how to build
 * accumulators that read raw values or partial states.
 */
public final class AggregationPlan
{
    private final AggregationFunction function;
    // the values summed or compared: the raw input column, or the state's sum/min/max column; null for count
    private final Type valueType;
    private final SumKind sumKind;
    private final List<Type> stateTypes;
    private final Type finalType;
    private final TypeOperators typeOperators;

    private AggregationPlan(AggregationFunction function, Type valueType, SumKind sumKind, List<Type> stateTypes, Type finalType, TypeOperators typeOperators)
    {
        this.function = function;
        this.valueType = valueType;
        this.sumKind = sumKind;
        this.stateTypes = ImmutableList.copyOf(stateTypes);
        this.finalType = finalType;
        this.typeOperators = typeOperators;
    }

    public static AggregationPlan resolve(Aggregation aggregation, List<Type> inputTypes, boolean stateInput, TypeOperators typeOperators)
    {
        requireNonNull(aggregation, "aggregation is null");
        AggregationFunction function = aggregation.function();
        List<Integer> channels = aggregation.inputChannels();
        for (int channel : channels) {
            check(channel < inputTypes.size(), "%s reads channel %s, but the input has %s channels", function, channel, inputTypes.size());
        }
        check(aggregation.resultType().isEmpty() || function == AggregationFunction.SUM || function == AggregationFunction.AVG,
                "%s has the type its input implies, not %s", function, aggregation.resultType());
        return switch (function) {
            case COUNT -> {
                if (stateInput) {
                    check(channels.size() == 1, "count over partial states reads exactly one bigint state channel");
                    check(inputTypes.get(channels.getFirst()) instanceof BigintType, "count state channel must be bigint, but is %s", inputTypes.get(channels.getFirst()));
                }
                else {
                    check(channels.size() <= 1, "count reads no channel (count rows) or one channel (count non-null values)");
                }
                yield new AggregationPlan(function, null, null, List.of(BIGINT), BIGINT, typeOperators);
            }
            case SUM -> {
                check(channels.size() == 1, "sum reads exactly one channel");
                Type type = inputTypes.get(channels.getFirst());
                SumKind kind = SumKind.of(type, function);
                Type sumType = kind.sumType(type);
                Type finalType = sumType;
                if (aggregation.resultType().isPresent()) {
                    // integer sums carried as decimal(38, 0) states (which cannot overflow), finished as bigint
                    check(stateInput && kind == SumKind.DECIMAL && ((DecimalType) type).getScale() == 0 && aggregation.resultType().get() instanceof BigintType,
                            "sum with result type %s reads decimal(38, 0) states, but reads %s", aggregation.resultType().get(), stateInput ? type : "raw values");
                    finalType = BIGINT;
                }
                yield new AggregationPlan(function, type, kind, List.of(sumType), finalType, typeOperators);
            }
            case MIN, MAX -> {
                check(channels.size() == 1, "%s reads exactly one channel", function);
                Type type = inputTypes.get(channels.getFirst());
                check(type.isOrderable(), "%s needs an orderable type, but %s is not", function, type);
                yield new AggregationPlan(function, type, null, List.of(type), type, typeOperators);
            }
            case AVG -> {
                Type type = inputTypes.get(channels.getFirst());
                SumKind kind = SumKind.of(type, function);
                Type finalType;
                if (stateInput) {
                    check(channels.size() == 2, "avg over partial states reads two channels: the sum and the count");
                    check(inputTypes.get(channels.get(1)) instanceof BigintType, "avg count state channel must be bigint, but is %s", inputTypes.get(channels.get(1)));
                    finalType = kind == SumKind.DECIMAL ? kind.sumType(type) : DOUBLE;
                    if (aggregation.resultType().isPresent()) {
                        // Trino's avg(decimal(p, s)) is a decimal(p, s): the average of values of the type fits in it
                        check(kind == SumKind.DECIMAL && aggregation.resultType().get() instanceof DecimalType result && result.getScale() == ((DecimalType) type).getScale(),
                                "avg over %s states cannot produce %s", type, aggregation.resultType().get());
                        finalType = aggregation.resultType().get();
                    }
                }
                else {
                    check(channels.size() == 1, "avg over raw values reads exactly one channel");
                    check(aggregation.resultType().isEmpty(), "avg over raw values has the type its input implies");
                    finalType = kind == SumKind.DECIMAL ? type : DOUBLE;
                }
                yield new AggregationPlan(function, type, kind, List.of(kind.sumType(type), BIGINT), finalType, typeOperators);
            }
        };
    }

    public AggregationFunction function()
    {
        return function;
    }

    public List<Type> stateTypes()
    {
        return stateTypes;
    }

    public Type finalType()
    {
        return finalType;
    }

    public List<Type> outputTypes(boolean finalOutput)
    {
        return finalOutput ? List.of(finalType) : stateTypes;
    }

    /**
     * The same aggregation reading this plan's partial states (how a layer-2 task folds layer-1 output), keeping the
     * final type.
     */
    public AggregationPlan overStates()
    {
        Type stateValueType = switch (function) {
            case COUNT -> null;
            case SUM, AVG -> sumKind.sumType(valueType);
            case MIN, MAX -> valueType;
        };
        return new AggregationPlan(function, stateValueType, sumKind, stateTypes, finalType, typeOperators);
    }

    /**
     * An accumulator reading {@code channels} (raw values when {@code stateInput} is false, else partial states).
     */
    public Accumulator createAccumulator(List<Integer> channels, boolean stateInput)
    {
        return switch (function) {
            case COUNT -> stateInput
                    ? new CountAccumulator(CountAccumulator.Mode.STATES, channels.getFirst())
                    : channels.isEmpty() ? new CountAccumulator(CountAccumulator.Mode.ROWS, -1) : new CountAccumulator(CountAccumulator.Mode.NON_NULL, channels.getFirst());
            case SUM -> SumAccumulator.create(sumKind, valueType, channels.getFirst(), finalType instanceof BigintType);
            // as Trino's min and max: min compares with NaN last (larger than every number), max with NaN first
            // (smaller than every number), so NaN is the result only when every value is NaN
            case MIN -> new MinMaxAccumulator(channels.getFirst(), KeyComparators.create(valueType, SortOrder.ASC_NULLS_LAST, typeOperators), false);
            case MAX -> new MinMaxAccumulator(channels.getFirst(), KeyComparators.create(valueType, SortOrder.ASC_NULLS_FIRST, typeOperators), true);
            case AVG -> new AverageAccumulator(
                    SumAccumulator.create(sumKind, valueType, channels.getFirst(), false),
                    stateInput
                            ? new CountAccumulator(CountAccumulator.Mode.STATES, channels.get(1))
                            : new CountAccumulator(CountAccumulator.Mode.NON_NULL, channels.getFirst()),
                    finalType);
        };
    }

    private static void check(boolean condition, String format, Object... args)
    {
        if (!condition) {
            throw new TrinoException(INVALID_FUNCTION_ARGUMENT, format.formatted(args));
        }
    }
}
