package io.overdrive.cache.connector;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.OverdrivePlugin;
import io.overdrive.cache.coordinator.CoordinatorFileCache;
import io.overdrive.cache.flush.FlushCacheHandle;
import io.overdrive.cache.flush.FlushCacheSplit;
import io.overdrive.cache.hedge.HedgingFileSystemCache;
import io.overdrive.cache.hedge.NativeHdfsHedging;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.TableFilter;
import io.overdrive.scheduler.affinity.SplitPlacer;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.WorkerLoads;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.node.InternalNode;
import io.trino.plugin.hive.HiveConnector;
import io.trino.plugin.hive.HiveTransactionHandle;
import io.trino.spi.NodeVersion;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.testing.TestingConnectorContext;
import io.trino.testing.TestingNodeManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

import static com.google.common.base.Throwables.getStackTraceAsString;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.overdrive.cache.TestingNodeContexts.coordinatorContext;
import static io.trino.testing.connector.TestingConnectorSession.SESSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

class TestOverdriveHiveConnectorFactory
{
    @TempDir
    Path warehouse;

    @Test
    void pluginRegistersOverdriveHiveAndIceberg()
    {
        assertThat(new OverdrivePlugin().getConnectorFactories()).extracting(ConnectorFactory::getName).containsExactly("overdrive_hive", "overdrive_iceberg");
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
            assertThat(((OverdriveConnector) connector).delegate()).isInstanceOf(HiveConnector.class);
            // Hive's session properties, and Overdrive's beside them
            Set<String> names = connector.getSessionProperties().stream().map(property -> property.getName()).collect(toImmutableSet());
            assertThat(names).contains("parquet_use_column_index", "cache_enabled", "cache_populate", "hedged_reads_enabled", "shared_scans_enabled", "soft_affinity_enabled");
            assertThat(connector.getSessionProperties()).hasSize(((OverdriveConnector) connector).delegate().getSessionProperties().size() + 5);
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
            return type.getDeclaredMethod(method.getName(), method.getParameterTypes()) != null;
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
    void pageCacheIsBoundOnNodesThatRunSplits()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("cache.enabled", "true")
                .put("cache.base-directory", warehouse.resolve("cache").toString())
                .put("cache.max-size", "64MB")
                .buildOrThrow();
        assertThat(boundCache(properties, workerContext(false))).containsInstanceOf(OverdriveFileSystemCache.class);
        assertThat(boundCache(properties, coordinatorContext(true))).as("node-scheduler.include-coordinator=true: the coordinator runs splits").containsInstanceOf(OverdriveFileSystemCache.class);
        assertThat(boundCache(properties, coordinatorContext(false))).as("a coordinator that runs no splits reads no data pages, only metadata: the memory tier").containsInstanceOf(CoordinatorFileCache.class);
        assertThat(boundCache(hiveProperties(), workerContext(false))).as("off by default").isEmpty();
        assertThat(boundCache(with(hiveProperties(), Map.of("hedged-read.mode", "WRAPPER")), workerContext(false))).as("the page cache off, the wrapper asked for: only the hedging seam").containsInstanceOf(HedgingFileSystemCache.class);
    }

    @Test
    void flushCacheRunsOnEveryNodeThatRunsSplits()
    {
        assertThat(flushCacheNodes(coordinatorContext(true))).containsExactly("coordinator", "worker-1", "worker-2");
        assertThat(flushCacheNodes(coordinatorContext(false))).containsExactly("worker-1", "worker-2");
    }

    @Test
    void softAffinityPlacesSplitsOnEveryNodeThatRunsSplits()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("node-selection-strategy", "SOFT_AFFINITY")
                .buildOrThrow();
        assertThat(placedOn(properties, coordinatorContext(true))).containsExactlyInAnyOrder("coordinator", "worker-1", "worker-2");
        assertThat(placedOn(properties, coordinatorContext(false))).containsExactlyInAnyOrder("worker-1", "worker-2");
    }

    @Test
    void mbeanNamesAreTheDocumentedOnes()
            throws Exception
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("cache.enabled", "true")
                .put("cache.base-directory", warehouse.resolve("cache").toString())
                .put("cache.max-size", "64MB")
                .buildOrThrow();
        Connector connector = new OverdriveHiveConnectorFactory().create("jmx_names", properties, coordinatorContext(true));
        try {
            // the names README.md and docs/ give
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            assertThat(server.queryNames(new ObjectName("*:type=PlacementStats,name=jmx_names,*"), null))
                    .containsExactly(new ObjectName("io.overdrive.scheduler.affinity:type=PlacementStats,name=jmx_names,catalog=jmx_names"));
            assertThat(server.queryNames(new ObjectName("*:type=PageCacheStats,name=jmx_names,*"), null))
                    .containsExactly(new ObjectName("io.overdrive.cache.page:type=PageCacheStats,name=jmx_names,catalog=jmx_names"));
            assertThat(server.queryNames(new ObjectName("*:type=SharedScanStats,name=jmx_names,*"), null))
                    .containsExactly(new ObjectName("io.overdrive.cache.scan:type=SharedScanStats,name=jmx_names,catalog=jmx_names"));
        }
        finally {
            connector.shutdown();
        }
    }

    @Test
    void invalidEnumValuesNameThePropertyAndListTheAllowedValues()
    {
        assertInvalidCatalog("cache.eviction-policy", "FIFO", "cache.eviction-policy must be one of LRU, LFU");
        assertInvalidCatalog("node-selection-strategy", "SOFTLY", "node-selection-strategy must be one of NO_PREFERENCE, SOFT_AFFINITY, HARD_AFFINITY");
        assertInvalidCatalog("node-selection.affinity-granularity", "BLOCK", "node-selection.affinity-granularity must be one of FILE, SPLIT");
    }

    @Test
    void invalidTablePatternsFailTheCatalogOnEveryNode()
    {
        assertInvalidCatalog("cache.include-tables", "sales.*,orders",
                "cache.include-tables entry 'orders' is not schema.table: name the schema too, for example sales.orders, or *.orders for a table of that name in any schema");
        assertInvalidCatalog("cache.exclude-tables", "lake.sales.orders",
                "cache.exclude-tables entry 'lake.sales.orders' has more than one dot: write schema.table, without the catalog (the property applies to this catalog's tables)");
    }

    @Test
    void tableFiltersReachTheCache()
    {
        Map<String, String> properties = with(hiveProperties(), Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB",
                "cache.include-tables", "sales.*",
                "cache.exclude-tables", "*.tmp_*"));
        TableFilter filter = boundCache(properties, workerContext(false))
                .map(OverdriveFileSystemCache.class::cast)
                .orElseThrow()
                .tableFilter();
        assertThat(filter.caches(CacheReadContext.forTable("sales", "orders", true))).isTrue();
        assertThat(filter.caches(CacheReadContext.forTable("sales", "tmp_orders", true))).isFalse();
        assertThat(filter.caches(CacheReadContext.forTable("hr", "employees", true))).isFalse();
    }

    private void assertInvalidCatalog(String property, String value, String message)
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put(property, value)
                .buildOrThrow();
        // on workers and on the coordinator alike
        for (ConnectorContext context : List.of(workerContext(false), coordinatorContext(true), coordinatorContext(false))) {
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, context))
                    .hasMessageContaining("Invalid configuration property %s: %s".formatted(property, message));
        }
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
    void perUserStorageCredentialsAreRefusedWithTheCacheOnEveryNode()
            throws Exception
    {
        Path mapping = Files.writeString(warehouse.resolve("s3-mapping.json"), "{\"mappings\": [{\"user\": \"alice\", \"accessKey\": \"a\", \"secretKey\": \"b\"}]}");
        Map<String, String> cache = with(hiveProperties(), Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB"));
        Map<Map<String, String>, String> perUser = Map.of(
                Map.of("fs.hadoop.enabled", "true", "hive.hdfs.impersonation.enabled", "true"), "hive.hdfs.impersonation.enabled=true",
                Map.of("fs.s3.enabled", "true", "s3.region", "us-east-1", "s3.security-mapping.enabled", "true", "s3.security-mapping.config-file", mapping.toString()), "s3.security-mapping.enabled=true",
                Map.of("fs.gcs.enabled", "true", "gcs.auth-type", "access_token"), "gcs.auth-type=ACCESS_TOKEN");
        perUser.forEach((storage, property) -> {
            // on workers and on the coordinator alike: its memory tier (cache.coordinator.*) is on with cache.enabled=true
            for (ConnectorContext context : List.of(workerContext(false), coordinatorContext(true), coordinatorContext(false))) {
                assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", with(cache, storage), context))
                        .as("%s", storage)
                        .hasStackTraceContaining("cache.enabled=true (Overdrive's cache) cannot be used with %s".formatted(property))
                        .hasStackTraceContaining("set cache.enabled=false in this catalog");
            }
            // a dry run serves nothing: it is allowed
            Throwable dryRun = catchThrowable(() -> new OverdriveHiveConnectorFactory().create("lake", with(with(cache, storage), Map.of("cache.dry-run", "true")), workerContext(false)).shutdown());
            if (dryRun != null) {
                assertThat(getStackTraceAsString(dryRun)).as("%s", storage).doesNotContain("cannot be used with " + property);
            }
            // and without the cache, the catalog is stock Hive's
            Throwable noCache = catchThrowable(() -> new OverdriveHiveConnectorFactory().create("lake", with(hiveProperties(), storage), workerContext(false)).shutdown());
            if (noCache != null) {
                assertThat(getStackTraceAsString(noCache)).as("%s", storage).doesNotContain("cannot be used with " + property);
            }
        });
        // the same values turned off are fine
        new OverdriveHiveConnectorFactory().create("lake", with(cache, Map.of("fs.gcs.enabled", "true", "gcs.auth-type", "APPLICATION_DEFAULT")), workerContext(false)).shutdown();
    }

    @Test
    void enabledCacheWithoutDirectoryNamesThePropertyOnEveryNode()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("cache.enabled", "true")
                .put("cache.max-size", "64MB")
                .buildOrThrow();
        // a coordinator that runs no splits does not cache, but still validates the catalog's cache.* properties
        for (ConnectorContext context : List.of(workerContext(false), coordinatorContext(false))) {
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, context))
                    .hasMessageContaining("cache.base-directory must name at least one directory when cache.enabled=true");
        }
    }

    @Test
    void sharedScansAreOnWhereverThePageCacheRuns()
    {
        Map<String, String> cache = with(hiveProperties(), Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB"));
        assertThat(sharedScans(cache)).as("on by default").isTrue();
        assertThat(sharedScans(with(cache, Map.of("cache.shared-scans.enabled", "false")))).isFalse();
        assertThat(sharedScans(with(cache, Map.of("cache.dry-run", "true")))).as("a dry run changes nothing about reads").isFalse();
        // hedged reads hedge the shared fetches
        assertThat(sharedScans(with(cache, Map.of("hedged-read.threadpool-size", "4")))).isTrue();
    }

    private boolean sharedScans(Map<String, String> properties)
    {
        return boundCache(properties, workerContext(false))
                .map(OverdriveFileSystemCache.class::cast)
                .orElseThrow()
                .sharedScans()
                .isPresent();
    }

    @Test
    void sharedScanMisconfigurationFailsTheCatalogNamingTheProperty()
    {
        assertInvalidSharedScans(Map.of("cache.read-ahead", "-1"), "cache.read-ahead must be 0 (off) or more pages");
        assertInvalidSharedScans(Map.of("cache.read-ahead", "2000"), "cache.read-ahead must be at most 1024 pages");
        assertInvalidSharedScans(Map.of("cache.shared-scans.max-wait", "0s"), "cache.shared-scans.max-wait must be at least 1ms");
        assertInvalidSharedScans(Map.of("cache.shared-scans.enabled", "false", "cache.read-ahead", "8"),
                "cache.read-ahead=8 reads ahead for shared scans, which cache.shared-scans.enabled=false turns off: remove cache.read-ahead, or set cache.shared-scans.enabled=true");
        assertInvalidSharedScans(Map.of("cache.read-ahead", "8", "cache.read-ahead-max-memory", "4MB"),
                "cache.read-ahead-max-memory=4MB is less than one read-ahead (cache.read-ahead=8 pages of cache.page-size=1MB), so nothing would ever be read ahead: set cache.read-ahead-max-memory to at least 8MB, or lower cache.read-ahead");
    }

    @Test
    void peerReadMisconfigurationFailsTheCatalogNamingTheProperty()
    {
        String secret = "0123456789abcdef0123";
        assertInvalidSharedScans(Map.of("cache.peer.shared-secret", "short"),
                "cache.peer.shared-secret must be at least 16 characters: use a random string, for example the output of openssl rand -hex 32");
        assertInvalidSharedScans(Map.of("cache.peer.shared-secret", secret, "cache.shared-scans.enabled", "false"),
                "cache.peer.shared-secret turns peer reads on, which read through shared scans and a cache that stores pages, but cache.shared-scans.enabled=false: remove cache.shared-scans.enabled, or remove cache.peer.shared-secret");
        assertInvalidSharedScans(Map.of("cache.peer.shared-secret", secret, "cache.dry-run", "true"),
                "cache.peer.shared-secret turns peer reads on, which read through shared scans and a cache that stores pages, but cache.dry-run=true: remove cache.dry-run, or remove cache.peer.shared-secret");
        assertInvalidSharedScans(Map.of("cache.peer.read-timeout", "0s"), "cache.peer.read-timeout must be at least 1ms");
        for (ConnectorContext context : List.of(workerContext(false), coordinatorContext(false))) {
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", with(hiveProperties(), Map.of("cache.peer.shared-secret", secret)), context))
                    .hasStackTraceContaining("cache.peer.shared-secret turns peer reads on, which serve and read the page cache's pages, but cache.enabled=false: set cache.enabled=true, or remove cache.peer.shared-secret");
        }
    }

    private void assertInvalidSharedScans(Map<String, String> sharedScans, String message)
    {
        Map<String, String> properties = with(hiveProperties(), ImmutableMap.<String, String>builder()
                .put("cache.enabled", "true")
                .put("cache.base-directory", warehouse.resolve("cache").toString())
                .put("cache.max-size", "64MB")
                .putAll(sharedScans)
                .buildOrThrow());
        for (ConnectorContext context : List.of(workerContext(false), coordinatorContext(false))) {
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, context))
                    .as("%s", sharedScans)
                    .hasStackTraceContaining(message);
        }
    }

    @Test
    void hedgingWrapperIsBoundWhereSplitsRun()
    {
        // local storage: not hedged by default (HDFS by HDFS's own hedging, object stores by the wrapper); hedged-read.mode=WRAPPER hedges it
        assertThat(boundCache(hiveProperties(), workerContext(false))).as("hedging on by default, but not for local files").isEmpty();
        assertThat(boundCache(with(hiveProperties(), Map.of("hedged-read.mode", "AUTO")), workerContext(false))).as("AUTO, set: still not local files").isEmpty();
        Map<String, String> s3 = with(hiveProperties(), Map.of("fs.native-s3.enabled", "true", "s3.region", "us-east-1"));
        assertThat(boundCache(s3, workerContext(false))).as("S3 on: the wrapper hedges it by default").containsInstanceOf(HedgingFileSystemCache.class);
        assertThat(boundCache(with(s3, Map.of("hedged-read.threadpool-size", "0")), workerContext(false))).as("hedging off").isEmpty();
        Map<String, String> hedging = with(hiveProperties(), Map.of("hedged-read.threadpool-size", "4", "hedged-read.mode", "WRAPPER"));
        assertThat(boundCache(hedging, workerContext(false))).as("no page cache: the wrapper takes the seam").containsInstanceOf(HedgingFileSystemCache.class);
        assertThat(boundCache(hedging, coordinatorContext(true))).containsInstanceOf(HedgingFileSystemCache.class);
        assertThat(boundCache(hedging, coordinatorContext(false))).as("a coordinator that runs no splits reads no data").isEmpty();
        assertThat(boundCache(with(hiveProperties(), Map.of("hedged-read.threadpool-size", "0", "hedged-read.mode", "WRAPPER")), workerContext(false))).as("a pool of 0 turns hedging off").isEmpty();
        Map<String, String> withPageCache = with(hedging, Map.of(
                "cache.enabled", "true",
                "cache.base-directory", warehouse.resolve("cache").toString(),
                "cache.max-size", "64MB"));
        assertThat(boundCache(withPageCache, workerContext(false))).as("the page cache hedges its misses itself").containsInstanceOf(OverdriveFileSystemCache.class);
        // HDFS's own hedging (HDFS is not on this test's class path): TestHedgedReadsMultiProcess
    }

    @Test
    void hedgingMisconfigurationFailsTheCatalogNamingTheProperty()
    {
        assertInvalidHedging(Map.of("hedged-read.threshold", "0ms"), "hedged-read.threshold must be a duration above 0 (e.g. 500ms) or 'adaptive'");
        assertInvalidHedging(Map.of("hedged-read.threshold", "soon"), "hedged-read.threshold must be a duration above 0 (e.g. 500ms) or 'adaptive'");
        assertInvalidHedging(Map.of("hedged-read.max-ratio", "0"), "hedged-read.max-ratio must be above 0 and at most 1");
        assertInvalidHedging(Map.of("hedged-read.max-ratio", "1.5"), "hedged-read.max-ratio must be above 0 and at most 1");
        assertInvalidHedging(Map.of("hedged-read.adaptive-percentile", "100"), "hedged-read.adaptive-percentile must be above 0 and below 100");
        assertInvalidHedging(Map.of("hedged-read.adaptive-min", "2s", "hedged-read.adaptive-max", "1s"), "hedged-read.adaptive-min must not be above hedged-read.adaptive-max");
        assertInvalidHedging(Map.of("hedged-read.adaptive-factor", "0.5"), "hedged-read.adaptive-factor must be at least 1");
        assertInvalidHedging(Map.of("hedged-read.mode", "NATIVE"), "hedged-read.mode=native uses HDFS's own hedged reads, but HDFS is off: set fs.hadoop.enabled=true, or hedged-read.mode=auto or wrapper for other storage");
        assertInvalidHedging(Map.of("hedged-read.mode", "SOMETIMES"), "hedged-read.mode must be one of AUTO, NATIVE, WRAPPER");
        assertInvalidHedging(
                Map.of("hedged-read.mode", "WRAPPER", "fs.cache.enabled", "true", "fs.cache.directories", warehouse.resolve("trino-cache").toString(), "fs.cache.max-sizes", "64MB"),
                "hedged-read.mode=wrapper cannot be used with fs.cache.enabled=true");
    }

    private void assertInvalidHedging(Map<String, String> hedging, String message)
    {
        Map<String, String> properties = with(hiveProperties(), ImmutableMap.<String, String>builder()
                .put("hedged-read.threadpool-size", "4")
                .putAll(hedging)
                .buildOrThrow());
        // on workers and on the coordinator alike
        for (ConnectorContext context : List.of(workerContext(false), coordinatorContext(false))) {
            assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, context))
                    .as("%s", hedging)
                    .hasStackTraceContaining(message);
        }
    }

    @Test
    void nativeHedgingConfiguresHdfsAfterTheOperatorsOwnFiles()
            throws Exception
    {
        Path operatorFile = Files.writeString(warehouse.resolve("hdfs-site.xml"), "<configuration/>");
        Map<String, String> properties = Map.of(
                "fs.hadoop.enabled", "true",
                "hive.config.resources", operatorFile.toString(),
                "hedged-read.threadpool-size", "8",
                "hedged-read.threshold", "150ms");
        Map<String, String> configured = NativeHdfsHedging.configure("lake", properties);
        List<String> resources = List.of(configured.get("hive.config.resources").split(","));
        assertThat(resources).hasSize(2).first().isEqualTo(operatorFile.toString());
        assertThat(Files.readString(Path.of(resources.get(1))))
                .contains("<name>dfs.client.hedged.read.threadpool.size</name><value>8</value>")
                .contains("<name>dfs.client.hedged.read.threshold.millis</name><value>150</value>");
        assertThat(configured).containsAllEntriesOf(Map.of("hedged-read.threadpool-size", "8", "hedged-read.threshold", "150ms"));

        // adaptive (the default): the clients start at hedged-read.adaptive-initial, and are adapted once they read
        Map<String, String> adaptive = NativeHdfsHedging.configure("lake", with(properties, Map.of("hedged-read.threshold", "adaptive", "hedged-read.adaptive-initial", "3s")));
        assertThat(Files.readString(Path.of(adaptive.get("hive.config.resources").split(",")[1])))
                .contains("<name>dfs.client.hedged.read.threadpool.size</name><value>8</value>")
                .contains("<name>dfs.client.hedged.read.threshold.millis</name><value>3000</value>");
        // the defaults: on, 32 threads, adaptive
        Map<String, String> defaults = NativeHdfsHedging.configure("lake", Map.of("fs.hadoop.enabled", "true"));
        assertThat(Files.readString(Path.of(defaults.get("hive.config.resources"))))
                .contains("<name>dfs.client.hedged.read.threadpool.size</name><value>32</value>")
                .contains("<name>dfs.client.hedged.read.threshold.millis</name><value>500</value>");

        // where HDFS's own hedging does not apply, the properties are left alone
        assertThat(NativeHdfsHedging.configure("lake", with(properties, Map.of("hedged-read.mode", "wrapper")))).isEqualTo(with(properties, Map.of("hedged-read.mode", "wrapper")));
        assertThat(NativeHdfsHedging.configure("lake", with(properties, Map.of("hedged-read.threadpool-size", "0")))).isEqualTo(with(properties, Map.of("hedged-read.threadpool-size", "0")));
        assertThat(NativeHdfsHedging.configure("lake", with(properties, Map.of("fs.hadoop.enabled", "false")))).isEqualTo(with(properties, Map.of("fs.hadoop.enabled", "false")));
    }

    @Test
    void hedgedReadStatsHaveTheDocumentedName()
            throws Exception
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("jmx_hedge", with(hiveProperties(), Map.of("hedged-read.threadpool-size", "4")), workerContext(false));
        try {
            assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("*:type=HedgedReadStats,name=jmx_hedge,*"), null))
                    .containsExactly(new ObjectName("io.overdrive.cache.hedge:type=HedgedReadStats,name=jmx_hedge,catalog=jmx_hedge"));
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

    private List<String> flushCacheNodes(ConnectorContext context)
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", hiveProperties(), context);
        try (ConnectorSplitSource splits = connector.getSplitManager().getSplits(new HiveTransactionHandle(true), SESSION, new FlushCacheHandle(true, List.of()))) {
            return splits.getNextBatch(100, DynamicFilterSnapshot.EMPTY).join().stream()
                    .map(split -> ((FlushCacheSplit) split).nodeId())
                    .toList();
        }
        finally {
            connector.shutdown();
        }
    }

    private Set<String> placedOn(Map<String, String> properties, ConnectorContext context)
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", properties, context);
        try {
            SplitPlacer placer = ((OverdriveConnector) connector).injector().getInstance(SplitPlacerFactory.class)
                    .createPlacer(WorkerLoads.UNKNOWN)
                    .orElseThrow();
            return IntStream.range(0, 300)
                    .mapToObj(file -> placer.place("hdfs://lake/table/file-" + file, 1).orElseThrow().worker().nodeId())
                    .collect(toImmutableSet());
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
