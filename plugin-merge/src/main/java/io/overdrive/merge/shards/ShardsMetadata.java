package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.log.Logger;
import io.overdrive.merge.combine.AggregationFunction;
import io.overdrive.merge.combine.AggregationPlan;
import io.overdrive.merge.shards.ShardsTableHandle.SortColumn;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SchemaTablePrefix;
import io.trino.spi.connector.SortItem;
import io.trino.spi.connector.TopNApplicationResult;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Variable;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeOperators;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.overdrive.merge.shards.ShardValues.quoted;
import static io.overdrive.merge.shards.ShardValues.stringLiteral;
import static io.overdrive.merge.shards.ShardsErrorCode.SHARD_SCHEMA_MISMATCH;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * A shards catalog's tables: each is the union of the same-named table on every shard, whose columns must agree.
 * Filters, limits, TopN and aggregations are pushed down to the shards.
 */
public final class ShardsMetadata
        implements ConnectorMetadata
{
    private static final Logger log = Logger.get(ShardsMetadata.class);
    private static final String AGGREGATE_COLUMN_PREFIX = "$overdrive_aggregate_";

    private final ShardsRemote remote;
    private final ShardTopology topology;
    private final TypeManager typeManager;
    private final TypeOperators typeOperators;
    // one transaction's view of the shards' tables
    private final Map<SchemaTableName, Optional<List<ShardsColumnHandle>>> tables = new ConcurrentHashMap<>();

    public ShardsMetadata(ShardsRemote remote, ShardTopology topology, TypeManager typeManager, TypeOperators typeOperators)
    {
        this.remote = requireNonNull(remote, "remote is null");
        this.topology = requireNonNull(topology, "topology is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.typeOperators = requireNonNull(typeOperators, "typeOperators is null");
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session)
    {
        if (topology.fixedSchema().isPresent()) {
            return ImmutableList.of(topology.fixedSchema().get());
        }
        return remote.queryFirst(session, List.of(VARCHAR), catalog -> "SELECT schema_name FROM %s.information_schema.schemata WHERE schema_name <> 'information_schema' ORDER BY 1".formatted(quoted(catalog))).stream()
                .map(row -> (String) row.getFirst())
                .collect(toImmutableList());
    }

    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName)
    {
        Optional<String> schema = schemaName.or(topology::fixedSchema);
        if (schema.isPresent() && !isServed(schema.get())) {
            return ImmutableList.of();
        }
        return remote.queryFirst(session, List.of(VARCHAR, VARCHAR), catalog -> "SELECT table_schema, table_name FROM %s.information_schema.tables WHERE table_schema <> 'information_schema'%s ORDER BY 1, 2".formatted(
                        quoted(catalog), schema.map(name -> " AND table_schema = " + stringLiteral(name)).orElse(""))).stream()
                .map(row -> new SchemaTableName((String) row.get(0), (String) row.get(1)))
                .collect(toImmutableList());
    }

    @Override
    public ConnectorTableHandle getTableHandle(ConnectorSession session, SchemaTableName tableName, Optional<ConnectorTableVersion> startVersion, Optional<ConnectorTableVersion> endVersion)
    {
        if (startVersion.isPresent() || endVersion.isPresent()) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support versioned tables");
        }
        if (!isServed(tableName.getSchemaName())) {
            return null;
        }
        return columns(session, tableName)
                .map(columns -> new ShardsTableHandle(tableName, columns))
                .orElse(null);
    }

    private boolean isServed(String schema)
    {
        return topology.fixedSchema().map(schema::equals).orElse(true);
    }

    private Optional<List<ShardsColumnHandle>> columns(ConnectorSession session, SchemaTableName tableName)
    {
        return tables.computeIfAbsent(tableName, name -> resolveColumns(session, name));
    }

    /**
     * Asks every shard for the table's columns; they must agree (names, order and types), or the query fails naming
     * the shard, the column and both types.
     */
    private Optional<List<ShardsColumnHandle>> resolveColumns(ConnectorSession session, SchemaTableName tableName)
    {
        Map<Shard, List<List<Object>>> answers = remote.queryEach(session, List.of(VARCHAR, VARCHAR), catalog -> "SELECT column_name, data_type FROM %s.information_schema.columns WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position".formatted(
                quoted(catalog), stringLiteral(tableName.getSchemaName()), stringLiteral(tableName.getTableName())));
        Shard reference = null;
        Map<String, String> referenceColumns = null;
        for (Map.Entry<Shard, List<List<Object>>> answer : answers.entrySet()) {
            Map<String, String> columns = new LinkedHashMap<>();
            answer.getValue().forEach(row -> columns.put((String) row.get(0), (String) row.get(1)));
            if (reference == null) {
                reference = answer.getKey();
                referenceColumns = columns;
                continue;
            }
            checkSame(tableName, reference, referenceColumns, answer.getKey(), columns);
        }
        if (referenceColumns == null || referenceColumns.isEmpty()) {
            return Optional.empty();
        }
        ImmutableList.Builder<ShardsColumnHandle> handles = ImmutableList.builder();
        for (Map.Entry<String, String> column : referenceColumns.entrySet()) {
            Type type;
            try {
                type = typeManager.fromSqlType(column.getValue());
            }
            catch (RuntimeException e) {
                throw new TrinoException(NOT_SUPPORTED, "Table %s: column '%s' has type %s, which this Trino server does not know (the plugin that provides it is not installed)".formatted(
                        tableName, column.getKey(), column.getValue()), e);
            }
            // every column is served; one whose values cannot be read fails the queries that read it (see ShardsPageSourceProvider)
            handles.add(new ShardsColumnHandle(column.getKey(), type));
        }
        return Optional.of(handles.build());
    }

    private static void checkSame(SchemaTableName table, Shard first, Map<String, String> firstColumns, Shard other, Map<String, String> otherColumns)
    {
        if (firstColumns.isEmpty() != otherColumns.isEmpty()) {
            Shard has = firstColumns.isEmpty() ? other : first;
            Shard lacks = firstColumns.isEmpty() ? first : other;
            throw new TrinoException(SHARD_SCHEMA_MISMATCH, "Table %s exists on %s but not on %s; every shard must hold the table".formatted(table, has.describe(), lacks.describe()));
        }
        for (Map.Entry<String, String> column : firstColumns.entrySet()) {
            String otherType = otherColumns.get(column.getKey());
            if (otherType == null) {
                throw new TrinoException(SHARD_SCHEMA_MISMATCH, "Table %s: column '%s' exists on %s but not on %s".formatted(table, column.getKey(), first.describe(), other.describe()));
            }
            if (!otherType.equals(column.getValue())) {
                throw new TrinoException(SHARD_SCHEMA_MISMATCH, "Table %s: column '%s' is %s on %s but %s on %s; the shards' column types must agree".formatted(
                        table, column.getKey(), column.getValue(), first.describe(), otherType, other.describe()));
            }
        }
        for (String column : otherColumns.keySet()) {
            if (!firstColumns.containsKey(column)) {
                throw new TrinoException(SHARD_SCHEMA_MISMATCH, "Table %s: column '%s' exists on %s but not on %s".formatted(table, column, other.describe(), first.describe()));
            }
        }
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle table)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        return new ConnectorTableMetadata(handle.table(), handle.columns().stream().map(ShardsColumnHandle::toColumnMetadata).collect(toImmutableList()));
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle table)
    {
        ImmutableMap.Builder<String, ColumnHandle> columns = ImmutableMap.builder();
        ((ShardsTableHandle) table).columns().forEach(column -> columns.put(column.name(), column));
        return columns.buildOrThrow();
    }

    @Override
    public ColumnMetadata getColumnMetadata(ConnectorSession session, ConnectorTableHandle table, ColumnHandle column)
    {
        return ((ShardsColumnHandle) column).toColumnMetadata();
    }

    @Override
    public Map<SchemaTableName, List<ColumnMetadata>> listTableColumns(ConnectorSession session, SchemaTablePrefix prefix)
    {
        List<SchemaTableName> names = prefix.getTable().isPresent()
                ? ImmutableList.of(prefix.toSchemaTableName())
                : listTables(session, prefix.getSchema());
        ImmutableMap.Builder<SchemaTableName, List<ColumnMetadata>> result = ImmutableMap.builder();
        for (SchemaTableName name : names) {
            try {
                columns(session, name).ifPresent(columns -> result.put(name, columns.stream().map(ShardsColumnHandle::toColumnMetadata).collect(toImmutableList())));
            }
            catch (TrinoException e) {
                // one table the shards disagree about must not hide the others from information_schema
                log.warn("Skipping %s in the column listing: %s", name, e.getMessage());
            }
        }
        return result.buildOrThrow();
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        if (handle.isMerged() || handle.limit().isPresent()) {
            return TableStatistics.empty();
        }
        return remote.statistics(session, handle);
    }

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle table, Constraint constraint)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        // a filter above a limit, a TopN or an aggregation is not a filter of the shards' rows
        if (handle.isMerged() || handle.limit().isPresent()) {
            return Optional.empty();
        }
        TupleDomain<ShardsColumnHandle> summary = constraint.getSummary().transformKeys(ShardsColumnHandle.class::cast);
        // a domain the shards cannot be sent (values without SQL literals: arrays, maps, rows, ...) stays with Trino
        TupleDomain<ShardsColumnHandle> pushed = summary.filter((column, domain) -> isPushable(column, domain));
        TupleDomain<ColumnHandle> remaining = summary.filter((column, domain) -> !isPushable(column, domain)).transformKeys(ColumnHandle.class::cast);
        TupleDomain<ShardsColumnHandle> combined = handle.constraint().intersect(pushed);
        if (combined.equals(handle.constraint())) {
            return Optional.empty();
        }
        return Optional.of(new ConstraintApplicationResult<>(handle.withConstraint(combined), remaining, constraint.getExpression(), false));
    }

    // IS NULL and IS NOT NULL can be sent for every type; other domains need the values' literals
    private static boolean isPushable(ShardsColumnHandle column, Domain domain)
    {
        return ShardValues.hasLiterals(column.type()) || domain.getValues().isAll() || domain.getValues().isNone();
    }

    @Override
    public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(ConnectorSession session, ConnectorTableHandle table, long limit)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        if (handle.isMerged() || (handle.limit().isPresent() && handle.limit().getAsLong() <= limit)) {
            return Optional.empty();
        }
        // every shard returns up to the limit; Trino keeps the limit over their union
        return Optional.of(new LimitApplicationResult<>(handle.withLimit(limit), false, false));
    }

    @Override
    public Optional<TopNApplicationResult<ConnectorTableHandle>> applyTopN(ConnectorSession session, ConnectorTableHandle table, long topNCount, List<SortItem> sortItems, Map<String, ColumnHandle> assignments)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        if (!ShardsSessionProperties.isTopNPushdown(session) || handle.isMerged() || handle.limit().isPresent()) {
            return Optional.empty();
        }
        List<SortColumn> sortColumns = new ArrayList<>();
        for (SortItem item : sortItems) {
            ShardsColumnHandle column = (ShardsColumnHandle) assignments.get(item.getName());
            if (column == null || !ShardValues.isMergeable(column.type())) {
                return Optional.empty();
            }
            sortColumns.add(new SortColumn(column, item.getSortOrder()));
        }
        // each shard returns its sorted top N; one split merges them in order and stops after N rows
        return Optional.of(new TopNApplicationResult<>(handle.withTopN(topNCount, sortColumns), true, false));
    }

    @Override
    public Optional<AggregationApplicationResult<ConnectorTableHandle>> applyAggregation(
            ConnectorSession session,
            ConnectorTableHandle table,
            List<AggregateFunction> aggregates,
            Map<String, ColumnHandle> assignments,
            List<List<ColumnHandle>> groupingSets)
    {
        ShardsTableHandle handle = (ShardsTableHandle) table;
        if (!ShardsSessionProperties.isAggregationPushdown(session) || handle.isMerged() || handle.limit().isPresent() || groupingSets.size() != 1) {
            return Optional.empty();
        }
        List<ShardsColumnHandle> groupKeys = groupingSets.getFirst().stream().map(ShardsColumnHandle.class::cast).collect(toImmutableList());
        if (!groupKeys.stream().allMatch(key -> ShardValues.isMergeable(key.type()))) {
            return Optional.empty();
        }
        ImmutableList.Builder<PushedAggregate> pushed = ImmutableList.builder();
        ImmutableList.Builder<ConnectorExpression> projections = ImmutableList.builder();
        ImmutableList.Builder<Assignment> newAssignments = ImmutableList.builder();
        for (int i = 0; i < aggregates.size(); i++) {
            AggregateFunction aggregate = aggregates.get(i);
            Optional<PushedAggregate> resolved = resolve(aggregate, assignments, AGGREGATE_COLUMN_PREFIX + i);
            if (resolved.isEmpty()) {
                return Optional.empty();
            }
            ShardsColumnHandle output = resolved.get().output();
            pushed.add(resolved.get());
            projections.add(new Variable(output.name(), output.type()));
            newAssignments.add(new Assignment(output.name(), output, output.type()));
        }
        ImmutableMap.Builder<ColumnHandle, ColumnHandle> groupingColumns = ImmutableMap.builder();
        groupKeys.forEach(key -> groupingColumns.put(key, key));
        ShardsTableHandle aggregated = handle.withAggregation(new ShardsTableHandle.Aggregation(groupKeys, pushed.build()));
        return Optional.of(new AggregationApplicationResult<>(aggregated, projections.build(), newAssignments.build(), groupingColumns.buildOrThrow(), false));
    }

    /**
     * The aggregate as the shards compute it, when the merge can finish it with exactly Trino's result type.
     */
    private Optional<PushedAggregate> resolve(AggregateFunction aggregate, Map<String, ColumnHandle> assignments, String outputName)
    {
        if (aggregate.isDistinct() || aggregate.getFilter().isPresent() || !aggregate.getSortItems().isEmpty()) {
            return Optional.empty();
        }
        AggregationFunction function = switch (aggregate.getFunctionName()) {
            case "count" -> AggregationFunction.COUNT;
            case "sum" -> AggregationFunction.SUM;
            case "min" -> AggregationFunction.MIN;
            case "max" -> AggregationFunction.MAX;
            case "avg" -> AggregationFunction.AVG;
            default -> null;
        };
        if (function == null || aggregate.getArguments().size() > 1 || (aggregate.getArguments().isEmpty() && function != AggregationFunction.COUNT)) {
            return Optional.empty();
        }
        Optional<ShardsColumnHandle> argument = Optional.empty();
        if (!aggregate.getArguments().isEmpty()) {
            if (!(aggregate.getArguments().getFirst() instanceof Variable variable) || !(assignments.get(variable.getName()) instanceof ShardsColumnHandle column)) {
                return Optional.empty();
            }
            argument = Optional.of(column);
        }
        if (argument.isPresent() && !PushedAggregate.isPushable(function, argument.get().type())) {
            return Optional.empty();
        }
        Type outputType = aggregate.getOutputType();
        PushedAggregate pushed = new PushedAggregate(function, argument, new ShardsColumnHandle(outputName, outputType));
        if (!finalType(pushed).map(outputType::equals).orElse(false)) {
            return Optional.empty();
        }
        return Optional.of(pushed);
    }

    // the type the merge's final step produces from the shards' partial states; empty when it cannot fold them
    private Optional<Type> finalType(PushedAggregate aggregate)
    {
        try {
            return Optional.of(AggregationPlan.resolve(aggregate.combine(0), aggregate.stateTypes(), true, typeOperators).finalType());
        }
        catch (TrinoException e) {
            return Optional.empty();
        }
    }
}
