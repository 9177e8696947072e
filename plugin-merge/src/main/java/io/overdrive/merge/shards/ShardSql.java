package io.overdrive.merge.shards;

import io.overdrive.merge.shards.ShardsTableHandle.SortColumn;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortOrder;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkState;
import static io.overdrive.merge.shards.ShardValues.literal;
import static io.overdrive.merge.shards.ShardValues.quoted;
import static io.overdrive.merge.shards.ShardValues.wire;
import static java.util.stream.Collectors.joining;

/**
 * The SQL a shard runs for a table handle. Values in filters are written as {@code CAST('text' AS type)} (varbinary as
 * {@code X'hex'}), which is exact for every type whose filters are sent; columns are selected in their
 * {@linkplain ShardValues#wire wire form}.
 */
final class ShardSql
{
    private ShardSql() {}

    static String tableName(String catalog, SchemaTableName table)
    {
        return quoted(catalog) + "." + quoted(table.getSchemaName()) + "." + quoted(table.getTableName());
    }

    /**
     * {@code SELECT columns FROM table WHERE constraint [ORDER BY ...] [LIMIT n]}; no columns selects a constant, so
     * the rows can still be counted.
     */
    static String select(String catalog, ShardsTableHandle table, List<ShardsColumnHandle> columns)
    {
        return select(catalog, table, columns, true);
    }

    /**
     * {@link #select}, with the columns as they are (not in their wire form): the statistics of the query's rows,
     * named by column.
     */
    static String selectColumns(String catalog, ShardsTableHandle table, List<ShardsColumnHandle> columns)
    {
        return select(catalog, table, columns, false);
    }

    private static String select(String catalog, ShardsTableHandle table, List<ShardsColumnHandle> columns, boolean wire)
    {
        StringBuilder sql = new StringBuilder("SELECT ");
        sql.append(columns.isEmpty() ? "true" : columns.stream().map(column -> wire ? wire(column.type(), quoted(column.name())) : quoted(column.name())).collect(joining(", ")));
        sql.append(" FROM ").append(tableName(catalog, table.table()));
        where(table.constraint()).ifPresentOrElse(predicate -> sql.append(" WHERE ").append(predicate), () -> {});
        table.topN().ifPresent(sortColumns -> sql.append(" ORDER BY ").append(sortColumns.stream().map(ShardSql::orderBy).collect(joining(", "))));
        table.limit().ifPresent(limit -> sql.append(" LIMIT ").append(limit));
        return sql.toString();
    }

    /**
     * Each shard's partial aggregation, its rows sorted by the group keys as the merge needs them. A global
     * aggregation selects a constant first column, the merge's sort key.
     */
    static String aggregate(String catalog, ShardsTableHandle table)
    {
        ShardsTableHandle.Aggregation aggregation = table.aggregation().orElseThrow();
        List<String> select = new ArrayList<>();
        if (aggregation.groupKeys().isEmpty()) {
            select.add("BIGINT '0'");
        }
        aggregation.groupKeys().forEach(key -> select.add(wire(key.type(), quoted(key.name()))));
        for (PushedAggregate aggregate : aggregation.aggregates()) {
            select.addAll(List.of(aggregate.stateExpressions()));
        }
        StringBuilder sql = new StringBuilder("SELECT ").append(String.join(", ", select));
        sql.append(" FROM ").append(tableName(catalog, table.table()));
        where(table.constraint()).ifPresentOrElse(predicate -> sql.append(" WHERE ").append(predicate), () -> {});
        if (!aggregation.groupKeys().isEmpty()) {
            String keys = aggregation.groupKeys().stream().map(key -> quoted(key.name())).collect(joining(", "));
            sql.append(" GROUP BY ").append(keys);
            sql.append(" ORDER BY ").append(aggregation.groupKeys().stream()
                    .map(key -> orderBy(new SortColumn(key, SortOrder.ASC_NULLS_LAST)))
                    .collect(joining(", ")));
        }
        return sql.toString();
    }

    private static String orderBy(SortColumn sortColumn)
    {
        SortOrder order = sortColumn.order();
        return "%s %s NULLS %s".formatted(quoted(sortColumn.column().name()), order.isAscending() ? "ASC" : "DESC", order.isNullsFirst() ? "FIRST" : "LAST");
    }

    static Optional<String> where(TupleDomain<ShardsColumnHandle> constraint)
    {
        if (constraint.isNone()) {
            return Optional.of("false");
        }
        Map<ShardsColumnHandle, Domain> domains = constraint.getDomains().orElseThrow();
        if (domains.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(domains.entrySet().stream()
                .map(entry -> predicate(entry.getKey(), entry.getValue()))
                .collect(joining(" AND ")));
    }

    private static String predicate(ShardsColumnHandle column, Domain domain)
    {
        String name = quoted(column.name());
        if (domain.getValues().isNone()) {
            return domain.isNullAllowed() ? name + " IS NULL" : "false";
        }
        if (domain.getValues().isAll()) {
            return domain.isNullAllowed() ? "true" : name + " IS NOT NULL";
        }
        String predicate = predicate(column, domain.getValues());
        return domain.isNullAllowed() ? "(%s OR %s IS NULL)".formatted(predicate, name) : predicate;
    }

    private static String predicate(ShardsColumnHandle column, ValueSet values)
    {
        String name = quoted(column.name());
        List<String> disjuncts = new ArrayList<>();
        List<String> singleValues = new ArrayList<>();
        for (Range range : values.getRanges().getOrderedRanges()) {
            checkState(!range.isAll(), "a range of all values is handled before");
            if (range.isSingleValue()) {
                singleValues.add(literal(column.type(), range.getSingleValue()));
                continue;
            }
            List<String> bounds = new ArrayList<>();
            if (!range.isLowUnbounded()) {
                bounds.add("%s %s %s".formatted(name, range.isLowInclusive() ? ">=" : ">", literal(column.type(), range.getLowBoundedValue())));
            }
            if (!range.isHighUnbounded()) {
                bounds.add("%s %s %s".formatted(name, range.isHighInclusive() ? "<=" : "<", literal(column.type(), range.getHighBoundedValue())));
            }
            disjuncts.add(bounds.size() == 1 ? bounds.getFirst() : "(" + String.join(" AND ", bounds) + ")");
        }
        if (singleValues.size() == 1) {
            disjuncts.add(name + " = " + singleValues.getFirst());
        }
        else if (singleValues.size() > 1) {
            disjuncts.add(name + " IN (" + String.join(", ", singleValues) + ")");
        }
        return disjuncts.size() == 1 ? disjuncts.getFirst() : "(" + String.join(" OR ", disjuncts) + ")";
    }
}
