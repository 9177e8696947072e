package io.overdrive.cache.connector;

import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.placement.OverdriveSplit;
import io.trino.plugin.hive.HiveTableHandle;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.MemoryContext;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Hive's page source provider, with the split's {@link CacheReadContext} set while Hive opens the split's files, which
 * is when the cache captures it for each file. Splits placed by soft affinity are unwrapped for Hive.
 */
public class CacheContextPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final ConnectorPageSourceProvider hive;
    private final HostAddress self;

    /**
     * @param self this node's address, as the coordinator's placement names it
     */
    public CacheContextPageSourceProvider(ConnectorPageSourceProvider hive, HostAddress self)
    {
        this.hive = requireNonNull(hive, "hive is null");
        this.self = requireNonNull(self, "self is null");
    }

    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            Optional<ConnectorTableCredentials> tableCredentials,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter)
    {
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context(table, split))) {
            return hive.createPageSource(transaction, session, hiveSplit(split), table, tableCredentials, columns, dynamicFilter);
        }
    }

    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            Optional<ConnectorTableCredentials> tableCredentials,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter,
            MemoryContext memoryContext)
    {
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context(table, split))) {
            return hive.createPageSource(transaction, session, hiveSplit(split), table, tableCredentials, columns, dynamicFilter, memoryContext);
        }
    }

    @Override
    public long getMemoryUsage()
    {
        return hive.getMemoryUsage();
    }

    // under soft affinity only the file's preferred workers cache it; the coordinator's placement says which, for the
    // worker it chose: a split the engine runs elsewhere (a task retried under retry-policy=TASK, a worker gone) reads through
    private CacheReadContext context(ConnectorTableHandle table, ConnectorSplit split)
    {
        boolean cacheable = !(split instanceof OverdriveSplit placed) || (placed.isCacheable() && placed.placedOn().contains(self));
        if (table instanceof HiveTableHandle hiveTable) {
            return CacheReadContext.forTable(hiveTable.getSchemaName(), hiveTable.getTableName(), cacheable);
        }
        return new CacheReadContext(Optional.empty(), Optional.empty(), cacheable);
    }

    private static ConnectorSplit hiveSplit(ConnectorSplit split)
    {
        return split instanceof OverdriveSplit placed ? placed.getHiveSplit() : split;
    }
}
