package io.overdrive.cache.iceberg;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.connector.OverdriveConnector;
import io.overdrive.cache.coordinator.CoordinatorFileCache;
import io.overdrive.cache.flush.FlushCacheHandle;
import io.overdrive.cache.flush.TableLocations;
import io.overdrive.scheduler.affinity.SplitPlacer;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.WorkerLoads;
import io.trino.filesystem.cache.CacheKeyProvider;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.filesystem.memory.MemoryFileSystemCache;
import io.trino.plugin.iceberg.IcebergConnector;
import io.trino.plugin.iceberg.cache.IcebergCacheKeyProvider;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.function.table.ConnectorTableFunction;
import io.trino.spi.session.PropertyMetadata;
import io.trino.testing.TestingConnectorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.overdrive.cache.TestingNodeContexts.coordinatorContext;
import static io.overdrive.cache.TestingNodeContexts.workerContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOverdriveIcebergConnectorFactory
{
    @TempDir
    Path warehouse;

    @Test
    void createsIcebergConnectorWithPlainIcebergProperties()
    {
        withConnector(icebergProperties(), new TestingConnectorContext(), connector -> {
            assertThat(connector.delegate()).isInstanceOf(IcebergConnector.class);
            // Iceberg's session properties, and Overdrive's beside them
            Set<String> names = connector.getSessionProperties().stream().map(PropertyMetadata::getName).collect(toImmutableSet());
            assertThat(names).contains("orc_bloom_filters_enabled", "cache_enabled", "cache_populate", "hedged_reads_enabled", "shared_scans_enabled", "soft_affinity_enabled");
            assertThat(connector.getSessionProperties()).hasSize(connector.delegate().getSessionProperties().size() + 5);
            // Iceberg's table functions, and flush_cache; warm_cache reads Hive partitions, so it is Hive's only
            Set<String> functions = connector.getTableFunctions().stream().map(ConnectorTableFunction::getName).collect(toImmutableSet());
            assertThat(functions).contains("table_changes", "flush_cache").doesNotContain("warm_cache");
            assertThat(connector.getTableFunctions()).hasSize(connector.delegate().getTableFunctions().size() + 1);
            // Iceberg's own functions (bucket, table_changes) are still served by Iceberg's provider
            assertThat(connector.getFunctionProvider()).isPresent();
            assertThat(connector.getFunctionProvider().orElseThrow().getTableFunctionProcessorProviderFactory(new FlushCacheHandle(true, List.of())).createTableFunctionProcessorProvider()).isNotNull();
            // a provider per query, as Iceberg makes them
            assertThat(connector.getPageSourceProviderFactory().createPageSourceProvider()).isNotSameAs(connector.getPageSourceProviderFactory().createPageSourceProvider());
            return null;
        });
    }

    @Test
    void pageCacheIsBoundOnNodesThatRunSplitsAndKeysFilesByPathAlone()
    {
        Map<String, String> properties = with(icebergProperties(), Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB"));
        Optional<TrinoFileSystemCache> worker = withConnector(properties, workerContext(), connector -> boundCache(connector.injector()));
        assertThat(worker).containsInstanceOf(OverdriveFileSystemCache.class);
        // a coordinator that runs no splits reads metadata files only: Iceberg keeps them in memory itself, and the
        // coordinator's tier takes its place only when asked for, or when Iceberg's own is off
        Optional<TrinoFileSystemCache> coordinator = withConnector(properties, coordinatorContext(false), connector -> boundCache(connector.injector()));
        assertThat(coordinator).as("Iceberg's own metadata cache").isEmpty();
        Optional<MemoryFileSystemCache> icebergsOwn = withConnector(properties, coordinatorContext(false), connector -> connector.injector().getInstance(Key.get(new TypeLiteral<Optional<MemoryFileSystemCache>>() {})));
        assertThat(icebergsOwn).isPresent();
        Optional<TrinoFileSystemCache> tier = withConnector(with(properties, Map.of("cache.coordinator.enabled", "true")), coordinatorContext(false), connector -> boundCache(connector.injector()));
        assertThat(tier).containsInstanceOf(CoordinatorFileCache.class);
        Optional<TrinoFileSystemCache> icebergsOff = withConnector(with(properties, Map.of("iceberg.metadata-cache.enabled", "false")), coordinatorContext(false), connector -> boundCache(connector.injector()));
        assertThat(icebergsOff).containsInstanceOf(CoordinatorFileCache.class);
        Optional<TrinoFileSystemCache> neither = withConnector(with(properties, Map.of("cache.coordinator.enabled", "false")), coordinatorContext(false), connector -> boundCache(connector.injector()));
        assertThat(neither).isEmpty();
        Optional<TrinoFileSystemCache> off = withConnector(icebergProperties(), workerContext(), connector -> boundCache(connector.injector()));
        assertThat(off).as("off by default").isEmpty();
        // Iceberg never rewrites a file under its path: its key provider keys by path, and opening a cached file asks storage nothing
        Optional<CacheKeyProvider> keys = withConnector(properties, workerContext(), connector -> connector.injector().getInstance(Key.get(new TypeLiteral<Optional<CacheKeyProvider>>() {})));
        assertThat(keys).containsInstanceOf(IcebergCacheKeyProvider.class);
        // flush_cache finds tables through the Iceberg catalog
        TableLocations locations = withConnector(properties, coordinatorContext(false), connector -> connector.injector().getInstance(TableLocations.class));
        assertThat(locations).isInstanceOf(IcebergTableLocations.class);
    }

    @Test
    void softAffinityIsACatalogProperty()
    {
        Map<String, String> properties = with(icebergProperties(), Map.of("node-selection-strategy", "SOFT_AFFINITY"));
        Optional<SplitPlacer> placer = withConnector(properties, coordinatorContext(false), connector -> connector.injector().getInstance(SplitPlacerFactory.class).createPlacer(WorkerLoads.UNKNOWN));
        assertThat(placer).isPresent();
        Optional<SplitPlacer> none = withConnector(icebergProperties(), coordinatorContext(false), connector -> connector.injector().getInstance(SplitPlacerFactory.class).createPlacer(WorkerLoads.UNKNOWN));
        assertThat(none).as("NO_PREFERENCE by default: Iceberg's splits as Iceberg makes them").isEmpty();
    }

    @Test
    void invalidCatalogsFailNamingTheProperty()
    {
        assertThatThrownBy(() -> new OverdriveIcebergConnectorFactory().create("lake", with(icebergProperties(), Map.of("overdrive.no-such-property", "true")), new TestingConnectorContext()))
                .hasMessageContaining("overdrive.no-such-property")
                .hasMessageContaining("was not used");
        assertThatThrownBy(() -> new OverdriveIcebergConnectorFactory().create("lake", with(icebergProperties(), Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB",
                "fs.cache.enabled", "true",
                "fs.cache.directories", warehouse.resolve("trino-cache").toString())), workerContext()))
                .hasStackTraceContaining("cache.enabled=true (Overdrive's page cache) and fs.cache.enabled=true (Trino's file system cache) cannot be used in one catalog");
        assertThatThrownBy(() -> new OverdriveIcebergConnectorFactory().create("lake", with(icebergProperties(), Map.of("cache.enabled", "true", "cache.base-directory", warehouse.resolve("cache").toString())), workerContext()))
                .hasStackTraceContaining("cache.max-size must be set when cache.enabled=true");
    }

    private <T> T withConnector(Map<String, String> properties, ConnectorContext context, Function<OverdriveConnector, T> action)
    {
        Connector connector = new OverdriveIcebergConnectorFactory().create("lake", properties, context);
        try {
            assertThat(connector).isInstanceOf(OverdriveConnector.class);
            return action.apply((OverdriveConnector) connector);
        }
        finally {
            connector.shutdown();
        }
    }

    private static Optional<TrinoFileSystemCache> boundCache(Injector injector)
    {
        return injector.getInstance(Key.get(new TypeLiteral<Optional<TrinoFileSystemCache>>() {}));
    }

    private Map<String, String> icebergProperties()
    {
        return ImmutableMap.of(
                "iceberg.catalog.type", "TESTING_FILE_METASTORE",
                "hive.metastore.catalog.dir", warehouse.toUri().toString(),
                "fs.local.enabled", "true",
                "local.location", warehouse.toString());
    }

    private static Map<String, String> with(Map<String, String> properties, Map<String, String> overrides)
    {
        Map<String, String> merged = new HashMap<>(properties);
        merged.putAll(overrides);
        return ImmutableMap.copyOf(merged);
    }
}
