package io.overdrive.cache.connector;

import com.google.inject.Module;
import io.overdrive.cache.PageCacheModule;
import io.trino.plugin.hive.HiveConnectorFactory;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;

import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Builds Trino's own Hive connector ({@link HiveConnectorFactory#createConnector}) with Overdrive's Guice module
 * installed last, so that with only {@code hive.*} / {@code fs.*} properties the catalog behaves exactly like
 * {@code connector.name=hive}.
 */
public class OverdriveHiveConnectorFactory
        implements ConnectorFactory
{
    public static final String CONNECTOR_NAME = "overdrive_hive";

    private final OverdriveBuildInfo buildInfo;

    public OverdriveHiveConnectorFactory()
    {
        this(OverdriveBuildInfo.load());
    }

    OverdriveHiveConnectorFactory(OverdriveBuildInfo buildInfo)
    {
        this.buildInfo = requireNonNull(buildInfo, "buildInfo is null");
    }

    @Override
    public String getName()
    {
        return CONNECTOR_NAME;
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
    {
        requireNonNull(catalogName, "catalogName is null");
        requireNonNull(config, "config is null");
        requireNonNull(context, "context is null");
        // the stock factory checks this in create(); createConnector() does not, so a mismatched install would
        // otherwise fail later with linkage errors deep inside the Hive connector
        checkSpiVersion(context.getSpiVersion());
        Connector hive = HiveConnectorFactory.createConnector(
                catalogName,
                config,
                context,
                () -> overdriveModule(context),
                Optional.empty(),
                false,
                Optional.empty());
        return new OverdriveConnector(hive, new CacheContextPageSourceProvider(hive.getPageSourceProvider()));
    }

    void checkSpiVersion(String serverSpiVersion)
    {
        if (!buildInfo.trinoSpiVersion().equals(serverSpiVersion)) {
            throw new IllegalStateException((
                    "Overdrive %s (connector %s) was built for Trino SPI version %s, but this server runs Trino SPI version %s. " +
                            "Install the Overdrive release built for Trino %s, or run it on Trino %s.")
                    .formatted(buildInfo.overdriveVersion(), CONNECTOR_NAME, buildInfo.trinoSpiVersion(), serverSpiVersion, serverSpiVersion, buildInfo.trinoSpiVersion()));
        }
    }

    // Overdrive's features, installed last, after every Hive module
    private static Module overdriveModule(ConnectorContext context)
    {
        return new PageCacheModule(context.getCurrentNode().isCoordinator());
    }
}
