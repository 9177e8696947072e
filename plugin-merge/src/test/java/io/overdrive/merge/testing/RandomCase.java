package io.overdrive.merge.testing;

import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.Aggregation;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.combine.CombineStep;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * A random merge: inputs sorted by random keys of every supported type, with duplicates and nulls, and optionally a
 * combine step (any of its steps) and a limit.
 */
public record RandomCase(
        List<Type> types,
        List<SortKey> sortKeys,
        List<List<Object[]>> inputs,
        Optional<CombineSpec> combine,
        OptionalLong limit)
{
    public static final List<Type> KEY_TYPES = List.of(
            BIGINT,
            INTEGER,
            DOUBLE,
            DecimalType.createDecimalType(10, 2),
            DecimalType.createDecimalType(30, 5),
            VARCHAR,
            DATE,
            TimestampType.createTimestampType(3),
            TimestampType.createTimestampType(9));

    private static final List<Type> NUMERIC_TYPES = List.of(BIGINT, INTEGER, DOUBLE, DecimalType.createDecimalType(12, 3), DecimalType.createDecimalType(25, 4));
    private static final String[] LETTERS = {"", "a", "b", "z", "A", "é", "中", "ß"};

    public static RandomCase generate(Random random, int maxInputs, int maxRowsPerInput)
    {
        List<Type> types = new ArrayList<>();
        List<SortKey> sortKeys = new ArrayList<>();
        int keyCount = 1 + random.nextInt(3);
        for (int i = 0; i < keyCount; i++) {
            types.add(KEY_TYPES.get(random.nextInt(KEY_TYPES.size())));
            sortKeys.add(new SortKey(i, SortOrder.values()[random.nextInt(SortOrder.values().length)]));
        }

        Optional<CombineSpec> combine = Optional.empty();
        int mode = random.nextInt(3);
        if (mode == 0) {
            // plain merge: a couple of payload columns of any type
            int payload = 1 + random.nextInt(2);
            for (int i = 0; i < payload; i++) {
                types.add(KEY_TYPES.get(random.nextInt(KEY_TYPES.size())));
            }
        }
        else {
            CombineStep step = CombineStep.values()[random.nextInt(CombineStep.values().length)];
            List<Aggregation> aggregations = new ArrayList<>();
            int count = 1 + random.nextInt(4);
            for (int i = 0; i < count; i++) {
                aggregations.add(randomAggregation(random, types, step.isStateInput()));
            }
            combine = Optional.of(new CombineSpec(aggregations, step));
        }

        // small key domains make many duplicates, large ones few
        long domain = switch (random.nextInt(4)) {
            case 0 -> 1 + random.nextInt(3);
            case 1 -> 1 + random.nextInt(30);
            case 2 -> 1 + random.nextInt(1000);
            default -> 1_000_000;
        };
        double nullProbability = random.nextInt(3) == 0 ? 0 : random.nextDouble() * 0.3;
        int inputCount = 1 + random.nextInt(maxInputs);
        List<List<Object[]>> inputs = new ArrayList<>();
        var order = ReferenceMerge.rowOrder(sortKeys);
        for (int input = 0; input < inputCount; input++) {
            int rows = random.nextInt(5) == 0 ? 0 : random.nextInt(maxRowsPerInput + 1);
            List<Object[]> data = new ArrayList<>(rows);
            for (int row = 0; row < rows; row++) {
                Object[] values = new Object[types.size()];
                for (int channel = 0; channel < types.size(); channel++) {
                    boolean key = channel < keyCount;
                    values[channel] = randomValue(random, types.get(channel), key ? domain : 1_000, nullProbability, key || !isCountState(combine, channel));
                }
                data.add(values);
            }
            data.sort(order);
            inputs.add(data);
        }

        OptionalLong limit = switch (random.nextInt(4)) {
            case 0 -> OptionalLong.of(random.nextInt(3));
            case 1 -> OptionalLong.of(random.nextInt(200));
            default -> OptionalLong.empty();
        };
        return new RandomCase(List.copyOf(types), List.copyOf(sortKeys), inputs, combine, limit);
    }

    private static boolean isCountState(Optional<CombineSpec> combine, int channel)
    {
        // count states are non-negative bigints; other columns may be null or negative
        return combine.isPresent() && combine.get().step().isStateInput() && combine.get().aggregations().stream()
                .anyMatch(aggregation -> switch (aggregation.function()) {
                    case COUNT -> aggregation.inputChannels().contains(channel);
                    case AVG -> aggregation.inputChannels().size() == 2 && aggregation.inputChannels().get(1) == channel;
                    default -> false;
                });
    }

    private static Aggregation randomAggregation(Random random, List<Type> types, boolean stateInput)
    {
        int function = random.nextInt(5);
        int channel = types.size();
        switch (function) {
            case 0 -> {
                // sum of a numeric column (state input: a sum state, which is a numeric column too)
                types.add(NUMERIC_TYPES.get(random.nextInt(NUMERIC_TYPES.size())));
                return Aggregation.sum(channel);
            }
            case 1 -> {
                if (stateInput) {
                    types.add(BIGINT);
                    return Aggregation.count(channel);
                }
                if (random.nextBoolean()) {
                    return Aggregation.countRows();
                }
                types.add(KEY_TYPES.get(random.nextInt(KEY_TYPES.size())));
                return Aggregation.count(channel);
            }
            case 2, 3 -> {
                types.add(KEY_TYPES.get(random.nextInt(KEY_TYPES.size())));
                return function == 2 ? Aggregation.min(channel) : Aggregation.max(channel);
            }
            default -> {
                types.add(NUMERIC_TYPES.get(random.nextInt(NUMERIC_TYPES.size())));
                if (stateInput) {
                    types.add(BIGINT);
                    return Aggregation.avgOfStates(channel, channel + 1);
                }
                return Aggregation.avg(channel);
            }
        }
    }

    static Object randomValue(Random random, Type type, long domain, double nullProbability, boolean allowNegative)
    {
        if (random.nextDouble() < nullProbability) {
            return null;
        }
        long value = domain >= Integer.MAX_VALUE ? random.nextLong() : random.nextLong(domain);
        if (allowNegative && random.nextBoolean()) {
            value = -value;
        }
        return switch (type) {
            case BigintType _ -> value;
            case IntegerType _ -> (long) (int) Math.clamp(value, -1_000_000_000, 1_000_000_000);
            case DoubleType _ -> value / 8.0;
            case DecimalType decimal when decimal.isShort() -> BigDecimal.valueOf(value, decimal.getScale());
            case DecimalType decimal -> new BigDecimal(BigInteger.valueOf(value).multiply(BigInteger.TEN.pow(12)).add(BigInteger.valueOf(Math.abs(value) % 7)), decimal.getScale());
            case VarcharType _ -> {
                StringBuilder text = new StringBuilder();
                long rest = Math.abs(value);
                do {
                    text.append(LETTERS[(int) (rest % LETTERS.length)]);
                    rest /= LETTERS.length;
                }
                while (rest > 0);
                yield text.toString();
            }
            case DateType _ -> (long) (int) (value % 100_000);
            case TimestampType timestamp when timestamp.isShort() -> value * 1000;
            case TimestampType _ -> BigInteger.valueOf(value).multiply(BigInteger.valueOf(1_000_000_000L)).add(BigInteger.valueOf(Math.floorMod(value, 1000) * 1000));
            default -> throw new IllegalArgumentException(type.toString());
        };
    }
}
