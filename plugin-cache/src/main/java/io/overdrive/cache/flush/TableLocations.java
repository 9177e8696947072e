package io.overdrive.cache.flush;

import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Where a catalog's tables and schemas keep their files, as the table format's own metadata says (the Hive metastore
 * for Hive tables, the Iceberg catalog for Iceberg tables), and the columns of each table, which a flush of the table
 * requires the right to read. Each call reads the metadata with the session's own identity.
 */
public interface TableLocations
{
    /** The table's files, or empty when the table does not exist (or is not a table of this format). */
    Optional<TableFiles> table(ConnectorSession session, SchemaTableName table);

    /** The schema's location, or empty when the schema does not exist or has none. */
    Optional<String> schemaLocation(ConnectorSession session, String schema);

    /** The schema's tables of this format (views have no files). */
    List<TableFiles> tables(ConnectorSession session, String schema);

    /**
     * @param locations the locations under which the table's files lie: its own, and any other its metadata names for
     * its data or metadata files
     * @param columns the names of its columns
     */
    record TableFiles(SchemaTableName name, List<String> locations, Set<String> columns)
    {
        public TableFiles
        {
            requireNonNull(name, "name is null");
            locations = List.copyOf(locations);
            columns = Set.copyOf(columns);
        }
    }
}
