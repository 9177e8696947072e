package io.overdrive.it.demo;

import java.util.List;
import java.util.Locale;

import static io.overdrive.it.demo.Demo.OVERDRIVE;
import static io.overdrive.it.demo.Demo.TRINO_CACHE;
import static java.util.Objects.requireNonNull;

/**
 * The lake's table format ({@code --format}): Hive tables read through Trino's Hive connector and {@code overdrive_hive},
 * or Iceberg tables read through Trino's Iceberg connector and {@code overdrive_iceberg}. Either way the tables are
 * Parquet files in Trino's file metastore on the demo's storage, and the three catalogs are the stock connector (named
 * after it: {@code hive} or {@code iceberg}), the stock connector with Trino's own cache ({@code trino_cache}) and the
 * Overdrive connector ({@code overdrive}).
 */
enum LakeFormat
{
    HIVE("hive", "Hive", "hive", "overdrive_hive"),
    ICEBERG("iceberg", "Iceberg", "iceberg", "overdrive_iceberg");

    private final String id;
    private final String displayName;
    private final String stockConnector;
    private final String overdriveConnector;

    LakeFormat(String id, String displayName, String stockConnector, String overdriveConnector)
    {
        this.id = requireNonNull(id, "id is null");
        this.displayName = requireNonNull(displayName, "displayName is null");
        this.stockConnector = requireNonNull(stockConnector, "stockConnector is null");
        this.overdriveConnector = requireNonNull(overdriveConnector, "overdriveConnector is null");
    }

    static LakeFormat parse(String value)
    {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "hive" -> HIVE;
            case "iceberg" -> ICEBERG;
            default -> throw new IllegalArgumentException("--format must be hive or iceberg, not '%s'".formatted(value));
        };
    }

    /** The name {@code --format} takes: {@code hive}, {@code iceberg}. */
    String id()
    {
        return id;
    }

    /** The name people call it by: "Hive", "Iceberg". */
    String displayName()
    {
        return displayName;
    }

    /** The tables and who reads them, in a sentence for the report. */
    String description()
    {
        return switch (this) {
            case HIVE -> "Hive tables (Parquet) in Trino's file metastore on the lake's storage, read through Trino's Hive connector and `overdrive_hive`";
            case ICEBERG -> "Iceberg tables (Parquet, GZIP-compressed as Trino's Hive connector writes by default) in Trino's file metastore on the lake's storage, "
                    + "read through Trino's Iceberg connector and `overdrive_iceberg`";
        };
    }

    /** Trino's own connector for these tables, which the stock catalog and {@code trino_cache} use. */
    String stockConnector()
    {
        return stockConnector;
    }

    /** Overdrive's connector for these tables. */
    String overdriveConnector()
    {
        return overdriveConnector;
    }

    /** The stock catalog, the anchor every result is compared with: named after its connector. */
    String stockCatalog()
    {
        return stockConnector;
    }

    /** The three catalogs, in the report's order: stock, Trino's cache, Overdrive. */
    List<String> catalogs()
    {
        return List.of(stockCatalog(), TRINO_CACHE, OVERDRIVE);
    }

    /** The connector of one of {@link #catalogs()}. */
    String connector(String catalog)
    {
        if (catalog.equals(OVERDRIVE)) {
            return overdriveConnector;
        }
        if (catalog.equals(stockCatalog()) || catalog.equals(TRINO_CACHE)) {
            return stockConnector;
        }
        throw new IllegalArgumentException("unknown catalog " + catalog);
    }

    /**
     * The table properties of the demo's {@code CREATE TABLE ... AS}: Parquet, and on Iceberg the compression Trino's
     * Hive connector writes by default (GZIP; Iceberg's own default is ZSTD), so that both formats hold about the same bytes.
     */
    String tableProperties()
    {
        return switch (this) {
            case HIVE -> "format = 'PARQUET'";
            case ICEBERG -> "format = 'PARQUET', compression_codec = 'GZIP'";
        };
    }

    /** What the table's data files take on storage, their sizes summed (from the files' own sizes the connector knows). */
    String tableBytesQuery(String catalog, String schema, String table)
    {
        return switch (this) {
            case HIVE -> "SELECT sum(size) FROM (SELECT DISTINCT \"$path\", \"$file_size\" AS size FROM %s.%s.%s)".formatted(catalog, schema, table);
            // Iceberg's metadata table of the current snapshot's data files
            case ICEBERG -> "SELECT sum(file_size_in_bytes) FROM %s.%s.\"%s$files\"".formatted(catalog, schema, table);
        };
    }
}
