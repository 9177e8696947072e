package io.overdrive.merge.ordering;

import io.airlift.slice.Slices;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.RealType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import io.trino.spi.type.VarcharType;
import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.trino.spi.function.InvocationConvention.InvocationArgumentConvention.BLOCK_POSITION;
import static io.trino.spi.function.InvocationConvention.InvocationReturnConvention.FAIL_ON_NULL;
import static io.trino.spi.function.InvocationConvention.simpleConvention;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The specialized comparators order exactly like Trino's ordering operator, including nulls, NaN and -0.0.
 */
public class TestKeyComparators
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();

    @Test
    public void testMatchesTrinoOrderingOperator()
            throws Throwable
    {
        List<Type> types = List.of(BIGINT, INTEGER, SMALLINT, DATE, DOUBLE, REAL, VARCHAR,
                DecimalType.createDecimalType(10, 2), DecimalType.createDecimalType(30, 4),
                TimestampType.createTimestampType(3), TimestampType.createTimestampType(6), TimestampType.createTimestampType(9));
        Random random = new Random(42);
        for (Type type : types) {
            Block block = randomBlock(type, random, 200);
            for (SortOrder order : SortOrder.values()) {
                KeyComparator comparator = KeyComparators.create(type, order, TYPE_OPERATORS);
                MethodHandle expected = TYPE_OPERATORS.getOrderingOperator(type, order, simpleConvention(FAIL_ON_NULL, BLOCK_POSITION, BLOCK_POSITION));
                for (int left = 0; left < block.getPositionCount(); left++) {
                    for (int right = 0; right < block.getPositionCount(); right++) {
                        int want = Integer.signum((int) expected.invoke(block, left, block, right));
                        int got = Integer.signum(comparator.compare(block, left, block, right));
                        if (want != got) {
                            throw new AssertionError("%s %s: positions %s and %s: expected %s, got %s".formatted(type, order, left, right, want, got));
                        }
                        if (comparator.hasNormalizedKey()) {
                            long leftKey = comparator.normalizedKey(block, left);
                            long rightKey = comparator.normalizedKey(block, right);
                            boolean sentinel = leftKey == Long.MIN_VALUE || leftKey == Long.MAX_VALUE;
                            if (leftKey != rightKey) {
                                assertThat(Long.compare(leftKey, rightKey)).as("%s %s normalized order of %s and %s", type, order, left, right).isEqualTo(want);
                            }
                            else if (comparator.isNormalizedKeyExact() && !sentinel) {
                                assertThat(want).as("%s %s exact normalized keys of %s and %s", type, order, left, right).isZero();
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    public void testSignedZerosAndNaNsAreEqualKeys()
    {
        // grouping follows IS DISTINCT FROM: 0.0 and -0.0 are one key, every NaN (whatever its bits) is one key
        BlockBuilder doubles = DOUBLE.createBlockBuilder(null, 4);
        for (double value : new double[] {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8_0000_0000_0001L)}) {
            DOUBLE.writeDouble(doubles, value);
        }
        BlockBuilder reals = REAL.createBlockBuilder(null, 4);
        for (float value : new float[] {0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7fc0_0001)}) {
            REAL.writeLong(reals, Float.floatToRawIntBits(value));
        }
        Block doubleBlock = doubles.build();
        Block realBlock = reals.build();
        for (SortOrder order : SortOrder.values()) {
            for (Map.Entry<Type, Block> values : Map.<Type, Block>of(DOUBLE, doubleBlock, REAL, realBlock).entrySet()) {
                KeyComparator comparator = KeyComparators.create(values.getKey(), order, TYPE_OPERATORS);
                Block block = values.getValue();
                assertThat(comparator.compare(block, 0, block, 1)).as("%s %s: 0.0 and -0.0", values.getKey(), order).isZero();
                assertThat(comparator.compare(block, 1, block, 0)).as("%s %s: -0.0 and 0.0", values.getKey(), order).isZero();
                assertThat(comparator.compare(block, 2, block, 3)).as("%s %s: two NaNs", values.getKey(), order).isZero();
                assertThat(comparator.compare(block, 0, block, 2)).as("%s %s: 0.0 and NaN", values.getKey(), order).isNotZero();
                if (comparator.hasNormalizedKey()) {
                    assertThat(comparator.normalizedKey(block, 0)).isEqualTo(comparator.normalizedKey(block, 1));
                }
            }
        }
    }

    @Test
    public void testRejectsUnorderableType()
    {
        Type map = new io.trino.spi.type.MapType(BIGINT, BIGINT, TYPE_OPERATORS);
        assertThatThrownBy(() -> KeyComparators.create(map, SortOrder.ASC_NULLS_LAST, TYPE_OPERATORS))
                .hasMessageContaining("not orderable");
    }

    @Test
    public void testRowComparatorUsesKeysInOrder()
    {
        BlockBuilder first = BIGINT.createBlockBuilder(null, 2);
        BIGINT.writeLong(first, 1);
        BIGINT.writeLong(first, 1);
        BlockBuilder second = VARCHAR.createBlockBuilder(null, 2);
        VARCHAR.writeSlice(second, Slices.utf8Slice("b"));
        VARCHAR.writeSlice(second, Slices.utf8Slice("a"));
        Block[] keys = {first.build(), second.build()};
        RowComparator comparator = new RowComparator(List.of(
                KeyComparators.create(BIGINT, SortOrder.ASC_NULLS_LAST, TYPE_OPERATORS),
                KeyComparators.create(VARCHAR, SortOrder.DESC_NULLS_LAST, TYPE_OPERATORS)));
        assertThat(comparator.compare(keys, 0, keys, 1)).isNegative();
        assertThat(comparator.compare(keys, 1, keys, 0)).isPositive();
        assertThat(comparator.compare(keys, 1, keys, 1)).isZero();
    }

    private static Block randomBlock(Type type, Random random, int positions)
    {
        BlockBuilder builder = type.createBlockBuilder(null, positions);
        for (int i = 0; i < positions; i++) {
            if (random.nextInt(10) == 0) {
                builder.appendNull();
                continue;
            }
            long value = random.nextInt(21) - 10;
            switch (type) {
                case DoubleType _ -> {
                    double[] specials = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};
                    DOUBLE.writeDouble(builder, random.nextInt(4) == 0 ? specials[random.nextInt(specials.length)] : value / 4.0);
                }
                case RealType _ -> REAL.writeLong(builder, Float.floatToIntBits(random.nextInt(5) == 0 ? Float.NaN : value / 4.0f));
                case VarcharType _ -> {
                    String[] strings = {"", "a", "ab", "b", "é", "中", "\uD83D\uDE00", "Z", "abcdefgh", "abcdefghi", "abcdefgh\u0000", "abcdefgg\u00ff"};
                    VARCHAR.writeSlice(builder, Slices.utf8Slice(strings[random.nextInt(strings.length)]));
                }
                case DecimalType decimal when !decimal.isShort() -> decimal.writeObject(builder, Int128.valueOf(value * 1_000_000_000_000L));
                case TimestampType timestamp when !timestamp.isShort() -> timestamp.writeObject(builder, new LongTimestamp(value, random.nextInt(3) * 1000));
                default -> type.writeLong(builder, value);
            }
        }
        return builder.build();
    }
}
