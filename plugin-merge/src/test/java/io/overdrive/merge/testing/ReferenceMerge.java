package io.overdrive.merge.testing;

import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.AggregationFunction;
import io.overdrive.merge.combine.CombineSpec;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.Type;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The obviously correct serial merge the engine is checked against: concatenate every input's rows in input order,
 * stable-sort them by the sort keys (so equal keys keep input order), fold equal keys with a map, apply the limit.
 * It works on canonical Java values and shares no code with the engine.
 */
public final class ReferenceMerge
{
    private ReferenceMerge() {}

    public static List<Object[]> merge(List<Type> types, List<SortKey> sortKeys, List<List<Object[]>> inputs, Optional<CombineSpec> combine, OptionalLong limit)
    {
        List<Object[]> rows = new ArrayList<>();
        inputs.forEach(rows::addAll);
        Comparator<Object[]> order = rowOrder(sortKeys);
        rows.sort(order);

        List<Object[]> result = combine.isPresent() ? combine(types, sortKeys, rows, combine.get()) : rows;
        long max = limit.orElse(Long.MAX_VALUE);
        return result.size() > max ? new ArrayList<>(result.subList(0, (int) max)) : result;
    }

    public static Comparator<Object[]> rowOrder(List<SortKey> sortKeys)
    {
        return (left, right) -> {
            for (SortKey key : sortKeys) {
                int result = compareKey(key, left[key.channel()], right[key.channel()]);
                if (result != 0) {
                    return result;
                }
            }
            return 0;
        };
    }

    private static int compareKey(SortKey key, Object left, Object right)
    {
        if (left == null || right == null) {
            if (left == right) {
                return 0;
            }
            boolean nullsFirst = key.order().isNullsFirst();
            return (left == null) == nullsFirst ? -1 : 1;
        }
        int result = Values.compare(left, right);
        return key.order().isAscending() ? result : -result;
    }

    private static List<Object[]> combine(List<Type> types, List<SortKey> sortKeys, List<Object[]> sortedRows, CombineSpec spec)
    {
        // group rows by key value in sorted order; LinkedHashMap keeps the first occurrence's position
        Map<List<Object>, List<Object[]>> groups = new LinkedHashMap<>();
        for (Object[] row : sortedRows) {
            List<Object> key = new ArrayList<>();
            for (SortKey sortKey : sortKeys) {
                key.add(normalize(row[sortKey.channel()]));
            }
            groups.computeIfAbsent(key, _ -> new ArrayList<>()).add(row);
        }
        List<Object[]> result = new ArrayList<>();
        for (List<Object[]> group : groups.values()) {
            List<Object> out = new ArrayList<>();
            for (SortKey sortKey : sortKeys) {
                out.add(group.getFirst()[sortKey.channel()]);
            }
            for (Aggregation aggregation : spec.aggregations()) {
                out.addAll(aggregate(types, aggregation, group, spec.step().isStateInput(), spec.step().isFinalOutput()));
            }
            result.add(out.toArray());
        }
        return result;
    }

    // map keys: decimals equal by value, whatever the scale
    private static Object normalize(Object value)
    {
        return value instanceof BigDecimal decimal ? decimal.stripTrailingZeros() : value;
    }

    private static List<Object> aggregate(List<Type> types, Aggregation aggregation, List<Object[]> rows, boolean stateInput, boolean finalOutput)
    {
        List<Integer> channels = aggregation.inputChannels();
        return switch (aggregation.function()) {
            case COUNT -> {
                long count = 0;
                for (Object[] row : rows) {
                    if (stateInput) {
                        Object value = row[channels.getFirst()];
                        count += value == null ? 0 : (Long) value;
                    }
                    else if (channels.isEmpty() || row[channels.getFirst()] != null) {
                        count++;
                    }
                }
                yield List.of(count);
            }
            case SUM -> {
                Type type = types.get(channels.getFirst());
                yield singleton(sum(type, rows, channels.getFirst()));
            }
            case MIN, MAX -> {
                Object best = null;
                for (Object[] row : rows) {
                    Object value = row[channels.getFirst()];
                    if (value == null) {
                        continue;
                    }
                    if (best == null) {
                        best = value;
                        continue;
                    }
                    int result = Values.compare(value, best);
                    if (aggregation.function() == AggregationFunction.MAX ? result > 0 : result < 0) {
                        best = value;
                    }
                }
                yield singleton(best);
            }
            case AVG -> {
                Type type = types.get(channels.getFirst());
                Object sum = sum(type, rows, channels.getFirst());
                long count = 0;
                for (Object[] row : rows) {
                    if (stateInput) {
                        Object value = row[channels.get(1)];
                        count += value == null ? 0 : (Long) value;
                    }
                    else if (row[channels.getFirst()] != null) {
                        count++;
                    }
                }
                if (!finalOutput) {
                    List<Object> state = new ArrayList<>();
                    state.add(sum);
                    state.add(count);
                    yield state;
                }
                if (sum == null || count == 0) {
                    yield singleton(null);
                }
                yield switch (sum) {
                    case Long value -> singleton((double) value / count);
                    case Double value -> singleton(value / count);
                    case BigDecimal value -> singleton(value.divide(BigDecimal.valueOf(count), ((DecimalType) type).getScale(), RoundingMode.HALF_UP));
                    default -> throw new IllegalStateException();
                };
            }
        };
    }

    private static Object sum(Type type, List<Object[]> rows, int channel)
    {
        boolean any = false;
        BigInteger longSum = BigInteger.ZERO;
        double doubleSum = 0;
        BigDecimal decimalSum = BigDecimal.ZERO;
        for (Object[] row : rows) {
            Object value = row[channel];
            if (value == null) {
                continue;
            }
            any = true;
            switch (value) {
                case Long v -> longSum = longSum.add(BigInteger.valueOf(v));
                case Double v -> doubleSum += v;
                case BigDecimal v -> decimalSum = decimalSum.add(v);
                default -> throw new IllegalArgumentException("cannot sum " + value);
            }
        }
        if (!any) {
            return null;
        }
        if (type instanceof BigintType || type instanceof IntegerType) {
            return longSum.longValueExact();
        }
        if (type instanceof DoubleType) {
            return doubleSum;
        }
        return decimalSum;
    }

    private static List<Object> singleton(Object value)
    {
        List<Object> list = new ArrayList<>(1);
        list.add(value);
        return list;
    }
}
