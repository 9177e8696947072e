package io.overdrive.merge.combine;

import io.trino.spi.TrinoException;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;

import java.util.Locale;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;

/**
 * How sum and avg add a type's values, and the type of the running sum.
 */
enum SumKind
{
    LONG, DOUBLE, DECIMAL;

    static SumKind of(Type type, AggregationFunction function)
    {
        if (type instanceof BigintType || type instanceof IntegerType || type instanceof SmallintType || type instanceof TinyintType) {
            return LONG;
        }
        if (type instanceof DoubleType) {
            return DOUBLE;
        }
        if (type instanceof DecimalType) {
            return DECIMAL;
        }
        throw new TrinoException(NOT_SUPPORTED, "%s does not support type %s; use bigint, integer, smallint, tinyint, double or decimal".formatted(function.name().toLowerCase(Locale.ROOT), type));
    }

    Type sumType(Type inputType)
    {
        return switch (this) {
            case LONG -> BIGINT;
            case DOUBLE -> DoubleType.DOUBLE;
            case DECIMAL -> DecimalType.createDecimalType(Decimals.MAX_PRECISION, ((DecimalType) inputType).getScale());
        };
    }
}
