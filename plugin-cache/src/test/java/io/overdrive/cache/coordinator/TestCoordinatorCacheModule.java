package io.overdrive.cache.coordinator;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.connector.OverdriveConnector;
import io.overdrive.cache.connector.OverdriveHiveConnectorFactory;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.plugin.hive.HiveConnector;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.ObjectName;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.overdrive.cache.TestingNodeContexts.coordinatorContext;
import static io.overdrive.cache.TestingNodeContexts.workerContext;
import static io.trino.testing.TestingConnectorSession.SESSION;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCoordinatorCacheModule
{
    @TempDir
    Path warehouse;

    @Test
    void boundOnACoordinatorThatRunsNoSplits()
    {
        Map<String, String> properties = cacheProperties();
        assertThat(boundCache(properties, coordinatorContext(false))).containsInstanceOf(CoordinatorFileCache.class);
        // where splits run, the page cache has the seam, and keeps the files the coordinator reads as well
        assertThat(boundCache(properties, coordinatorContext(true))).containsInstanceOf(OverdriveFileSystemCache.class);
        assertThat(boundCache(properties, workerContext())).containsInstanceOf(OverdriveFileSystemCache.class);
    }

    @Test
    void offWithoutThePageCacheInADryRunOrWhenTurnedOff()
    {
        assertThat(boundCache(hiveProperties(), coordinatorContext(false))).as("cache.enabled=false (the default)").isEmpty();
        assertThat(boundCache(with(cacheProperties(), Map.of("cache.dry-run", "true")), coordinatorContext(false))).as("a dry run changes no reads").isEmpty();
        assertThat(boundCache(with(cacheProperties(), Map.of("cache.coordinator.enabled", "false")), coordinatorContext(false))).isEmpty();
    }

    @Test
    void everyNodeAcceptsTheProperties()
    {
        Map<String, String> properties = with(cacheProperties(), Map.of("cache.coordinator.max-size", "8MB", "cache.coordinator.max-file-size", "256kB"));
        for (ConnectorContext context : List.of(workerContext(), coordinatorContext(true), coordinatorContext(false))) {
            new OverdriveHiveConnectorFactory().create("lake", properties, context).shutdown();
            // with the page cache off too: one catalog file serves every node and every setting
            new OverdriveHiveConnectorFactory().create("lake", with(hiveProperties(), Map.of("cache.coordinator.max-size", "8MB")), context).shutdown();
        }
    }

    @Test
    void invalidSizesFailTheCatalogNamingTheProperty()
    {
        for (ConnectorContext context : List.of(workerContext(), coordinatorContext(false))) {
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", with(cacheProperties(), Map.of("cache.coordinator.max-size", "1MB", "cache.coordinator.max-file-size", "2MB")), context))
                    .hasMessageContaining("cache.coordinator.max-file-size must not be larger than cache.coordinator.max-size");
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", with(cacheProperties(), Map.of("cache.coordinator.max-size", "2GB")), context))
                    .hasMessageContaining("Invalid configuration property cache.coordinator.max-size: must be less than or equal to 1GB");
        }
    }

    @Test
    void statsHaveTheDocumentedName()
            throws Exception
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("jmx_coordinator", cacheProperties(), coordinatorContext(false));
        try {
            assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("*:type=CoordinatorCacheStats,name=jmx_coordinator,*"), null))
                    .containsExactly(new ObjectName("io.overdrive.cache.coordinator:type=CoordinatorCacheStats,name=jmx_coordinator,catalog=jmx_coordinator"));
        }
        finally {
            connector.shutdown();
        }
    }

    @Test
    void theCatalogsFileSystemReadsThroughIt()
            throws Exception
    {
        Path file = Files.writeString(warehouse.resolve("metadata.json"), "{\"version\":1}");
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", cacheProperties(), coordinatorContext(false));
        try {
            HiveConnector hive = (HiveConnector) ((OverdriveConnector) connector).delegate();
            TrinoFileSystem fileSystem = hive.getInjector().getInstance(TrinoFileSystemFactory.class).create(SESSION);
            CoordinatorCacheStats stats = hive.getInjector().getInstance(CoordinatorCacheStats.class);
            for (int read = 0; read < 3; read++) {
                try (InputStream stream = fileSystem.newInputFile(Location.of("local:///metadata.json")).newStream()) {
                    assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("{\"version\":1}");
                }
            }
            assertThat(stats.getMisses()).isEqualTo(1);
            assertThat(stats.getHits()).isEqualTo(2);
            assertThat(file).exists();
        }
        finally {
            connector.shutdown();
        }
    }

    private Optional<TrinoFileSystemCache> boundCache(Map<String, String> properties, ConnectorContext context)
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", properties, context);
        try {
            return ((OverdriveConnector) connector).injector().getInstance(Key.get(new TypeLiteral<Optional<TrinoFileSystemCache>>() {}));
        }
        finally {
            connector.shutdown();
        }
    }

    private static Map<String, String> with(Map<String, String> properties, Map<String, String> overrides)
    {
        Map<String, String> merged = new HashMap<>(properties);
        merged.putAll(overrides);
        return ImmutableMap.copyOf(merged);
    }

    private Map<String, String> cacheProperties()
    {
        return with(hiveProperties(), Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB"));
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
