package io.overdrive.cache.connector;

import io.overdrive.cache.placement.SplitFile;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.Optional;

/**
 * What Overdrive's features need to know of a table format's handles: which table a scan reads (for
 * {@code cache.include-tables} and {@code cache.exclude-tables}, and each table's share of the cache), and which file a
 * split reads (for soft affinity). One per connector: {@link HiveFormat} for {@code overdrive_hive},
 * {@code IcebergFormat} for {@code overdrive_iceberg}.
 */
public interface TableFormat
{
    /** The table a scan of this handle reads; empty for handles of other kinds. */
    Optional<SchemaTableName> table(ConnectorTableHandle table);

    /** The file a split of a table scan reads, where Overdrive may choose its worker; empty to leave the split as the connector made it. */
    Optional<SplitFile> placeable(ConnectorSplit split);
}
