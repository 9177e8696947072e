package io.overdrive.cache.connector;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import com.google.inject.Injector;
import io.overdrive.cache.session.OverdriveSessionProperties;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorCapabilities;
import io.trino.spi.connector.ConnectorIndexProvider;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorPageSourceProviderFactory;
import io.trino.spi.connector.ConnectorRecordSetProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.function.FunctionProvider;
import io.trino.spi.function.table.ConnectorTableFunction;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static java.util.Objects.requireNonNull;

/**
 * The {@code overdrive_hive} and {@code overdrive_iceberg} connectors: Trino's Hive or Iceberg connector with Overdrive's
 * parts in front of its own: the page source provider (it tells the cache which table a read belongs to), the split
 * manager, the {@code flush_cache} table function (and {@code warm_cache} for Hive), the {@code system.cache_metrics},
 * {@code system.cached_tables} and {@code system.cache_directories} tables and the session properties of
 * {@link OverdriveSessionProperties} beside the connector's own. Everything else is the stock connector's, forwarded;
 * every method of {@link Connector} is forwarded explicitly so that none falls back to an SPI default by accident.
 */
public class OverdriveConnector
        implements Connector
{
    private final Connector delegate;
    private final Injector injector;
    private final ConnectorPageSourceProviderFactory pageSourceProviderFactory;
    private final ConnectorSplitManager splitManager;
    private final Set<ConnectorTableFunction> tableFunctions;
    private final FunctionProvider functionProvider;
    private final List<PropertyMetadata<?>> sessionProperties;
    private final Set<SystemTable> systemTables;

    public OverdriveConnector(
            Connector delegate,
            Injector injector,
            ConnectorPageSourceProviderFactory pageSourceProviderFactory,
            ConnectorSplitManager splitManager,
            Set<ConnectorTableFunction> tableFunctions,
            FunctionProvider functionProvider,
            Set<SystemTable> systemTables)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.injector = requireNonNull(injector, "injector is null");
        this.pageSourceProviderFactory = requireNonNull(pageSourceProviderFactory, "pageSourceProviderFactory is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.tableFunctions = ImmutableSet.<ConnectorTableFunction>builder()
                .addAll(delegate.getTableFunctions())
                .addAll(requireNonNull(tableFunctions, "tableFunctions is null"))
                .build();
        this.functionProvider = requireNonNull(functionProvider, "functionProvider is null");
        this.systemTables = ImmutableSet.<SystemTable>builder()
                .addAll(delegate.getSystemTables())
                .addAll(requireNonNull(systemTables, "systemTables is null"))
                .build();
        this.sessionProperties = ImmutableList.<PropertyMetadata<?>>builder()
                .addAll(delegate.getSessionProperties())
                .addAll(OverdriveSessionProperties.properties())
                .build();
        Set<String> delegateNames = delegate.getSessionProperties().stream().map(PropertyMetadata::getName).collect(toImmutableSet());
        OverdriveSessionProperties.properties().forEach(property -> checkArgument(!delegateNames.contains(property.getName()),
                "The stock connector now has a session property %s, as Overdrive does: rename Overdrive's", property.getName()));
        Set<String> delegateFunctions = delegate.getTableFunctions().stream().map(ConnectorTableFunction::getName).collect(toImmutableSet());
        tableFunctions.forEach(function -> checkArgument(!delegateFunctions.contains(function.getName()),
                "The stock connector now has a table function %s, as Overdrive does: rename Overdrive's", function.getName()));
    }

    /** The stock connector inside. */
    public Connector delegate()
    {
        return delegate;
    }

    /** The stock connector's injector, which holds Overdrive's bindings too. */
    public Injector injector()
    {
        return injector;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return pageSourceProviderFactory.createPageSourceProvider();
    }

    @Override
    public ConnectorPageSourceProviderFactory getPageSourceProviderFactory()
    {
        return pageSourceProviderFactory;
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        return delegate.beginTransaction(isolationLevel, readOnly, autoCommit);
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transactionHandle)
    {
        return new OverdriveMetadata(delegate.getMetadata(session, transactionHandle));
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorRecordSetProvider getRecordSetProvider()
    {
        return delegate.getRecordSetProvider();
    }

    @Override
    public ConnectorPageSinkProvider getPageSinkProvider()
    {
        return delegate.getPageSinkProvider();
    }

    @Override
    public ConnectorIndexProvider getIndexProvider()
    {
        return delegate.getIndexProvider();
    }

    @Override
    public ConnectorNodePartitioningProvider getNodePartitioningProvider()
    {
        return delegate.getNodePartitioningProvider();
    }

    @Override
    public Set<SystemTable> getSystemTables()
    {
        return systemTables;
    }

    @Override
    public Optional<FunctionProvider> getFunctionProvider()
    {
        return Optional.of(functionProvider);
    }

    @Override
    public Set<Procedure> getProcedures()
    {
        return delegate.getProcedures();
    }

    @Override
    public Set<TableProcedureMetadata> getTableProcedures()
    {
        return delegate.getTableProcedures();
    }

    @Override
    public Set<ConnectorTableFunction> getTableFunctions()
    {
        return tableFunctions;
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties;
    }

    @Override
    public List<PropertyMetadata<?>> getSchemaProperties()
    {
        return delegate.getSchemaProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getAnalyzeProperties()
    {
        return delegate.getAnalyzeProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getBranchProperties()
    {
        return delegate.getBranchProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getTableProperties()
    {
        return delegate.getTableProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getViewProperties()
    {
        return delegate.getViewProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getMaterializedViewProperties()
    {
        return delegate.getMaterializedViewProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getColumnProperties()
    {
        return delegate.getColumnProperties();
    }

    @Override
    public ConnectorAccessControl getAccessControl()
    {
        return delegate.getAccessControl();
    }

    @Override
    public void commit(ConnectorTransactionHandle transactionHandle)
    {
        delegate.commit(transactionHandle);
    }

    @Override
    public void rollback(ConnectorTransactionHandle transactionHandle)
    {
        delegate.rollback(transactionHandle);
    }

    @Override
    public boolean isSingleStatementWritesOnly()
    {
        return delegate.isSingleStatementWritesOnly();
    }

    @Override
    public void shutdown()
    {
        delegate.shutdown();
    }

    @Override
    public Set<ConnectorCapabilities> getCapabilities()
    {
        return delegate.getCapabilities();
    }
}
