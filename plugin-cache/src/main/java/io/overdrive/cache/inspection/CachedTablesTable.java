package io.overdrive.cache.inspection;

import io.airlift.units.DataSize;
import io.overdrive.cache.page.CachedTableUsage;
import io.overdrive.cache.page.PageCache;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.SchemaTableName;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code <catalog>.system.cached_tables}: what each node's page cache holds of each table, one row per node and table
 * with pages cached there: files, pages and bytes, reads served and the last access, and the table's use of its quotas.
 * Served by every node from its cache's own page metadata. Joinable with {@code system.runtime.nodes} on
 * {@code node_id}.
 */
public final class CachedTablesTable
        extends NodeSystemTable
{
    public static final SchemaTableName NAME = new SchemaTableName("system", "cached_tables");
    private static final ConnectorTableMetadata METADATA = new ConnectorTableMetadata(NAME, List.of(
            new ColumnMetadata("node_id", VARCHAR),
            new ColumnMetadata("schema_name", VARCHAR),
            new ColumnMetadata("table_name", VARCHAR),
            new ColumnMetadata("cached_files", BIGINT),
            new ColumnMetadata("cached_pages", BIGINT),
            new ColumnMetadata("cached_bytes", BIGINT),
            new ColumnMetadata("hits", BIGINT),
            new ColumnMetadata("hit_bytes", BIGINT),
            new ColumnMetadata("last_access", TIMESTAMP_TZ_MILLIS),
            new ColumnMetadata("table_quota_bytes", BIGINT),
            new ColumnMetadata("table_quota_used", DOUBLE),
            new ColumnMetadata("schema_quota_bytes", BIGINT)));

    private final String nodeId;
    private final Optional<PageCache> cache;
    private final Optional<Long> tableQuota;
    private final Optional<Long> schemaQuota;

    /**
     * @param cache this node's page cache for the catalog; absent on a node that caches nothing (no rows)
     */
    public CachedTablesTable(String nodeId, Optional<PageCache> cache, Optional<DataSize> tableQuota, Optional<DataSize> schemaQuota)
    {
        super(METADATA);
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.tableQuota = tableQuota.map(DataSize::toBytes);
        this.schemaQuota = schemaQuota.map(DataSize::toBytes);
    }

    @Override
    void addRows(InMemoryRecordSet.Builder rows)
    {
        List<CachedTableUsage> tables = cache.map(PageCache::cachedTables).orElse(List.of()).stream()
                .sorted(Comparator.comparing((CachedTableUsage table) -> table.schema().orElse(""))
                        .thenComparing(table -> table.table().orElse("")))
                .toList();
        for (CachedTableUsage table : tables) {
            // a quota holds a table's pages, or a schema's (a schema's files of no table count toward the schema's only)
            Optional<Long> tableLimit = table.table().isPresent() ? tableQuota : Optional.empty();
            Optional<Long> schemaLimit = table.schema().isPresent() ? schemaQuota : Optional.empty();
            rows.addRow(
                    nodeId,
                    table.schema().orElse(null),
                    table.table().orElse(null),
                    table.files(),
                    table.pages(),
                    table.bytes(),
                    table.hits(),
                    table.hitBytes(),
                    table.lastAccessMillis() > 0 ? packDateTimeWithZone(table.lastAccessMillis(), UTC_KEY) : null,
                    tableLimit.orElse(null),
                    tableLimit.map(limit -> (double) table.bytes() / limit).orElse(null),
                    schemaLimit.orElse(null));
        }
    }
}
