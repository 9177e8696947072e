package io.overdrive.cache.connector;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
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
 * The {@code overdrive_hive} connector: Trino's Hive connector with Overdrive's parts in front of Hive's: the page
 * source provider (it tells the cache which table a read belongs to), the split manager, the {@code flush_cache}
 * and {@code warm_cache} table functions, the {@code system.cache_metrics}, {@code system.cached_tables} and
 * {@code system.cache_directories} tables and the session properties of
 * {@link OverdriveSessionProperties} beside Hive's. Everything else is Hive's, forwarded; every method of {@link Connector} is forwarded explicitly so
 * that none falls back to an SPI default by accident.
 */
public class OverdriveConnector
        implements Connector
{
    private final Connector hive;
    private final ConnectorPageSourceProvider pageSourceProvider;
    private final ConnectorSplitManager splitManager;
    private final Set<ConnectorTableFunction> tableFunctions;
    private final FunctionProvider functionProvider;
    private final List<PropertyMetadata<?>> sessionProperties;
    private final Set<SystemTable> systemTables;

    public OverdriveConnector(
            Connector hive,
            ConnectorPageSourceProvider pageSourceProvider,
            ConnectorSplitManager splitManager,
            Set<ConnectorTableFunction> tableFunctions,
            FunctionProvider functionProvider,
            Set<SystemTable> systemTables)
    {
        this.hive = requireNonNull(hive, "hive is null");
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.tableFunctions = ImmutableSet.<ConnectorTableFunction>builder()
                .addAll(hive.getTableFunctions())
                .addAll(requireNonNull(tableFunctions, "tableFunctions is null"))
                .build();
        this.functionProvider = requireNonNull(functionProvider, "functionProvider is null");
        this.systemTables = ImmutableSet.<SystemTable>builder()
                .addAll(hive.getSystemTables())
                .addAll(requireNonNull(systemTables, "systemTables is null"))
                .build();
        checkArgument(hive.getFunctionProvider().isEmpty(), "Hive connector now provides functions: combine them with Overdrive's");
        this.sessionProperties = ImmutableList.<PropertyMetadata<?>>builder()
                .addAll(hive.getSessionProperties())
                .addAll(OverdriveSessionProperties.properties())
                .build();
        Set<String> hiveNames = hive.getSessionProperties().stream().map(PropertyMetadata::getName).collect(toImmutableSet());
        OverdriveSessionProperties.properties().forEach(property -> checkArgument(!hiveNames.contains(property.getName()),
                "Hive connector now has a session property %s, as Overdrive does: rename Overdrive's", property.getName()));
    }

    /** The Hive connector inside (its injector holds Overdrive's bindings too). */
    public Connector hive()
    {
        return hive;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return pageSourceProvider;
    }

    @Override
    public ConnectorPageSourceProviderFactory getPageSourceProviderFactory()
    {
        return () -> pageSourceProvider;
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        return hive.beginTransaction(isolationLevel, readOnly, autoCommit);
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transactionHandle)
    {
        return hive.getMetadata(session, transactionHandle);
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorRecordSetProvider getRecordSetProvider()
    {
        return hive.getRecordSetProvider();
    }

    @Override
    public ConnectorPageSinkProvider getPageSinkProvider()
    {
        return hive.getPageSinkProvider();
    }

    @Override
    public ConnectorIndexProvider getIndexProvider()
    {
        return hive.getIndexProvider();
    }

    @Override
    public ConnectorNodePartitioningProvider getNodePartitioningProvider()
    {
        return hive.getNodePartitioningProvider();
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
        return hive.getProcedures();
    }

    @Override
    public Set<TableProcedureMetadata> getTableProcedures()
    {
        return hive.getTableProcedures();
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
        return hive.getSchemaProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getAnalyzeProperties()
    {
        return hive.getAnalyzeProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getBranchProperties()
    {
        return hive.getBranchProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getTableProperties()
    {
        return hive.getTableProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getViewProperties()
    {
        return hive.getViewProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getMaterializedViewProperties()
    {
        return hive.getMaterializedViewProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getColumnProperties()
    {
        return hive.getColumnProperties();
    }

    @Override
    public ConnectorAccessControl getAccessControl()
    {
        return hive.getAccessControl();
    }

    @Override
    public void commit(ConnectorTransactionHandle transactionHandle)
    {
        hive.commit(transactionHandle);
    }

    @Override
    public void rollback(ConnectorTransactionHandle transactionHandle)
    {
        hive.rollback(transactionHandle);
    }

    @Override
    public boolean isSingleStatementWritesOnly()
    {
        return hive.isSingleStatementWritesOnly();
    }

    @Override
    public void shutdown()
    {
        hive.shutdown();
    }

    @Override
    public Set<ConnectorCapabilities> getCapabilities()
    {
        return hive.getCapabilities();
    }
}
