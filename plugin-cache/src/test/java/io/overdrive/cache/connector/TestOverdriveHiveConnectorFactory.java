package io.overdrive.cache.connector;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.OverdrivePlugin;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.node.InternalNode;
import io.trino.plugin.hive.HiveConnector;
import io.trino.spi.NodeVersion;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.testing.TestingConnectorContext;
import io.trino.testing.TestingNodeManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.Iterables.getOnlyElement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOverdriveHiveConnectorFactory
{
    @TempDir
    Path warehouse;

    @Test
    void pluginRegistersOverdriveHive()
    {
        ConnectorFactory factory = getOnlyElement(new OverdrivePlugin().getConnectorFactories());
        assertThat(factory.getName()).isEqualTo("overdrive_hive");
    }

    @Test
    void buildInfoIsStampedWithTheTrinoVersion()
    {
        // the SPI jar on the test classpath is the one the plugin was compiled against
        assertThat(OverdriveBuildInfo.load().trinoSpiVersion()).isEqualTo(new ConnectorContext() {}.getSpiVersion());
    }

    @Test
    void createsHiveConnectorWithPlainHiveProperties()
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", hiveProperties(), new TestingConnectorContext());
        try {
            assertThat(connector).isInstanceOf(OverdriveConnector.class);
            assertThat(((OverdriveConnector) connector).hive()).isInstanceOf(HiveConnector.class);
            assertThat(connector.getSessionProperties()).isNotEmpty();
        }
        finally {
            connector.shutdown();
        }
    }

    @Test
    void everyConnectorMethodIsForwarded()
    {
        // a method left to the SPI default would silently change Hive's behaviour
        for (java.lang.reflect.Method method : Connector.class.getMethods()) {
            if (java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            assertThat(declares(OverdriveConnector.class, method)).as("OverdriveConnector forwards %s", method).isTrue();
        }
    }

    private static boolean declares(Class<?> type, java.lang.reflect.Method method)
    {
        try {
            type.getDeclaredMethod(method.getName(), method.getParameterTypes());
            return true;
        }
        catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Test
    void refusesServerWithOtherSpiVersion()
    {
        ConnectorContext otherServer = new ConnectorContext()
        {
            @Override
            public String getSpiVersion()
            {
                return "482";
            }
        };
        String builtFor = OverdriveBuildInfo.load().trinoSpiVersion();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", hiveProperties(), otherServer))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("built for Trino SPI version " + builtFor)
                .hasMessageContaining("runs Trino SPI version 482");
    }

    @Test
    void unknownPropertyFailsNamingIt()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("overdrive.no-such-property", "true")
                .buildOrThrow();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, new TestingConnectorContext()))
                .hasMessageContaining("overdrive.no-such-property")
                .hasMessageContaining("was not used");
    }

    @Test
    void pageCacheIsBoundOnWorkersOnly()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("cache.enabled", "true")
                .put("cache.base-directory", warehouse.resolve("cache").toString())
                .put("cache.max-size", "64MB")
                .buildOrThrow();
        assertThat(boundCache(properties, false)).containsInstanceOf(OverdriveFileSystemCache.class);
        assertThat(boundCache(properties, true)).as("coordinators read no data pages").isEmpty();
        assertThat(boundCache(hiveProperties(), false)).as("off by default").isEmpty();
    }

    @Test
    void softAffinityPropertiesAreCatalogProperties()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("node-selection-strategy", "SOFT_AFFINITY")
                .put("node-selection.preferred-hosts-count", "3")
                .put("node-selection.load-balance-epsilon", "0.5")
                .buildOrThrow();
        new OverdriveHiveConnectorFactory().create("lake", properties, workerContext(true)).shutdown();

        Map<String, String> invalid = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("node-selection-strategy", "SOFTLY")
                .buildOrThrow();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", invalid, workerContext(true)))
                .hasMessageContaining("node-selection-strategy");
    }

    @Test
    void trinoFileSystemCacheInTheSameCatalogIsRefused()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("cache.enabled", "true")
                .put("cache.base-directory", warehouse.resolve("cache").toString())
                .put("cache.max-size", "64MB")
                .put("fs.cache.enabled", "true")
                .put("fs.cache.directories", warehouse.resolve("trino-cache").toString())
                .put("fs.cache.max-sizes", "64MB")
                .buildOrThrow();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, workerContext(false)))
                .hasStackTraceContaining("cache.enabled=true (Overdrive's page cache) and fs.cache.enabled=true (Trino's file system cache) cannot be used in one catalog");
    }

    @Test
    void enabledCacheWithoutDirectoryNamesTheProperty()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("cache.enabled", "true")
                .put("cache.max-size", "64MB")
                .buildOrThrow();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, workerContext(false)))
                .hasMessageContaining("cache.base-directory must name at least one directory when cache.enabled=true");
    }

    private Optional<TrinoFileSystemCache> boundCache(Map<String, String> properties, boolean coordinator)
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", properties, workerContext(coordinator));
        try {
            return ((HiveConnector) ((OverdriveConnector) connector).hive()).getInjector().getInstance(Key.get(new TypeLiteral<Optional<TrinoFileSystemCache>>() {}));
        }
        finally {
            connector.shutdown();
        }
    }

    private static ConnectorContext workerContext(boolean coordinator)
    {
        InternalNode node = new InternalNode(coordinator ? "coordinator" : "worker", URI.create("http://127.0.0.1:8080"), NodeVersion.UNKNOWN, coordinator);
        return new TestingConnectorContext(TestingNodeManager.builder().localNode(node).build());
    }

    private Map<String, String> hiveProperties()
    {
        return ImmutableMap.of(
                "hive.metastore", "file",
                "hive.metastore.catalog.dir", warehouse.toUri().toString(),
                "fs.local.enabled", "true",
                "local.location", warehouse.toString());
    }
}
