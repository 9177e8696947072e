package io.overdrive.cache.flush;

import com.google.common.collect.Lists;
import com.google.inject.Inject;
import io.trino.metastore.Column;
import io.trino.metastore.Database;
import io.trino.metastore.HiveMetastore;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.metastore.Table;
import io.trino.metastore.TableInfo;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static java.util.Objects.requireNonNull;

/**
 * Hive tables' locations, from the Hive metastore: a table's storage location and those of its partitions stored
 * outside it (added with {@code system.register_partition}, or by Hive or Spark with a location of their own); a
 * schema's (database's) location.
 */
public class MetastoreTableLocations
        implements TableLocations
{
    // partitions read from the metastore per call, as Trino's own hive.max-partition-batch-size defaults to
    private static final int PARTITION_BATCH_SIZE = 100;

    private final HiveMetastoreFactory metastoreFactory;

    @Inject
    public MetastoreTableLocations(HiveMetastoreFactory metastoreFactory)
    {
        this.metastoreFactory = requireNonNull(metastoreFactory, "metastoreFactory is null");
    }

    @Override
    public Optional<TableFiles> table(ConnectorSession session, SchemaTableName table)
    {
        HiveMetastore metastore = metastore(session);
        return metastore.getTable(table.getSchemaName(), table.getTableName()).map(found -> files(metastore, found));
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
                .map(table -> files(metastore, table))
                .toList();
    }

    private HiveMetastore metastore(ConnectorSession session)
    {
        return metastoreFactory.createMetastore(Optional.of(session.getIdentity()));
    }

    private static TableFiles files(HiveMetastore metastore, Table table)
    {
        List<String> locations = new ArrayList<>();
        locations.add(table.getStorage().getLocation());
        locations.addAll(partitionLocationsElsewhere(metastore, table));
        return new TableFiles(
                table.getSchemaTableName(),
                locations,
                Stream.concat(table.getDataColumns().stream(), table.getPartitionColumns().stream())
                        .map(Column::getName)
                        .collect(toImmutableSet()));
    }

    /**
     * The locations of the table's partitions that do not lie under the table's own: every partition is read from the
     * metastore (in batches), but only these are kept, so what a flush carries to the workers grows with the partitions
     * stored elsewhere, not with all of them. A partition dropped meanwhile has no files left.
     */
    private static Set<String> partitionLocationsElsewhere(HiveMetastore metastore, Table table)
    {
        if (table.getPartitionColumns().isEmpty()) {
            return Set.of();
        }
        List<String> partitionColumns = table.getPartitionColumns().stream().map(Column::getName).toList();
        List<String> names = metastore.getPartitionNamesByFilter(table.getDatabaseName(), table.getTableName(), partitionColumns, TupleDomain.all())
                .orElse(List.of());
        String tableLocation = table.getStorage().getLocation();
        Set<String> elsewhere = new LinkedHashSet<>();
        for (List<String> batch : Lists.partition(names, PARTITION_BATCH_SIZE)) {
            metastore.getPartitionsByNames(table, batch).values().stream()
                    .flatMap(Optional::stream)
                    .map(partition -> partition.getStorage().getLocation())
                    .filter(location -> !location.isBlank() && !StorageLocations.isUnder(location, tableLocation))
                    .forEach(elsewhere::add);
        }
        return elsewhere;
    }
}
