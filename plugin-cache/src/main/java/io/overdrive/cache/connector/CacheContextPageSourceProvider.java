package io.overdrive.cache.connector;

import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.placement.OverdriveSplit;
import io.overdrive.cache.session.OverdriveSessionProperties;
import io.overdrive.cache.session.QueryReadStats;
import io.overdrive.cache.session.ReadOptions;
import io.overdrive.cache.warmup.WarmCacheProcessorProvider.OpenedSplit;
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
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The table format's page source provider (Hive's, Iceberg's), with the split's {@link CacheReadContext} set while it
 * opens the split's files, which is when the cache captures it for each file, and again while it makes each page, for
 * files it opens only then (Iceberg's delete files, Hive's ACID delete deltas). Splits placed by soft affinity are
 * unwrapped for it. Each page source reports what Overdrive did for its reads ({@link QueryReadStats}) in its metrics.
 */
public class CacheContextPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final ConnectorPageSourceProvider delegate;
    private final HostAddress self;
    private final TableFormat format;

    /**
     * @param self this node's address, as the coordinator's placement names it
     */
    public CacheContextPageSourceProvider(ConnectorPageSourceProvider delegate, HostAddress self, TableFormat format)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.self = requireNonNull(self, "self is null");
        this.format = requireNonNull(format, "format is null");
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
        CacheReadContext context = context(session, table, split, new QueryReadStats());
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context)) {
            return new ReadStatsPageSource(delegate.createPageSource(transaction, session, unwrap(split), table, tableCredentials, columns, dynamicFilter), context);
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
        CacheReadContext context = context(session, table, split, new QueryReadStats());
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context)) {
            return new ReadStatsPageSource(delegate.createPageSource(transaction, session, unwrap(split), table, tableCredentials, columns, dynamicFilter, memoryContext), context);
        }
    }

    /**
     * A split of {@code warm_cache}: read through the cache as a scan would, filling it without the admission rule
     * ({@code cache_populate=ALWAYS}) whatever the session sets for the cache; hedging and shared scans as the session says.
     */
    public OpenedSplit openForWarmUp(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorSplit split, ConnectorTableHandle table, List<ColumnHandle> columns)
    {
        QueryReadStats readStats = new QueryReadStats();
        ReadOptions sessionOptions = OverdriveSessionProperties.readOptions(session);
        CacheReadContext context = context(session, table, split, readStats)
                .withOptions(new ReadOptions(true, ReadOptions.Populate.ALWAYS, sessionOptions.hedging(), sessionOptions.sharedScans()));
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context)) {
            // a table function has no memory context to give: a split's reader buffers are small, and released when it closes
            ConnectorPageSource source = delegate.createPageSource(transaction, session, unwrap(split), table, Optional.empty(), columns, DynamicFilter.EMPTY, MemoryContext.NO_LIMIT);
            return new OpenedSplit(new ReadStatsPageSource(source, context), readStats, context.cacheable());
        }
    }

    @Override
    public long getMemoryUsage()
    {
        return delegate.getMemoryUsage();
    }

    // under soft affinity only the file's preferred workers cache it; the coordinator's placement says which, for the
    // worker it chose: a split the engine runs elsewhere (a task retried under retry-policy=TASK, a worker gone) reads through
    // what the query's session asks (cache_enabled, cache_populate, hedged_reads_enabled, shared_scans_enabled) comes along
    private CacheReadContext context(ConnectorSession session, ConnectorTableHandle table, ConnectorSplit split, QueryReadStats readStats)
    {
        boolean cacheable = !(split instanceof OverdriveSplit placed) || (placed.isCacheable() && placed.placedOn().contains(self));
        ReadOptions options = OverdriveSessionProperties.readOptions(session);
        Optional<SchemaTableName> name = format.table(table);
        // the workers the coordinator named for the pages this worker misses (never this worker itself)
        List<HostAddress> peers = split instanceof OverdriveSplit placed
                ? placed.getPeers().stream().filter(peer -> !peer.equals(self)).toList()
                : List.of();
        return new CacheReadContext(name.map(SchemaTableName::getSchemaName), name.map(SchemaTableName::getTableName), cacheable, options, readStats, peers);
    }

    private static ConnectorSplit unwrap(ConnectorSplit split)
    {
        return split instanceof OverdriveSplit placed ? placed.getSplit() : split;
    }
}
