package io.overdrive.merge.combine;

import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;

import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCountAccumulator
{
    @Test
    void foldsCountStatesAndNullStatesCountAsZero()
    {
        CountAccumulator accumulator = new CountAccumulator(CountAccumulator.Mode.STATES, 0);
        accumulator.add(new Block[] {states(3L, null, 4L)}, 0, 3);
        assertThat(accumulator.count()).isEqualTo(7);
    }

    @Test
    void overflowIsTrinosOutOfRangeErrorAsForSum()
    {
        CountAccumulator accumulator = new CountAccumulator(CountAccumulator.Mode.STATES, 0);
        assertThatThrownBy(() -> accumulator.add(new Block[] {states(Long.MAX_VALUE, 1L)}, 0, 2))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode()))
                .hasMessage("bigint addition overflow in count");
    }

    private static Block states(Long... values)
    {
        BlockBuilder builder = BIGINT.createFixedSizeBlockBuilder(values.length);
        for (Long value : values) {
            if (value == null) {
                builder.appendNull();
            }
            else {
                BIGINT.writeLong(builder, value);
            }
        }
        return builder.build();
    }
}
