package io.overdrive.cache.connector;

import com.google.inject.Module;
import io.overdrive.cache.flush.MetastoreTableLocations;
import io.overdrive.cache.flush.TableLocations;
import io.overdrive.cache.warmup.WarmCacheTableFunction;
import io.trino.plugin.hive.HiveConnector;
import io.trino.plugin.hive.HiveConnectorFactory;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static com.google.inject.Scopes.SINGLETON;

/**
 * {@code overdrive_hive}: Trino's own Hive connector ({@link HiveConnectorFactory#createConnector}) with Overdrive's
 * Guice module installed last, so that with only {@code hive.*} / {@code fs.*} properties the catalog behaves exactly
 * like {@code connector.name=hive}.
 */
public class OverdriveHiveConnectorFactory
        extends OverdriveConnectorFactory
{
    public static final String CONNECTOR_NAME = "overdrive_hive";

    public OverdriveHiveConnectorFactory()
    {
        this(OverdriveBuildInfo.load());
    }

    OverdriveHiveConnectorFactory(OverdriveBuildInfo buildInfo)
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
        Connector hive = HiveConnectorFactory.createConnector(
                catalogName,
                config,
                context,
                overdriveModule,
                Optional.empty(),
                false,
                Optional.empty());
        return new BuiltConnector(hive, ((HiveConnector) hive).getInjector());
    }

    @Override
    protected Module formatModule()
    {
        return binder -> {
            // flush_cache finds a table's and a schema's files in the metastore; warm_cache reads a table's partitions there
            binder.bind(TableLocations.class).to(MetastoreTableLocations.class).in(SINGLETON);
            binder.bind(WarmCacheTableFunction.class).in(SINGLETON);
        };
    }

    @Override
    protected boolean keepsMetadataInMemory(Map<String, String> config)
    {
        // Hive's metastore caching (hive.metastore-cache-ttl) keeps parsed metadata for a TTL, not the files
        return false;
    }

    @Override
    protected TableFormat format()
    {
        return HiveFormat.HIVE;
    }
}
