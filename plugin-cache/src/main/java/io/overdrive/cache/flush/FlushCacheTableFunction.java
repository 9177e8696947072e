package io.overdrive.cache.flush;

import io.airlift.slice.Slice;
import io.trino.metastore.Database;
import io.trino.metastore.HiveMetastore;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.spi.TrinoException;
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

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.INVALID_FUNCTION_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_FOUND;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code SELECT * FROM TABLE(<catalog>.system.flush_cache(schema_name => 's', table_name => 't'))}: empties Overdrive's
 * page cache on every worker, for one table, one schema, or (no arguments) everything. Returns a row per worker.
 */
public class FlushCacheTableFunction
        extends AbstractConnectorTableFunction
{
    public static final String SCHEMA = "system";
    public static final String NAME = "flush_cache";
    public static final Descriptor RESULT = Descriptor.descriptor(List.of("node_id", "bytes_cached_before", "bytes_cached_after"), List.of(VARCHAR, BIGINT, BIGINT));

    private final HiveMetastoreFactory metastoreFactory;

    public FlushCacheTableFunction(HiveMetastoreFactory metastoreFactory)
    {
        super(SCHEMA, NAME, List.of(
                        ScalarArgumentSpecification.builder().name("SCHEMA_NAME").type(VARCHAR).defaultValue(null).build(),
                        ScalarArgumentSpecification.builder().name("TABLE_NAME").type(VARCHAR).defaultValue(null).build()),
                new DescribedTable(RESULT),
                "Remove Overdrive's cached pages on every worker: of one table, one schema, or all");
        this.metastoreFactory = requireNonNull(metastoreFactory, "metastoreFactory is null");
    }

    @Override
    public TableFunctionAnalysis analyze(ConnectorSession session, ConnectorTransactionHandle transaction, Map<String, Argument> arguments, ConnectorAccessControl accessControl)
    {
        Optional<String> schema = stringArgument(arguments, "SCHEMA_NAME");
        Optional<String> table = stringArgument(arguments, "TABLE_NAME");
        FlushCacheHandle handle;
        if (schema.isEmpty()) {
            if (table.isPresent()) {
                throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "flush_cache: table_name needs schema_name too");
            }
            handle = new FlushCacheHandle(true, List.of());
        }
        else {
            HiveMetastore metastore = metastoreFactory.createMetastore(Optional.of(session.getIdentity()));
            String location = table.isPresent()
                    ? metastore.getTable(schema.get(), table.get()).map(found -> found.getStorage().getLocation())
                            .orElseThrow(() -> new TrinoException(NOT_FOUND, "flush_cache: table %s.%s does not exist".formatted(schema.get(), table.get())))
                    : metastore.getDatabase(schema.get()).flatMap(Database::getLocation)
                            .orElseThrow(() -> new TrinoException(NOT_FOUND, "flush_cache: schema %s does not exist or has no location".formatted(schema.get())));
            handle = new FlushCacheHandle(false, List.of(location));
        }
        // the result's columns are declared once, by the DescribedTable return type
        return TableFunctionAnalysis.builder()
                .handle(handle)
                .build();
    }

    private static Optional<String> stringArgument(Map<String, Argument> arguments, String name)
    {
        Object value = ((ScalarArgument) arguments.get(name)).getValue();
        return Optional.ofNullable((Slice) value).map(Slice::toStringUtf8).map(String::strip).filter(text -> !text.isEmpty());
    }
}
