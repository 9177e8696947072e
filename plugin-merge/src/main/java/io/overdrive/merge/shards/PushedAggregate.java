package io.overdrive.merge.shards;

import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.AggregationFunction;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.Decimals.MAX_PRECISION;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * One aggregate computed by the shards as a partial state and finished by the merge: {@code function(argument)}
 * ({@code count(*)} has no argument), its result column {@code output}.
 * <p>
 * The partial states are chosen so that folding them gives what Trino's own aggregate gives on the union of the
 * shards' rows, and so that a shard's partial state cannot fail where Trino's aggregate would not:
 * <ul>
 * <li>{@code sum} of an integer type: the shards sum {@code CAST(x AS decimal(38, 0))}, which cannot overflow (at
 * most 2^63 values of at most 19 digits); the merge adds those exactly and fails, as Trino does, only when the total
 * is out of bigint's range.</li>
 * <li>{@code avg} of an integer type: the shards sum {@code CAST(x AS double)} and count, as Trino's avg accumulates
 * in a double.</li>
 * <li>{@code sum} and {@code avg} of {@code decimal(p, s)}: pushed down only for {@code p <= 19}, for which a shard's
 * decimal(38, s) sum cannot overflow; the merge tolerates intermediate overflow as Trino does.</li>
 * <li>{@code sum} and {@code avg} of {@code double}: the shards' double sums, added by the merge.</li>
 * </ul>
 */
public record PushedAggregate(AggregationFunction function, Optional<ShardsColumnHandle> argument, ShardsColumnHandle output)
{
    /** The largest decimal precision whose sums and averages are pushed down: a shard's sum cannot overflow. */
    static final int MAX_SUMMED_DECIMAL_PRECISION = 19;

    private static final DecimalType INTEGER_SUM = createDecimalType(MAX_PRECISION, 0);

    public PushedAggregate
    {
        requireNonNull(function, "function is null");
        requireNonNull(argument, "argument is null");
        requireNonNull(output, "output is null");
        checkArgument(argument.isPresent() || function == AggregationFunction.COUNT, "only count has no argument");
        checkArgument(argument.isEmpty() || isPushable(function, argument.get().type()), "%s of %s is not pushed down", function, argument.map(ShardsColumnHandle::type));
    }

    /**
     * Whether {@code function(x)} of a column of {@code type} is pushed down (its result type is checked separately).
     */
    static boolean isPushable(AggregationFunction function, Type type)
    {
        return switch (function) {
            case COUNT -> true;
            case MIN, MAX -> ShardValues.isMergeable(type);
            case SUM, AVG -> isInteger(type) || type instanceof DoubleType || (type instanceof DecimalType decimal && decimal.getPrecision() <= MAX_SUMMED_DECIMAL_PRECISION);
        };
    }

    private static boolean isInteger(Type type)
    {
        return type instanceof BigintType || type instanceof IntegerType || type instanceof SmallintType || type instanceof TinyintType;
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
            case SUM -> new String[] {"sum(" + summed(column) + ")"};
            case MIN -> new String[] {ShardValues.wire(argument.orElseThrow().type(), "min(" + column + ")")};
            case MAX -> new String[] {ShardValues.wire(argument.orElseThrow().type(), "max(" + column + ")")};
            case AVG -> new String[] {"sum(" + summed(column) + ")", "count(" + column + ")"};
        };
    }

    private String summed(String column)
    {
        if (!isInteger(argument.orElseThrow().type())) {
            return column;
        }
        return function == AggregationFunction.SUM
                ? "CAST(%s AS %s)".formatted(column, INTEGER_SUM.getDisplayName())
                : "CAST(%s AS double)".formatted(column);
    }

    /**
     * The types of the partial state's columns, as the shards return them.
     */
    public List<Type> stateTypes()
    {
        return switch (function) {
            case COUNT -> List.of(BIGINT);
            case MIN, MAX -> List.of(argument.orElseThrow().type());
            case SUM -> List.of(sumType());
            case AVG -> List.of(sumType(), BIGINT);
        };
    }

    private Type sumType()
    {
        Type type = argument.orElseThrow().type();
        if (isInteger(type)) {
            return function == AggregationFunction.SUM ? INTEGER_SUM : DOUBLE;
        }
        if (type instanceof DecimalType decimal) {
            return createDecimalType(MAX_PRECISION, decimal.getScale());
        }
        return DOUBLE;
    }

    /**
     * How the merge folds the partial states starting at {@code channel} into the final value.
     */
    public Aggregation combine(int channel)
    {
        return switch (function) {
            case COUNT -> Aggregation.count(channel);
            case MIN -> Aggregation.min(channel);
            case MAX -> Aggregation.max(channel);
            case SUM -> isInteger(argument.orElseThrow().type()) ? Aggregation.sum(channel).withResultType(BIGINT) : Aggregation.sum(channel);
            case AVG -> argument.orElseThrow().type() instanceof DecimalType decimal
                    ? Aggregation.avgOfStates(channel, channel + 1).withResultType(decimal)
                    : Aggregation.avgOfStates(channel, channel + 1);
        };
    }
}
