package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * A table that is the union of the same-named table on every shard, with what was pushed down to the shards: a
 * filter, a limit (per shard), a TopN (each shard's sorted top rows, merged in order) or an aggregation (each shard's
 * partial states sorted by the group keys, merged and combined).
 */
public record ShardsTableHandle(
        SchemaTableName table,
        List<ShardsColumnHandle> columns,
        TupleDomain<ShardsColumnHandle> constraint,
        OptionalLong limit,
        Optional<List<SortColumn>> topN,
        Optional<Aggregation> aggregation)
        implements ConnectorTableHandle
{
    public ShardsTableHandle
    {
        requireNonNull(table, "table is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(constraint, "constraint is null");
        requireNonNull(limit, "limit is null");
        requireNonNull(topN, "topN is null");
        requireNonNull(aggregation, "aggregation is null");
    }

    public ShardsTableHandle(SchemaTableName table, List<ShardsColumnHandle> columns)
    {
        this(table, columns, TupleDomain.all(), OptionalLong.empty(), Optional.empty(), Optional.empty());
    }

    /** Whether one split merges every shard's sorted result (TopN and aggregations), instead of one split per shard. */
    public boolean isMerged()
    {
        return topN.isPresent() || aggregation.isPresent();
    }

    // what EXPLAIN shows: the table and what the shards are asked to do
    @Override
    public String toString()
    {
        StringBuilder text = new StringBuilder(table.toString());
        if (!constraint.isAll()) {
            text.append(" filter=").append(constraint.isNone() ? "none" : constraint.getDomains().orElseThrow().keySet().stream().map(ShardsColumnHandle::name).toList());
        }
        aggregation.ifPresent(value -> text.append(" aggregation=").append(value));
        topN.ifPresent(value -> text.append(" topN=").append(value));
        limit.ifPresent(value -> text.append(" limit=").append(value));
        return text.toString();
    }

    public ShardsTableHandle withConstraint(TupleDomain<ShardsColumnHandle> constraint)
    {
        return new ShardsTableHandle(table, columns, constraint, limit, topN, aggregation);
    }

    public ShardsTableHandle withLimit(long limit)
    {
        return new ShardsTableHandle(table, columns, constraint, OptionalLong.of(limit), topN, aggregation);
    }

    public ShardsTableHandle withTopN(long count, List<SortColumn> sortColumns)
    {
        return new ShardsTableHandle(table, columns, constraint, OptionalLong.of(count), Optional.of(sortColumns), aggregation);
    }

    public ShardsTableHandle withAggregation(Aggregation aggregation)
    {
        return new ShardsTableHandle(table, columns, constraint, limit, topN, Optional.of(aggregation));
    }

    public record SortColumn(ShardsColumnHandle column, SortOrder order)
    {
        public SortColumn
        {
            requireNonNull(column, "column is null");
            requireNonNull(order, "order is null");
        }

        @Override
        public String toString()
        {
            return column.name() + " " + order;
        }
    }

    /**
     * A pushed-down aggregation: its group keys (none: a global aggregation) and aggregates.
     */
    public record Aggregation(List<ShardsColumnHandle> groupKeys, List<PushedAggregate> aggregates)
    {
        public Aggregation
        {
            groupKeys = ImmutableList.copyOf(groupKeys);
            aggregates = ImmutableList.copyOf(aggregates);
        }

        @Override
        public String toString()
        {
            return "groupBy=%s %s".formatted(groupKeys.stream().map(ShardsColumnHandle::name).toList(), aggregates);
        }
    }
}
