package io.overdrive.merge.combine;

import io.trino.spi.PageBuilder;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The combine step's aggregations finish what Trino's own aggregations return on the same values.
 */
class TestAggregationPlan
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();
    private static final DecimalType DECIMAL_38_0 = createDecimalType(38, 0);

    @Test
    void maxIgnoresNaNUnlessEveryValueIsNaNAsTrinoDoes()
    {
        // Trino's max compares with NaN first (unordered first), its min with NaN last: NaN only wins alone
        for (boolean stateInput : List.of(true, false)) {
            assertThat(fold(Aggregation.max(0), DOUBLE, stateInput, Double.NaN, 1.0)).isEqualTo(1.0);
            assertThat(fold(Aggregation.max(0), DOUBLE, stateInput, 1.0, Double.NaN, -5.0)).isEqualTo(1.0);
            assertThat(fold(Aggregation.max(0), DOUBLE, stateInput, Double.NaN, Double.NEGATIVE_INFINITY)).isEqualTo(Double.NEGATIVE_INFINITY);
            assertThat(fold(Aggregation.max(0), DOUBLE, stateInput, Double.NaN, null, Double.NaN)).isEqualTo(Double.NaN);
            assertThat(fold(Aggregation.min(0), DOUBLE, stateInput, Double.NaN, 1.0)).isEqualTo(1.0);
            assertThat(fold(Aggregation.min(0), DOUBLE, stateInput, 1.0, Double.NaN, 5.0)).isEqualTo(1.0);
            assertThat(fold(Aggregation.min(0), DOUBLE, stateInput, Double.POSITIVE_INFINITY, Double.NaN)).isEqualTo(Double.POSITIVE_INFINITY);
            assertThat(fold(Aggregation.min(0), DOUBLE, stateInput, Double.NaN, Double.NaN)).isEqualTo(Double.NaN);

            assertThat(fold(Aggregation.max(0), REAL, stateInput, Float.NaN, 1.0f)).isEqualTo(1.0f);
            assertThat(fold(Aggregation.max(0), REAL, stateInput, 2.0f, Float.NaN)).isEqualTo(2.0f);
            assertThat(fold(Aggregation.max(0), REAL, stateInput, Float.NaN, Float.NaN)).isEqualTo(Float.NaN);
            assertThat(fold(Aggregation.min(0), REAL, stateInput, Float.NaN, 1.0f)).isEqualTo(1.0f);
            assertThat(fold(Aggregation.min(0), REAL, stateInput, Float.NaN, Float.NaN)).isEqualTo(Float.NaN);
        }
    }

    @Test
    void decimalSumToleratesIntermediateOverflowAsTrinoDoes()
    {
        BigInteger big = BigInteger.TEN.pow(37).multiply(BigInteger.valueOf(9));
        // 9e37 + 9e37 is beyond 38 digits (and 128 bits); the total is not
        assertThat(fold(Aggregation.sum(0), DECIMAL_38_0, true, big, big, big.negate(), big.negate(), BigInteger.ONE)).isEqualTo(BigInteger.ONE);
        assertThat(fold(Aggregation.avgOfStates(0, 1), List.of(DECIMAL_38_0, BIGINT), List.of(
                row(big, 1L), row(big, 1L), row(big.negate(), 1L), row(BigInteger.ONE, 1L))))
                .isEqualTo(new BigDecimal(big.add(BigInteger.ONE)).divide(BigDecimal.valueOf(4), 0, java.math.RoundingMode.HALF_UP).toBigInteger());
        // a total beyond 38 digits fails as Trino's does
        assertThatThrownBy(() -> fold(Aggregation.sum(0), DECIMAL_38_0, true, big, big))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode()))
                .hasMessage("Decimal overflow");
    }

    @Test
    void integerSumsCarriedAsDecimalStatesFailOnlyWhenTheTotalIsOutOfBigintRange()
    {
        Aggregation sum = Aggregation.sum(0).withResultType(BIGINT);
        BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);
        assertThat(resolve(sum, List.of(DECIMAL_38_0), true).finalType()).isEqualTo(BIGINT);
        assertThat(fold(sum, DECIMAL_38_0, true, max, max, max.negate(), BigInteger.valueOf(-5))).isEqualTo(Long.MAX_VALUE - 5);
        assertThat(fold(sum, DECIMAL_38_0, true, BigInteger.valueOf(3))).isEqualTo(3L);
        assertThat(fold(sum, DECIMAL_38_0, true, (Object) null)).isNull();
        assertThatThrownBy(() -> fold(sum, DECIMAL_38_0, true, max, BigInteger.ONE))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode()))
                .hasMessage("bigint addition overflow in sum");
        // a bigint result needs decimal(38, 0) states
        assertThatThrownBy(() -> resolve(sum, List.of(createDecimalType(38, 2)), true)).isInstanceOf(TrinoException.class);
        assertThatThrownBy(() -> resolve(Aggregation.max(0).withResultType(BIGINT), List.of(BIGINT), true)).isInstanceOf(TrinoException.class);
    }

    @Test
    void decimalAverageOfStatesHasTheInputsType()
    {
        DecimalType input = createDecimalType(12, 2);
        Aggregation avg = Aggregation.avgOfStates(0, 1).withResultType(input);
        assertThat(resolve(avg, List.of(createDecimalType(38, 2), BIGINT), true).finalType()).isEqualTo(input);
        // (1.00 + 2.01) / 2 = 1.505, rounded half up
        assertThat(fold(avg, List.of(createDecimalType(38, 2), BIGINT), List.of(row(BigInteger.valueOf(100), 1L), row(BigInteger.valueOf(201), 1L))))
                .isEqualTo(151L);
    }

    private static Object[] row(Object... values)
    {
        return values;
    }

    private static AggregationPlan resolve(Aggregation aggregation, List<Type> types, boolean stateInput)
    {
        return AggregationPlan.resolve(aggregation, types, stateInput, TYPE_OPERATORS);
    }

    private static Object fold(Aggregation aggregation, Type type, boolean stateInput, Object... values)
    {
        List<Object[]> rows = new ArrayList<>();
        Arrays.stream(values).forEach(value -> rows.add(new Object[] {value}));
        return fold(aggregation, List.of(type), rows, stateInput);
    }

    private static Object fold(Aggregation aggregation, List<Type> types, List<Object[]> rows)
    {
        return fold(aggregation, types, rows, true);
    }

    /**
     * Folds the rows one page per row (as states from many inputs arrive) and returns the final value.
     */
    private static Object fold(Aggregation aggregation, List<Type> types, List<Object[]> rows, boolean stateInput)
    {
        AggregationPlan plan = resolve(aggregation, types, stateInput);
        Accumulator accumulator = plan.createAccumulator(aggregation.inputChannels(), stateInput);
        accumulator.reset();
        for (Object[] row : rows) {
            Block[] page = new Block[types.size()];
            for (int channel = 0; channel < types.size(); channel++) {
                page[channel] = block(types.get(channel), row[channel]);
            }
            accumulator.add(page, 0, 1);
        }
        PageBuilder output = new PageBuilder(List.of(plan.finalType()));
        accumulator.writeFinal(output, 0);
        output.declarePosition();
        Block block = output.build().getBlock(0);
        Type finalType = plan.finalType();
        if (block.isNull(0)) {
            return null;
        }
        if (finalType == DOUBLE) {
            return DOUBLE.getDouble(block, 0);
        }
        if (finalType == REAL) {
            return REAL.getFloat(block, 0);
        }
        if (finalType instanceof DecimalType decimal && !decimal.isShort()) {
            return ((Int128) decimal.getObject(block, 0)).toBigInteger();
        }
        return finalType.getLong(block, 0);
    }

    private static Block block(Type type, Object value)
    {
        BlockBuilder builder = type.createBlockBuilder(null, 1);
        if (value == null) {
            builder.appendNull();
        }
        else if (type == DOUBLE) {
            DOUBLE.writeDouble(builder, (Double) value);
        }
        else if (type == REAL) {
            REAL.writeFloat(builder, (Float) value);
        }
        else if (type instanceof DecimalType decimal && !decimal.isShort()) {
            decimal.writeObject(builder, Int128.valueOf((BigInteger) value));
        }
        else {
            type.writeLong(builder, ((Number) value).longValue());
        }
        return builder.build();
    }
}
