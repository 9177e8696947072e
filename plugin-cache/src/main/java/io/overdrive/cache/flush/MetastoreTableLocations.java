package io.overdrive.cache.flush;

import com.google.inject.Inject;
import io.trino.metastore.Column;
import io.trino.metastore.Database;
import io.trino.metastore.HiveMetastore;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.metastore.Table;
import io.trino.metastore.TableInfo;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static java.util.Objects.requireNonNull;

/** Hive tables' locations, from the Hive metastore: a table's storage location, a schema's (database's) location. */
public class MetastoreTableLocations
        implements TableLocations
{
    private final HiveMetastoreFactory metastoreFactory;

    @Inject
    public MetastoreTableLocations(HiveMetastoreFactory metastoreFactory)
    {
        this.metastoreFactory = requireNonNull(metastoreFactory, "metastoreFactory is null");
    }

    @Override
    public Optional<TableFiles> table(ConnectorSession session, SchemaTableName table)
    {
        return metastore(session).getTable(table.getSchemaName(), table.getTableName()).map(MetastoreTableLocations::files);
    }

    @Override
    public Optional<String> schemaLocation(ConnectorSession session, String schema)
    {
        return metastore(session).getDatabase(schema).flatMap(Database::getLocation);
    }

    @Override
    public List<TableFiles> tables(ConnectorSession session, String schema)
    {
        HiveMetastore metastore = metastore(session);
        // a table dropped meanwhile has no files left
        return metastore.getTables(schema).stream()
                .filter(info -> info.extendedRelationType() == TableInfo.ExtendedRelationType.TABLE)
                .flatMap(info -> metastore.getTable(info.tableName().getSchemaName(), info.tableName().getTableName()).stream())
                .map(MetastoreTableLocations::files)
                .toList();
    }

    private HiveMetastore metastore(ConnectorSession session)
    {
        return metastoreFactory.createMetastore(Optional.of(session.getIdentity()));
    }

    private static TableFiles files(Table table)
    {
        return new TableFiles(
                table.getSchemaTableName(),
                List.of(table.getStorage().getLocation()),
                Stream.concat(table.getDataColumns().stream(), table.getPartitionColumns().stream())
                        .map(Column::getName)
                        .collect(toImmutableSet()));
    }
}
