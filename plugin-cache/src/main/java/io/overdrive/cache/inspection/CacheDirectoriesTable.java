package io.overdrive.cache.inspection;

import io.overdrive.cache.page.CacheDirectoryStatus;
import io.overdrive.cache.page.PageCache;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code <catalog>.system.cache_directories}: each node's cache directories for the catalog, whether each is in use
 * (a directory whose disk fails is taken out of use, and back once a probe finds it working), whether the pages found
 * at startup are still being restored, and its bytes. Joinable with {@code system.runtime.nodes} on {@code node_id}.
 */
public final class CacheDirectoriesTable
        extends NodeSystemTable
{
    public static final SchemaTableName NAME = new SchemaTableName("system", "cache_directories");
    private static final ConnectorTableMetadata METADATA = new ConnectorTableMetadata(NAME, List.of(
            new ColumnMetadata("node_id", VARCHAR),
            new ColumnMetadata("directory", VARCHAR),
            new ColumnMetadata("in_use", BOOLEAN),
            new ColumnMetadata("restoring", BOOLEAN),
            new ColumnMetadata("used_bytes", BIGINT),
            new ColumnMetadata("capacity_bytes", BIGINT),
            new ColumnMetadata("recovered_bytes", BIGINT)));

    private final String nodeId;
    private final Optional<PageCache> cache;

    /**
     * @param cache this node's page cache for the catalog; absent on a node that caches nothing (no rows)
     */
    public CacheDirectoriesTable(String nodeId, Optional<PageCache> cache)
    {
        super(METADATA);
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.cache = requireNonNull(cache, "cache is null");
    }

    @Override
    void addRows(ConnectorTransactionHandle transaction, ConnectorSession session, InMemoryRecordSet.Builder rows)
    {
        for (CacheDirectoryStatus directory : cache.map(PageCache::directoryStatus).orElse(List.of())) {
            rows.addRow(
                    nodeId,
                    directory.path(),
                    directory.inUse(),
                    directory.restoring(),
                    directory.usedBytes(),
                    directory.capacityBytes(),
                    directory.recoveredBytes());
        }
    }
}
