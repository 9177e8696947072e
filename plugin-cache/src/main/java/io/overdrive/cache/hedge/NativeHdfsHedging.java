package io.overdrive.cache.hedge;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Binding;
import com.google.inject.Injector;
import com.google.inject.Key;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.log.Logger;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.filesystem.manager.FileSystemModule;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Switches HDFS's own hedged reads ({@code dfs.client.hedged.read.*}: a hedge goes to a different replica) on from the
 * catalog's {@code hedged-read.*} properties. Trino builds its HDFS client in a separate class loader from the catalog's
 * properties, and the one place there that takes arbitrary Hadoop settings is {@code hive.config.resources}: the
 * settings are written to a Hadoop configuration file, added last to that list, so they win over the same settings in
 * the operator's own files.
 */
public final class NativeHdfsHedging
{
    static final String THREADPOOL_SIZE = "dfs.client.hedged.read.threadpool.size";
    static final String THRESHOLD_MILLIS = "dfs.client.hedged.read.threshold.millis";
    private static final String CONFIG_RESOURCES = "hive.config.resources";
    private static final Logger log = Logger.get(NativeHdfsHedging.class);

    private NativeHdfsHedging() {}

    /** The catalog's properties, with HDFS's hedged read settings added where HDFS's own hedging applies. */
    public static Map<String, String> configure(String catalogName, Map<String, String> properties)
    {
        ConfigurationFactory configurationFactory = new ConfigurationFactory(properties);
        HedgedReadConfig config = configurationFactory.build(HedgedReadConfig.class);
        FileSystemConfig fileSystem = configurationFactory.build(FileSystemConfig.class);
        if (!HedgedReads.usesNativeHdfs(config, fileSystem)) {
            return properties;
        }
        long thresholdMillis = HedgedReads.nativeInitialThresholdMillis(config);
        Path resource = writeResource(catalogName, config.getThreadPoolSize(), thresholdMillis);
        Map<String, String> configured = new HashMap<>(properties);
        configured.merge(CONFIG_RESOURCES, resource.toString(), (files, added) -> files + "," + added);
        log.info("Catalog %s: HDFS hedged reads on (%s=%s, %s=%s%s)", catalogName, THREADPOOL_SIZE, config.getThreadPoolSize(), THRESHOLD_MILLIS, thresholdMillis,
                config.isAdaptive() ? ", adapted four times a second from the catalog's reads" : "");
        return ImmutableMap.copyOf(configured);
    }

    /**
     * Adds HDFS's own counters to the catalog's {@link HedgedReadStats} where HDFS's own hedging is on, and starts
     * adapting its threshold where that is {@code adaptive}.
     */
    public static void exportCounters(Injector injector)
    {
        if (!HedgedReads.usesNativeHdfs(injector.getInstance(HedgedReadConfig.class), injector.getInstance(FileSystemConfig.class))) {
            return;
        }
        ClassLoader hdfsClassLoader = hdfsClassLoader(injector);
        HedgedReads hedgedReads = injector.getInstance(HedgedReads.class);
        if (hedgedReads.adaptsNativeThreshold()) {
            hedgedReads.startNativeThreshold(Optional.ofNullable(hdfsClassLoader)
                    .flatMap(HdfsClientThreshold::of)
                    .map(threshold -> threshold::set));
        }
        if (hdfsClassLoader != null) {
            injector.getInstance(HedgedReadStats.class).setNativeMetrics(NativeHedgedReadMetrics.of(hdfsClassLoader));
            log.info("HDFS's own hedged read counters are part of HedgedReadStats (HDFS client class loader %s)", hdfsClassLoader);
        }
    }

    private static Path writeResource(String catalogName, int threads, long thresholdMillis)
    {
        String xml = """
                <?xml version="1.0"?>
                <!-- written by Overdrive from the catalog's hedged-read.* properties -->
                <configuration>
                  <property><name>%s</name><value>%s</value></property>
                  <property><name>%s</name><value>%s</value></property>
                </configuration>
                """.formatted(THREADPOOL_SIZE, threads, THRESHOLD_MILLIS, thresholdMillis);
        try {
            Path file = Files.createTempFile("overdrive-hedged-read-" + catalogName.replaceAll("[^A-Za-z0-9_-]", "_") + "-", ".xml");
            Files.writeString(file, xml, UTF_8);
            file.toFile().deleteOnExit();
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot write the HDFS settings of hedged-read.* to a temporary file", e);
        }
    }

    // Trino loads HDFS in its own class loader (plugin/<name>/hdfs/), reachable only through its package-private loader
    private static ClassLoader hdfsClassLoader(Injector injector)
    {
        try {
            Class<?> loaderClass = Class.forName("io.trino.filesystem.manager.HdfsFileSystemLoader", false, FileSystemModule.class.getClassLoader());
            Binding<?> binding = injector.getExistingBinding(Key.get(loaderClass));
            if (binding == null) {
                log.warn("HDFS's hedged read counters cannot be found: no HDFS in this catalog");
                return null;
            }
            Object loader = binding.getProvider().get();
            Field manager = loaderClass.getDeclaredField("manager");
            manager.setAccessible(true);
            return manager.get(loader).getClass().getClassLoader();
        }
        catch (ReflectiveOperationException | RuntimeException e) {
            log.warn(e, "HDFS's hedged read counters cannot be found: HedgedReadOps and its siblings count Overdrive's wrapper only");
            return null;
        }
    }
}
