package io.overdrive.merge.shards;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeOperators;

import java.util.Map;

import static io.trino.plugin.base.Versions.checkStrictSpiVersionMatch;
import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.toUnmodifiableMap;

/**
 * {@code connector.name=overdrive_shards}: one table over many Trino clusters, with partial results merged in
 * parallel by the merge engine.
 */
public final class ShardsConnectorFactory
        implements ConnectorFactory
{
    public static final String CONNECTOR_NAME = "overdrive_shards";

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
        // a server of another Trino version would fail later with linkage errors: refuse it naming both versions
        checkStrictSpiVersionMatch(context, this);
        Map<String, String> replicas = config.entrySet().stream()
                .filter(entry -> entry.getKey().startsWith(ShardTopology.REPLICAS_PREFIX))
                .collect(toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));
        Bootstrap app = new Bootstrap(
                "io.overdrive.merge.shards",
                new ShardsModule(catalogName, replicas),
                binder -> {
                    binder.bind(TypeManager.class).toInstance(context.getTypeManager());
                    binder.bind(TypeOperators.class).toInstance(context.getTypeManager().getTypeOperators());
                });
        Injector injector = app
                .doNotInitializeLogging()
                .setRequiredConfigurationProperties(ShardTopology.withoutReplicas(config))
                .initialize();
        return injector.getInstance(ShardsConnector.class);
    }
}
