package io.overdrive.cache.iceberg;

import com.google.inject.Inject;
import io.overdrive.cache.flush.TableLocations;
import io.trino.metastore.TableInfo;
import io.trino.plugin.iceberg.UnknownTableTypeException;
import io.trino.plugin.iceberg.catalog.TrinoCatalog;
import io.trino.plugin.iceberg.catalog.TrinoCatalogFactory;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaNotFoundException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableNotFoundException;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types.NestedField;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.trino.plugin.iceberg.IcebergSchemaProperties.LOCATION_PROPERTY;
import static java.util.Objects.requireNonNull;
import static org.apache.iceberg.TableProperties.OBJECT_STORE_PATH;
import static org.apache.iceberg.TableProperties.WRITE_DATA_LOCATION;
import static org.apache.iceberg.TableProperties.WRITE_FOLDER_STORAGE_LOCATION;
import static org.apache.iceberg.TableProperties.WRITE_METADATA_LOCATION;

/**
 * Iceberg tables' locations, from the catalog's Iceberg catalog (whatever {@code iceberg.catalog.type} is): a table's
 * location, and the locations its properties give its data and metadata files when they lie elsewhere
 * ({@code write.data.path}, {@code write.metadata.path} and their older names); a schema's (namespace's) location.
 */
public class IcebergTableLocations
        implements TableLocations
{
    // where Iceberg writes a table's files outside its own location, when these are set
    private static final List<String> OTHER_LOCATIONS = List.of(WRITE_DATA_LOCATION, OBJECT_STORE_PATH, WRITE_FOLDER_STORAGE_LOCATION, WRITE_METADATA_LOCATION);

    private final TrinoCatalogFactory catalogFactory;

    @Inject
    public IcebergTableLocations(TrinoCatalogFactory catalogFactory)
    {
        this.catalogFactory = requireNonNull(catalogFactory, "catalogFactory is null");
    }

    @Override
    public Optional<TableFiles> table(ConnectorSession session, SchemaTableName table)
    {
        return table(session, catalog(session), table);
    }

    @Override
    public Optional<String> schemaLocation(ConnectorSession session, String schema)
    {
        try {
            return Optional.ofNullable(catalog(session).loadNamespaceMetadata(session, schema).get(LOCATION_PROPERTY))
                    .map(Object::toString);
        }
        catch (SchemaNotFoundException _) {
            return Optional.empty();
        }
    }

    @Override
    public List<TableFiles> tables(ConnectorSession session, String schema)
    {
        TrinoCatalog catalog = catalog(session);
        return catalog.listTables(session, Optional.of(schema)).stream()
                .filter(info -> info.extendedRelationType() == TableInfo.ExtendedRelationType.TABLE)
                .flatMap(info -> table(session, catalog, info.tableName()).stream())
                .toList();
    }

    private TrinoCatalog catalog(ConnectorSession session)
    {
        return catalogFactory.create(session.getIdentity());
    }

    // a table dropped meanwhile has no files left; a table of another format (a Hive table in the same metastore) is not
    // this catalog's to flush
    private static Optional<TableFiles> table(ConnectorSession session, TrinoCatalog catalog, SchemaTableName name)
    {
        Table table;
        try {
            table = catalog.loadTable(session, name);
        }
        catch (TableNotFoundException | UnknownTableTypeException _) {
            return Optional.empty();
        }
        Set<String> locations = new LinkedHashSet<>();
        locations.add(table.location());
        OTHER_LOCATIONS.stream()
                .map(table.properties()::get)
                .filter(location -> location != null && !location.isBlank())
                .forEach(locations::add);
        Set<String> columns = table.schema().columns().stream().map(NestedField::name).collect(toImmutableSet());
        return Optional.of(new TableFiles(name, List.copyOf(locations), columns));
    }
}
