package io.overdrive.cache.iceberg;

import com.google.inject.Module;
import io.overdrive.cache.connector.OverdriveBuildInfo;
import io.overdrive.cache.connector.OverdriveConnectorFactory;
import io.overdrive.cache.connector.TableFormat;
import io.overdrive.cache.flush.TableLocations;
import io.trino.plugin.iceberg.IcebergConnector;
import io.trino.plugin.iceberg.IcebergConnectorFactory;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static com.google.inject.Scopes.SINGLETON;

/**
 * {@code overdrive_iceberg}: Trino's own Iceberg connector ({@link IcebergConnectorFactory#createConnector}) with
 * Overdrive's Guice module installed last, so that with only {@code iceberg.*} / {@code fs.*} properties the catalog
 * behaves exactly like {@code connector.name=iceberg}. Iceberg never changes a file under its path, so the page cache
 * keys each file by its path alone (Iceberg's own cache key provider): opening a cached file asks storage nothing.
 */
public class OverdriveIcebergConnectorFactory
        extends OverdriveConnectorFactory
{
    public static final String CONNECTOR_NAME = "overdrive_iceberg";

    public OverdriveIcebergConnectorFactory()
    {
        this(OverdriveBuildInfo.load());
    }

    OverdriveIcebergConnectorFactory(OverdriveBuildInfo buildInfo)
    {
        super(buildInfo);
    }

    @Override
    public String getName()
    {
        return CONNECTOR_NAME;
    }

    @Override
    protected BuiltConnector createDelegate(String catalogName, Map<String, String> config, ConnectorContext context, Supplier<Module> overdriveModule)
    {
        Connector iceberg = IcebergConnectorFactory.createConnector(catalogName, config, context, overdriveModule.get(), Optional.empty());
        return new BuiltConnector(iceberg, ((IcebergConnector) iceberg).getInjector());
    }

    @Override
    protected Module formatModule()
    {
        // flush_cache finds a table's and a schema's files through the Iceberg catalog, whatever its type
        return binder -> binder.bind(TableLocations.class).to(IcebergTableLocations.class).in(SINGLETON);
    }

    @Override
    protected boolean keepsMetadataInMemory(Map<String, String> config)
    {
        // iceberg.metadata-cache.enabled (true unless set false) keeps the metadata files the coordinator reads in memory
        return !"false".equalsIgnoreCase(config.getOrDefault("iceberg.metadata-cache.enabled", "true").strip());
    }

    @Override
    protected TableFormat format()
    {
        return IcebergFormat.ICEBERG;
    }
}
