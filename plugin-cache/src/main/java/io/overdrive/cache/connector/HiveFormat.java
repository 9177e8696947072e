package io.overdrive.cache.connector;

import io.overdrive.cache.placement.SplitFile;
import io.trino.plugin.hive.HiveSplit;
import io.trino.plugin.hive.HiveTableHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.Optional;

/** Hive's handles: {@link HiveTableHandle} and {@link HiveSplit}. */
public final class HiveFormat
        implements TableFormat
{
    public static final HiveFormat HIVE = new HiveFormat();

    private HiveFormat() {}

    @Override
    public Optional<SchemaTableName> table(ConnectorTableHandle table)
    {
        return table instanceof HiveTableHandle hiveTable ? Optional.of(hiveTable.getSchemaTableName()) : Optional.empty();
    }

    @Override
    public Optional<SplitFile> placeable(ConnectorSplit split)
    {
        // a split Hive pins to its data's hosts (hive.force-local-scheduling) stays pinned: placement never overrides it
        if (split instanceof HiveSplit hiveSplit && hiveSplit.isRemotelyAccessible()) {
            return Optional.of(new SplitFile(hiveSplit.getPath(), hiveSplit.getStart()));
        }
        return Optional.empty();
    }
}
