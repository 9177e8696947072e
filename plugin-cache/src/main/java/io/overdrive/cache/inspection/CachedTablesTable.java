package io.overdrive.cache.inspection;

import io.airlift.units.DataSize;
import io.overdrive.cache.page.CachedTableUsage;
import io.overdrive.cache.page.PageCache;
import io.trino.spi.QueryId;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorSecurityContext;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.SchemaTableName;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
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
 * <p>
 * A row names a table, so a user sees it only where the catalog's own access control lists that table to the user, as
 * {@code SHOW TABLES} would ({@link ConnectorAccessControl#filterTables}; a row of a schema's files of no table:
 * {@link ConnectorAccessControl#filterSchemas}). The rows are made on every node, and Trino 483 gives a system table
 * that runs on workers no access control of the engine's: rules of the system access control (and of a catalog with
 * {@code hive.security=system} or {@code iceberg.security=system}, which has none of its own) are not applied to rows.
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
    private final Optional<ConnectorAccessControl> accessControl;

    /**
     * @param cache this node's page cache for the catalog; absent on a node that caches nothing (no rows)
     * @param accessControl the catalog's own access control, which decides the rows each user sees; absent when the
     * catalog has none (every row is shown)
     */
    public CachedTablesTable(String nodeId, Optional<PageCache> cache, Optional<DataSize> tableQuota, Optional<DataSize> schemaQuota, Optional<ConnectorAccessControl> accessControl)
    {
        super(METADATA);
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.accessControl = requireNonNull(accessControl, "accessControl is null");
        this.tableQuota = tableQuota.map(DataSize::toBytes);
        this.schemaQuota = schemaQuota.map(DataSize::toBytes);
    }

    @Override
    void addRows(ConnectorTransactionHandle transaction, ConnectorSession session, InMemoryRecordSet.Builder rows)
    {
        List<CachedTableUsage> cached = cache.map(PageCache::cachedTables).orElse(List.of());
        Predicate<CachedTableUsage> visible = accessControl
                .map(control -> visibleTo(control, new ConnectorSecurityContext(transaction, session.getIdentity(), QueryId.valueOf(session.getQueryId())), cached))
                .orElse(_ -> true);
        List<CachedTableUsage> tables = cached.stream()
                .filter(visible)
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

    // the tables and schemas the catalog's access control lists to the user, asked once for all rows; pages read for
    // no schema name nothing
    private static Predicate<CachedTableUsage> visibleTo(ConnectorAccessControl accessControl, ConnectorSecurityContext context, List<CachedTableUsage> cached)
    {
        Set<SchemaTableName> tables = cached.stream()
                .filter(usage -> usage.schema().isPresent() && usage.table().isPresent())
                .map(CachedTablesTable::tableName)
                .collect(toImmutableSet());
        Set<String> schemas = cached.stream()
                .filter(usage -> usage.table().isEmpty())
                .flatMap(usage -> usage.schema().stream())
                .collect(toImmutableSet());
        Set<SchemaTableName> visibleTables = tables.isEmpty() ? Set.of() : Set.copyOf(accessControl.filterTables(context, tables));
        Set<String> visibleSchemas = schemas.isEmpty() ? Set.of() : Set.copyOf(accessControl.filterSchemas(context, schemas));
        return usage -> {
            if (usage.schema().isEmpty()) {
                return true;
            }
            if (usage.table().isEmpty()) {
                return visibleSchemas.contains(usage.schema().get());
            }
            return visibleTables.contains(tableName(usage));
        };
    }

    private static SchemaTableName tableName(CachedTableUsage usage)
    {
        return new SchemaTableName(usage.schema().orElseThrow(), usage.table().orElseThrow());
    }
}
