package io.overdrive.cache.warmup;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.airlift.slice.Slice;
import io.overdrive.cache.page.PageCacheConfig;
import io.trino.metastore.Column;
import io.trino.metastore.HiveMetastore;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.metastore.Table;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.function.table.AbstractConnectorTableFunction;
import io.trino.spi.function.table.Argument;
import io.trino.spi.function.table.Descriptor;
import io.trino.spi.function.table.ReturnTypeSpecification.DescribedTable;
import io.trino.spi.function.table.ScalarArgument;
import io.trino.spi.function.table.ScalarArgumentSpecification;
import io.trino.spi.function.table.TableFunctionAnalysis;
import io.trino.spi.type.ArrayType;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.StandardErrorCode.INVALID_FUNCTION_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_FOUND;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Locale.ENGLISH;
import static java.util.Objects.requireNonNull;

/**
 * {@code SELECT * FROM TABLE(<catalog>.system.warm_cache(schema_name => 's', table_name => 't', columns => ARRAY['a'],
 * partitions => ARRAY['ds=2026-11-*']))}: reads a table's data (optionally some columns, some partitions) into the page
 * caches of the workers that soft affinity places each file on, as a query of those columns would read it, without the
 * admission rule. Returns a row per split: the worker, the file and range, whether that worker caches it, the bytes
 * it read from storage and from the cache, and the time taken. Repeating it reads from the cache.
 * <p>
 * It takes what {@code SELECT} of the columns takes. It is a query: it can be cancelled, and it runs under the
 * catalog's and the session's settings (placement, hedging, shared scans).
 */
public class WarmCacheTableFunction
        extends AbstractConnectorTableFunction
{
    public static final String SCHEMA = "system";
    public static final String NAME = "warm_cache";
    public static final Descriptor RESULT = Descriptor.descriptor(
            List.of("node_id", "path", "start", "length", "cached_here", "rows", "bytes_from_storage", "bytes_from_cache", "millis"),
            List.of(VARCHAR, VARCHAR, BIGINT, BIGINT, BOOLEAN, BIGINT, BIGINT, BIGINT, BIGINT));
    private static final ArrayType NAMES = new ArrayType(VARCHAR);

    private final HiveMetastoreFactory metastoreFactory;
    private final boolean cacheEnabled;

    @Inject
    public WarmCacheTableFunction(HiveMetastoreFactory metastoreFactory, PageCacheConfig pageCache)
    {
        super(SCHEMA, NAME, List.of(
                        ScalarArgumentSpecification.builder().name("SCHEMA_NAME").type(VARCHAR).build(),
                        ScalarArgumentSpecification.builder().name("TABLE_NAME").type(VARCHAR).build(),
                        ScalarArgumentSpecification.builder().name("COLUMNS").type(NAMES).defaultValue(null).build(),
                        ScalarArgumentSpecification.builder().name("PARTITIONS").type(NAMES).defaultValue(null).build()),
                new DescribedTable(RESULT),
                "Read a table's data into Overdrive's page cache on the workers that soft affinity prefers");
        this.metastoreFactory = requireNonNull(metastoreFactory, "metastoreFactory is null");
        this.cacheEnabled = pageCache.isEnabled();
    }

    @Override
    public TableFunctionAnalysis analyze(ConnectorSession session, ConnectorTransactionHandle transaction, Map<String, Argument> arguments, ConnectorAccessControl accessControl)
    {
        if (!cacheEnabled) {
            throw new TrinoException(NOT_SUPPORTED, "warm_cache: this catalog has no page cache to warm (cache.enabled=false)");
        }
        String schema = string(arguments, "SCHEMA_NAME")
                .orElseThrow(() -> new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: schema_name is required"));
        String tableName = string(arguments, "TABLE_NAME")
                .orElseThrow(() -> new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: table_name is required"));
        HiveMetastore metastore = metastoreFactory.createMetastore(Optional.of(session.getIdentity()));
        Table table = metastore.getTable(schema, tableName)
                .orElseThrow(() -> new TrinoException(NOT_FOUND, "warm_cache: table %s.%s does not exist".formatted(schema, tableName)));

        if (table.getTableType().equals("VIRTUAL_VIEW") || table.getTableType().equals("MATERIALIZED_VIEW")) {
            throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: %s.%s is a view, which has no files of its own: warm its tables".formatted(schema, tableName));
        }
        List<String> dataColumns = table.getDataColumns().stream().map(Column::getName).collect(toImmutableList());
        List<String> columns = names(arguments, "COLUMNS").stream().map(name -> name.toLowerCase(ENGLISH)).distinct().collect(toImmutableList());
        for (String column : columns) {
            if (!dataColumns.contains(column)) {
                String kind = table.getPartitionColumns().stream().anyMatch(partition -> partition.getName().equals(column)) ? "is a partition column, which is not stored in the files" : "does not exist";
                throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: column %s of %s.%s %s; columns: %s".formatted(column, schema, tableName, kind, dataColumns));
            }
        }
        List<String> partitions = names(arguments, "PARTITIONS");
        if (!partitions.isEmpty() && table.getPartitionColumns().isEmpty()) {
            throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: %s.%s is not partitioned: remove partitions".formatted(schema, tableName));
        }
        // what SELECT of those columns takes (all of them when none are named)
        Set<String> read = new LinkedHashSet<>(columns.isEmpty() ? dataColumns : columns);
        accessControl.checkCanSelectFromColumns(null, table.getSchemaTableName(), Optional.empty(), read);
        return TableFunctionAnalysis.builder()
                .handle(new WarmCacheHandle(schema, tableName, columns, partitions, transaction))
                .build();
    }

    private static Optional<String> string(Map<String, Argument> arguments, String name)
    {
        Object value = ((ScalarArgument) arguments.get(name)).getValue();
        return Optional.ofNullable((Slice) value).map(Slice::toStringUtf8).map(String::strip).filter(text -> !text.isEmpty());
    }

    private static List<String> names(Map<String, Argument> arguments, String name)
    {
        Block block = (Block) ((ScalarArgument) arguments.get(name)).getValue();
        if (block == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (int position = 0; position < block.getPositionCount(); position++) {
            if (block.isNull(position)) {
                throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: %s holds a NULL".formatted(name.toLowerCase(ENGLISH)));
            }
            String value = VARCHAR.getSlice(block, position).toStringUtf8().strip();
            if (value.isEmpty()) {
                throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "warm_cache: %s holds an empty name".formatted(name.toLowerCase(ENGLISH)));
            }
            names.add(value);
        }
        return ImmutableList.copyOf(names);
    }
}
