package io.overdrive.cache.iceberg;

import io.overdrive.cache.connector.TableFormat;
import io.overdrive.cache.placement.SplitFile;
import io.trino.plugin.iceberg.IcebergSplit;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.Optional;

/** Iceberg's handles: {@link IcebergTableHandle} and {@link IcebergSplit} (a data file's range; its delete files are read with it). */
public final class IcebergFormat
        implements TableFormat
{
    public static final IcebergFormat ICEBERG = new IcebergFormat();

    private IcebergFormat() {}

    @Override
    public Optional<SchemaTableName> table(ConnectorTableHandle table)
    {
        return table instanceof IcebergTableHandle icebergTable ? Optional.of(icebergTable.getSchemaTableName()) : Optional.empty();
    }

    @Override
    public Optional<SplitFile> placeable(ConnectorSplit split)
    {
        if (split instanceof IcebergSplit icebergSplit && icebergSplit.isRemotelyAccessible()) {
            return Optional.of(new SplitFile(icebergSplit.path(), icebergSplit.start()));
        }
        return Optional.empty();
    }
}
