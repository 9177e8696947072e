package io.overdrive.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Catalog properties for a Hive-style catalog over a file metastore on HDFS. The stock {@code hive} catalog and the
 * {@code overdrive_hive} catalog get the same properties, so both see the same schemas, tables and files.
 */
public final class HiveCatalogs
{
    private HiveCatalogs() {}

    public static Map<String, String> hiveOnHdfs(HdfsCluster hdfs, String metastorePath)
    {
        return hiveOnHdfs(hdfs.nameNodeUri(), metastorePath);
    }

    /** The same, for an HDFS this harness did not start (a NameNode in a container): {@code hdfs://host:port}. */
    public static Map<String, String> hiveOnHdfs(URI nameNode, String metastorePath)
    {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("hive.metastore", "file");
        properties.put("hive.metastore.catalog.dir", nameNode + (metastorePath.startsWith("/") ? metastorePath : "/" + metastorePath));
        properties.put("fs.hadoop.enabled", "true");
        return properties;
    }

    /**
     * An Iceberg catalog over a file metastore on HDFS at {@code metastorePath}: the stock {@code iceberg} catalog and
     * the {@code overdrive_iceberg} catalog get the same properties, so both see the same tables and files.
     */
    public static Map<String, String> icebergOnHdfs(HdfsCluster hdfs, String metastorePath)
    {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("iceberg.catalog.type", "TESTING_FILE_METASTORE");
        properties.put("hive.metastore.catalog.dir", hdfs.nameNodeUri() + (metastorePath.startsWith("/") ? metastorePath : "/" + metastorePath));
        properties.put("fs.hadoop.enabled", "true");
        return properties;
    }

    /**
     * An Iceberg catalog over S3: Trino's native S3 file system for {@code s3}'s server and an Iceberg file metastore in
     * its bucket at {@code metastorePath}, so that table metadata and data both come from S3.
     */
    public static Map<String, String> icebergOnS3(S3Storage s3, String metastorePath)
    {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("iceberg.catalog.type", "TESTING_FILE_METASTORE");
        properties.put("hive.metastore.catalog.dir", s3.uri(metastorePath));
        properties.putAll(s3.catalogProperties());
        return properties;
    }

    /**
     * A Hive-style catalog over S3: Trino's native S3 file system for {@code s3}'s server and a file metastore in its
     * bucket at {@code metastorePath}, so that table metadata and data both come from S3.
     */
    public static Map<String, String> hiveOnS3(S3Storage s3, String metastorePath)
    {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("hive.metastore", "file");
        properties.put("hive.metastore.catalog.dir", s3.uri(metastorePath));
        properties.putAll(s3.catalogProperties());
        return properties;
    }

    /** The catalog's properties with hedged reads on: {@code threads} pool threads, the given mode, threshold and budget. */
    public static Map<String, String> withHedgedReads(Map<String, String> catalog, int threads, String mode, String threshold, String maxRatio)
    {
        Map<String, String> properties = new LinkedHashMap<>(catalog);
        properties.put("hedged-read.threadpool-size", Integer.toString(threads));
        properties.put("hedged-read.mode", mode);
        properties.put("hedged-read.threshold", threshold);
        properties.put("hedged-read.max-ratio", maxRatio);
        return properties;
    }

    /**
     * The catalog's properties with every Overdrive feature on, as the multi-process and container tests and
     * {@code docker/compose.yaml} set them: the page cache (relative to each server's working directory, so every
     * worker has its own; pages written in the background), soft affinity at its defaults, hedged
     * reads through the wrapper after {@code hedgeThreshold}, at most half of the reads hedged, and shared scans with
     * read-ahead (on by default with the cache).
     */
    public static Map<String, String> withEveryFeature(Map<String, String> catalog, String hedgeThreshold)
    {
        Map<String, String> properties = withHedgedReads(catalog, 32, "WRAPPER", hedgeThreshold, "0.5");
        properties.put("cache.enabled", "true");
        properties.put("cache.base-directory", "cache");
        properties.put("cache.max-size", "4GB");
        properties.put("cache.async-write-enabled", "true");
        properties.put("node-selection-strategy", "SOFT_AFFINITY");
        // every other placement property at its default: on 2 workers the load floor keeps each file on its first worker
        return properties;
    }

    /**
     * The best a Trino 483 user can configure without Overdrive: the stock catalog with Trino's own file system cache
     * ({@code fs.cache}, Alluxio's page cache with Trino's cache affinity, both at their defaults but for the directory
     * and size) and HDFS's own hedged reads in an operator's {@code hdfs-site.xml} ({@code hdfsSite}, see
     * {@link #writeHedgedHdfsSite}). {@code cacheDirectory} may be relative: each server resolves it against its own
     * working directory, so every worker has its own.
     */
    public static Map<String, String> withTrinoCache(Map<String, String> catalog, String cacheDirectory, String cacheSize, Path hdfsSite)
    {
        Map<String, String> properties = new LinkedHashMap<>(catalog);
        properties.put("fs.cache.enabled", "true");
        properties.put("fs.cache.directories", cacheDirectory);
        properties.put("fs.cache.max-sizes", cacheSize);
        properties.put("hive.config.resources", hdfsSite.toAbsolutePath().toString());
        return properties;
    }

    /**
     * Writes the {@code hdfs-site.xml} an operator writes to switch on HDFS's own hedged reads: 128 threads (as HDFS's
     * documentation's example) and the given threshold.
     */
    public static Path writeHedgedHdfsSite(Path file, Duration threshold)
    {
        String xml = """
                <?xml version="1.0"?>
                <configuration>
                  <property><name>dfs.client.hedged.read.threadpool.size</name><value>128</value></property>
                  <property><name>dfs.client.hedged.read.threshold.millis</name><value>%d</value></property>
                </configuration>
                """.formatted(threshold.toMillis());
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, xml);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /**
     * The catalog's properties with Overdrive's features switched on and nothing else set: the page cache ({@code
     * cacheDirectory}, relative to each server's working directory, and {@code cacheSize}), soft affinity, hedged reads
     * ({@code hedged-read.threadpool-size}, the switch that turns them on); every other property (preferred hosts, load
     * bound, hedging threshold and budget, shared scans, row-group prefetch, admission) at its shipped default.
     */
    public static Map<String, String> withShippedDefaults(Map<String, String> catalog, String cacheDirectory, String cacheSize)
    {
        Map<String, String> properties = new LinkedHashMap<>(catalog);
        properties.put("cache.enabled", "true");
        properties.put("cache.base-directory", cacheDirectory);
        properties.put("cache.max-size", cacheSize);
        properties.put("node-selection-strategy", "SOFT_AFFINITY");
        properties.put("hedged-read.threadpool-size", "32");
        return properties;
    }
}
