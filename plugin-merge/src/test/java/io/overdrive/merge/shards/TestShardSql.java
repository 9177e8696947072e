package io.overdrive.merge.shards;

import io.airlift.slice.Slices;
import io.overdrive.merge.combine.AggregationFunction;
import io.overdrive.merge.shards.ShardsTableHandle.SortColumn;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Int128;
import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static org.assertj.core.api.Assertions.assertThat;

class TestShardSql
{
    private static final ShardsColumnHandle KEY = new ShardsColumnHandle("orderkey", BIGINT);
    private static final ShardsColumnHandle STATUS = new ShardsColumnHandle("order\"status", createVarcharType(1));
    private static final ShardsColumnHandle DAY = new ShardsColumnHandle("orderdate", DATE);
    private static final ShardsColumnHandle PRICE = new ShardsColumnHandle("price", DOUBLE);
    private static final ShardsTableHandle TABLE = new ShardsTableHandle(new SchemaTableName("sales", "orders"), List.of(KEY, STATUS, DAY, PRICE));

    @Test
    void testScan()
    {
        assertThat(ShardSql.select("hive", TABLE, List.of(KEY, STATUS)))
                .isEqualTo("SELECT \"orderkey\", \"order\"\"status\" FROM \"hive\".\"sales\".\"orders\"");
        // no columns: a constant, so that the rows can be counted
        assertThat(ShardSql.select("hive", TABLE.withLimit(10), List.of()))
                .isEqualTo("SELECT true FROM \"hive\".\"sales\".\"orders\" LIMIT 10");
    }

    @Test
    void testFilters()
    {
        TupleDomain<ShardsColumnHandle> constraint = TupleDomain.withColumnDomains(Map.of(
                KEY, Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, 10L), Range.range(BIGINT, 20L, true, 30L, false), Range.equal(BIGINT, 40L), Range.equal(BIGINT, 50L)), true)));
        assertThat(ShardSql.where(constraint)).contains(
                "((\"orderkey\" < CAST('10' AS bigint) OR (\"orderkey\" >= CAST('20' AS bigint) AND \"orderkey\" < CAST('30' AS bigint)) OR \"orderkey\" IN (CAST('40' AS bigint), CAST('50' AS bigint))) OR \"orderkey\" IS NULL)");
        assertThat(ShardSql.where(TupleDomain.withColumnDomains(Map.of(STATUS, Domain.singleValue(createVarcharType(1), Slices.utf8Slice("'"))))))
                .contains("\"order\"\"status\" = CAST('''' AS varchar(1))");
        assertThat(ShardSql.where(TupleDomain.withColumnDomains(Map.of(DAY, Domain.create(ValueSet.ofRanges(Range.greaterThan(DATE, LocalDate.of(1998, 1, 1).toEpochDay())), false)))))
                .contains("\"orderdate\" > CAST('1998-01-01' AS date)");
        assertThat(ShardSql.where(TupleDomain.withColumnDomains(Map.of(PRICE, Domain.onlyNull(DOUBLE))))).contains("\"price\" IS NULL");
        assertThat(ShardSql.where(TupleDomain.withColumnDomains(Map.of(PRICE, Domain.notNull(DOUBLE))))).contains("\"price\" IS NOT NULL");
        assertThat(ShardSql.where(TupleDomain.none())).contains("false");
        assertThat(ShardSql.where(TupleDomain.all())).isEmpty();
    }

    @Test
    void testLiteralsOfEveryServedType()
    {
        assertThat(ShardValues.literal(DOUBLE, Double.NaN)).isEqualTo("CAST('NaN' AS double)");
        assertThat(ShardValues.literal(REAL, (long) Float.floatToRawIntBits(1.5f))).isEqualTo("CAST('1.5' AS real)");
        assertThat(ShardValues.literal(createDecimalType(12, 2), 12345L)).isEqualTo("CAST('123.45' AS decimal(12,2))");
        assertThat(ShardValues.literal(createDecimalType(30, 3), Int128.valueOf(-1234567L))).isEqualTo("CAST('-1234.567' AS decimal(30,3))");
        assertThat(ShardValues.literal(TIMESTAMP_MICROS, 1_000_123L)).isEqualTo("CAST('1970-01-01 00:00:01.000123000000' AS timestamp(6))");
    }

    @Test
    void testStringLiteralsAreNotTruncatedToTheColumnsLength()
    {
        // a varchar(3) or char(3) domain can hold a longer value (c = 'abcd'); CAST('abcd' AS varchar(3)) would be 'abc'
        assertThat(ShardValues.literal(createVarcharType(3), Slices.utf8Slice("abcd"))).isEqualTo("CAST('abcd' AS varchar)");
        assertThat(ShardValues.literal(createVarcharType(3), Slices.utf8Slice("äöü"))).isEqualTo("CAST('äöü' AS varchar(3))");
        assertThat(ShardValues.literal(createVarcharType(3), Slices.utf8Slice("äöüß"))).isEqualTo("CAST('äöüß' AS varchar)");
        assertThat(ShardValues.literal(createCharType(3), Slices.utf8Slice("abcd"))).isEqualTo("CAST('abcd' AS char(4))");
        assertThat(ShardValues.literal(createCharType(3), Slices.utf8Slice("ab"))).isEqualTo("CAST('ab' AS char(3))");
        ShardsColumnHandle code = new ShardsColumnHandle("code", createVarcharType(3));
        assertThat(ShardSql.where(TupleDomain.withColumnDomains(Map.of(code, Domain.create(ValueSet.ofRanges(Range.lessThan(createVarcharType(3), Slices.utf8Slice("abcd"))), false)))))
                .contains("\"code\" < CAST('abcd' AS varchar)");
    }

    @Test
    void testIntegerSumsAndAveragesCannotOverflowOnAShard()
    {
        ShardsTableHandle global = TABLE.withAggregation(new ShardsTableHandle.Aggregation(List.of(), List.of(
                new PushedAggregate(AggregationFunction.SUM, Optional.of(KEY), new ShardsColumnHandle("$a0", BIGINT)),
                new PushedAggregate(AggregationFunction.AVG, Optional.of(KEY), new ShardsColumnHandle("$a1", DOUBLE)))));
        assertThat(ShardSql.aggregate("hive", global))
                .isEqualTo("SELECT BIGINT '0', sum(CAST(\"orderkey\" AS decimal(38,0))), sum(CAST(\"orderkey\" AS double)), count(\"orderkey\") FROM \"hive\".\"sales\".\"orders\"");
    }

    @Test
    void testSumsOfDecimalsThatCouldOverflowOnAShardAreNotPushedDown()
    {
        // a shard's decimal(38, s) sum of up to 2^63 values cannot overflow for precisions up to 19
        assertThat(PushedAggregate.isPushable(AggregationFunction.SUM, createDecimalType(19, 2))).isTrue();
        assertThat(PushedAggregate.isPushable(AggregationFunction.AVG, createDecimalType(12, 2))).isTrue();
        assertThat(PushedAggregate.isPushable(AggregationFunction.SUM, createDecimalType(20, 2))).isFalse();
        assertThat(PushedAggregate.isPushable(AggregationFunction.AVG, createDecimalType(38, 0))).isFalse();
        assertThat(PushedAggregate.isPushable(AggregationFunction.MAX, createDecimalType(38, 0))).isTrue();
        assertThat(PushedAggregate.isPushable(AggregationFunction.SUM, REAL)).isFalse();
    }

    @Test
    void testTopNAndAggregation()
    {
        assertThat(ShardSql.select("hive", TABLE.withTopN(5, List.of(new SortColumn(PRICE, SortOrder.DESC_NULLS_FIRST), new SortColumn(KEY, SortOrder.ASC_NULLS_LAST))), List.of(KEY, PRICE)))
                .isEqualTo("SELECT \"orderkey\", \"price\" FROM \"hive\".\"sales\".\"orders\" ORDER BY \"price\" DESC NULLS FIRST, \"orderkey\" ASC NULLS LAST LIMIT 5");
        ShardsTableHandle grouped = TABLE.withAggregation(new ShardsTableHandle.Aggregation(List.of(STATUS), List.of(
                new PushedAggregate(AggregationFunction.COUNT, Optional.empty(), new ShardsColumnHandle("$a0", BIGINT)),
                new PushedAggregate(AggregationFunction.AVG, Optional.of(PRICE), new ShardsColumnHandle("$a1", DOUBLE)))));
        assertThat(ShardSql.aggregate("hive", grouped))
                .isEqualTo("SELECT \"order\"\"status\", count(*), sum(\"price\"), count(\"price\") FROM \"hive\".\"sales\".\"orders\" GROUP BY \"order\"\"status\" ORDER BY \"order\"\"status\" ASC NULLS LAST");
        ShardsTableHandle global = TABLE.withConstraint(TupleDomain.withColumnDomains(Map.of(KEY, Domain.singleValue(BIGINT, 7L))))
                .withAggregation(new ShardsTableHandle.Aggregation(List.of(), List.of(new PushedAggregate(AggregationFunction.MAX, Optional.of(DAY), new ShardsColumnHandle("$a0", DATE)))));
        assertThat(ShardSql.aggregate("hive", global))
                .isEqualTo("SELECT BIGINT '0', max(\"orderdate\") FROM \"hive\".\"sales\".\"orders\" WHERE \"orderkey\" = CAST('7' AS bigint)");
    }
}
