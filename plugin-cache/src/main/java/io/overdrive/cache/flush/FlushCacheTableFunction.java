package io.overdrive.cache.flush;

import com.google.inject.Inject;
import io.airlift.slice.Slice;
import io.overdrive.cache.flush.TableLocations.TableFiles;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SchemaRoutineName;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.function.table.AbstractConnectorTableFunction;
import io.trino.spi.function.table.Argument;
import io.trino.spi.function.table.Descriptor;
import io.trino.spi.function.table.ReturnTypeSpecification.DescribedTable;
import io.trino.spi.function.table.ScalarArgument;
import io.trino.spi.function.table.ScalarArgumentSpecification;
import io.trino.spi.function.table.TableFunctionAnalysis;

import java.util.ArrayList;
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
 * <p>
 * Flushing a table takes SELECT on all its columns, a schema SELECT on all columns of each of its tables, everything
 * the right to execute the procedure {@code <catalog>.system.flush_cache} ({@link #FLUSH_ALL_RIGHT}).
 */
public class FlushCacheTableFunction
        extends AbstractConnectorTableFunction
{
    public static final String SCHEMA = "system";
    public static final String NAME = "flush_cache";
    /**
     * The right that flushing everything requires: executing this procedure of the catalog. No procedure of that name
     * exists; the name gives Trino's access control (file-based {@code procedures} rules, for example) something to
     * grant or deny.
     */
    public static final SchemaRoutineName FLUSH_ALL_RIGHT = new SchemaRoutineName(SCHEMA, NAME);
    public static final Descriptor RESULT = Descriptor.descriptor(List.of("node_id", "bytes_cached_before", "bytes_cached_after"), List.of(VARCHAR, BIGINT, BIGINT));

    private final TableLocations tableLocations;

    @Inject
    public FlushCacheTableFunction(TableLocations tableLocations)
    {
        super(SCHEMA, NAME, List.of(
                        ScalarArgumentSpecification.builder().name("SCHEMA_NAME").type(VARCHAR).defaultValue(null).build(),
                        ScalarArgumentSpecification.builder().name("TABLE_NAME").type(VARCHAR).defaultValue(null).build()),
                new DescribedTable(RESULT),
                "Remove Overdrive's cached pages on every worker: of one table, one schema, or all");
        this.tableLocations = requireNonNull(tableLocations, "tableLocations is null");
    }

    @Override
    public TableFunctionAnalysis analyze(ConnectorSession session, ConnectorTransactionHandle transaction, Map<String, Argument> arguments, ConnectorAccessControl accessControl)
    {
        Optional<String> schema = stringArgument(arguments, "SCHEMA_NAME");
        Optional<String> table = stringArgument(arguments, "TABLE_NAME");
        // the checks run here, on the coordinator, before any worker is asked to flush. The engine passes an access
        // control bound to this query's identity (system and catalog rules) that expects a null context
        FlushCacheHandle handle;
        if (schema.isEmpty()) {
            if (table.isPresent()) {
                throw new TrinoException(INVALID_FUNCTION_ARGUMENT, "flush_cache: table_name needs schema_name too");
            }
            // everything: pages of every table and those recovered at startup, which carry no table at all, so no
            // table privilege covers it; the right to run the procedure <catalog>.system.flush_cache stands for it
            accessControl.checkCanExecuteProcedure(null, FLUSH_ALL_RIGHT);
            handle = new FlushCacheHandle(true, List.of());
        }
        else {
            List<String> locations;
            if (table.isPresent()) {
                TableFiles found = tableLocations.table(session, new SchemaTableName(schema.get(), table.get()))
                        .orElseThrow(() -> new TrinoException(NOT_FOUND, "flush_cache: table %s.%s does not exist".formatted(schema.get(), table.get())));
                checkCanSelectAllColumns(accessControl, found);
                locations = found.locations();
            }
            else {
                List<String> schemaLocations = new ArrayList<>();
                schemaLocations.add(tableLocations.schemaLocation(session, schema.get())
                        .orElseThrow(() -> new TrinoException(NOT_FOUND, "flush_cache: schema %s does not exist or has no location".formatted(schema.get()))));
                // Trino has no privilege on a schema's data, only on its tables: flushing the schema takes what
                // flushing each of its tables takes. Views have no files, and a table dropped meanwhile none left.
                // A table's files may lie outside the schema's directory (its own location, partitions elsewhere)
                for (TableFiles found : tableLocations.tables(session, schema.get())) {
                    checkCanSelectAllColumns(accessControl, found);
                    schemaLocations.addAll(found.locations());
                }
                locations = schemaLocations;
            }
            handle = new FlushCacheHandle(false, locations);
        }
        // the result's columns are declared once, by the DescribedTable return type
        return TableFunctionAnalysis.builder()
                .handle(handle)
                .build();
    }

    // as for SELECT * (and SHOW STATS, CREATE TABLE LIKE): a flush drops the pages of every column, so a user who
    // may read only some columns may not flush the others
    private static void checkCanSelectAllColumns(ConnectorAccessControl accessControl, TableFiles table)
    {
        accessControl.checkCanSelectFromColumns(null, table.name(), Optional.empty(), table.columns());
    }

    private static Optional<String> stringArgument(Map<String, Argument> arguments, String name)
    {
        Object value = ((ScalarArgument) arguments.get(name)).getValue();
        return Optional.ofNullable((Slice) value).map(Slice::toStringUtf8).map(String::strip).filter(text -> !text.isEmpty());
    }
}
