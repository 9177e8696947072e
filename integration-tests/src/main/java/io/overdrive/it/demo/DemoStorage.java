package io.overdrive.it.demo;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.S3Storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * The demo's lake: real HDFS (3 DataNodes) or a real S3 server, made to answer like remote storage, with the catalog
 * properties that read it and the storage's own count of what it served.
 */
sealed interface DemoStorage
        extends AutoCloseable
        permits DemoStorage.Hdfs, DemoStorage.S3
{
    /** Where the demo keeps its tables: {@code --storage hdfs} or {@code --storage s3}. */
    enum Kind
    {
        HDFS, S3;

        static Kind parse(String value)
        {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "hdfs" -> HDFS;
                case "s3" -> S3;
                default -> throw new IllegalArgumentException("--storage must be hdfs or s3, not '%s'".formatted(value));
            };
        }
    }

    // an object store's first-byte latency has a heavy tail: for AWS S3 most GETs answer within tens of milliseconds and
    // under 5% wait more than 200 ms (Durner et al., "Exploiting Cloud Object Storage for High-Performance Analytics",
    // VLDB 2023); here 5% of the GETs wait a further random 0-400 ms, so 2.5% wait more than 200 ms
    double S3_TAIL_SHARE = 0.05;
    Duration S3_TAIL = Duration.ofMillis(400);
    // the slow-node scenario on S3: one of three servers behind the store's name is slow, so a third of the GETs reach it
    double S3_SLOW_ENDPOINT_SHARE = 1.0 / 3;

    static DemoStorage start(ProjectLayout layout, DemoOptions options)
    {
        return switch (options.storageKind()) {
            case HDFS -> new Hdfs(HdfsCluster.start(layout, options.work().resolve("hdfs"), 3), options.work().resolve("trino-cache-hdfs-site.xml"), options);
            case S3 -> new S3(S3Storage.start(layout, options.work().resolve("s3"), "lake"));
        };
    }

    /** What serves the lake, in a line: "HDFS (1 NameNode, 3 DataNodes)". */
    String description();

    /** Where it listens, for the person who runs {@code --serve}. */
    String address();

    /**
     * The stock catalog's properties for tables in {@code format}: the storage and Trino's file metastore on it at
     * {@code metastorePath}.
     */
    Map<String, String> catalog(LakeFormat format, String metastorePath);

    /** The {@code trino_cache} catalog: the stock one with Trino's own cache, and what else this storage lets a Trino user switch on. */
    Map<String, String> withTrinoCache(Map<String, String> stock, String cacheDirectory, String cacheSize);

    /** What the {@code trino_cache} catalog adds to Trino's cache on this storage, for the report. */
    String trinoCacheExtras(DemoOptions options);

    /** Makes the storage answer like a healthy lake: {@code --storage-latency}, {@code --storage-bandwidth}. */
    void healthy(DemoOptions options);

    /** Adds the slow-node scenario's fault to the healthy lake. */
    void slowNode(DemoOptions options);

    /** Who counts the storage bytes and requests, for the report: "the DataNodes". */
    String counter();

    /** Bytes the storage has served since it started (data and metadata). */
    long bytesRead();

    /** Read requests the storage has served since it started. */
    long readRequests();

    /**
     * Distinct bytes the storage served since {@link #resetDistinctBytes()}: each byte of each file once, however many
     * reads sent it; empty where the storage cannot tell (HDFS's DataNodes count bytes, not ranges).
     */
    default OptionalLong distinctBytes()
    {
        return OptionalLong.empty();
    }

    default void resetDistinctBytes() {}

    @Override
    void close();

    final class Hdfs
            implements DemoStorage
    {
        private final HdfsCluster hdfs;
        private final Path hdfsSite;

        Hdfs(HdfsCluster hdfs, Path hdfsSite, DemoOptions options)
        {
            this.hdfs = requireNonNull(hdfs, "hdfs is null");
            this.hdfsSite = HiveCatalogs.writeHedgedHdfsSite(hdfsSite, options.hdfsHedgeThreshold());
        }

        @Override
        public String description()
        {
            return "HDFS (1 NameNode, 3 DataNodes)";
        }

        @Override
        public String address()
        {
            return "%s  (NameNode)".formatted(hdfs.nameNodeUri());
        }

        @Override
        public Map<String, String> catalog(LakeFormat format, String metastorePath)
        {
            return switch (format) {
                case HIVE -> HiveCatalogs.hiveOnHdfs(hdfs, metastorePath);
                case ICEBERG -> HiveCatalogs.icebergOnHdfs(hdfs, metastorePath);
            };
        }

        @Override
        public Map<String, String> withTrinoCache(Map<String, String> stock, String cacheDirectory, String cacheSize)
        {
            return HiveCatalogs.withTrinoCache(stock, cacheDirectory, cacheSize, hdfsSite);
        }

        @Override
        public String trinoCacheExtras(DemoOptions options)
        {
            return "HDFS's own hedged reads (`hdfs-site.xml`: 128 threads, threshold %d ms, the best of 10 ms to 2 s for stock Trino on this storage in `./overdrive bench hedge`)"
                    .formatted(options.hdfsHedgeThreshold().toMillis());
        }

        @Override
        public void healthy(DemoOptions options)
        {
            hdfs.setReadDelay(options.storageLatency());
            if (options.storageBandwidth() > 0) {
                hdfs.setReadBandwidth(options.storageBandwidth());
            }
            else {
                hdfs.clearReadBandwidth();
            }
            hdfs.clearSlowDataNode();
        }

        @Override
        public void slowNode(DemoOptions options)
        {
            hdfs.setSlowDataNode(0, Duration.ZERO, options.slowDataNode());
        }


        @Override
        public String counter()
        {
            return "the DataNodes";
        }

        @Override
        public long bytesRead()
        {
            return hdfs.bytesRead();
        }

        @Override
        public long readRequests()
        {
            return hdfs.readRequests();
        }

        @Override
        public void close()
        {
            hdfs.close();
        }
    }

    final class S3
            implements DemoStorage
    {
        private final S3Storage s3;

        S3(S3Storage s3)
        {
            this.s3 = requireNonNull(s3, "s3 is null");
        }

        @Override
        public String description()
        {
            return "S3 (s3proxy over the local file system, one bucket, Trino's native S3 file system)";
        }

        @Override
        public String address()
        {
            return "%s  (S3 endpoint, bucket %s, path-style)".formatted(s3.endpoint(), s3.bucket());
        }

        @Override
        public Map<String, String> catalog(LakeFormat format, String metastorePath)
        {
            return switch (format) {
                case HIVE -> HiveCatalogs.hiveOnS3(s3, metastorePath);
                case ICEBERG -> HiveCatalogs.icebergOnS3(s3, metastorePath);
            };
        }

        @Override
        public Map<String, String> withTrinoCache(Map<String, String> stock, String cacheDirectory, String cacheSize)
        {
            // Trino has no hedged reads for object stores: its cache is all a Trino user can add
            Map<String, String> properties = new LinkedHashMap<>(stock);
            properties.put("fs.cache.enabled", "true");
            properties.put("fs.cache.directories", cacheDirectory);
            properties.put("fs.cache.max-sizes", cacheSize);
            return properties;
        }

        @Override
        public String trinoCacheExtras(DemoOptions options)
        {
            return "nothing else: Trino's S3 file system has no hedged reads (its client retries throttled and failed requests, as every catalog's does)";
        }

        @Override
        public void healthy(DemoOptions options)
        {
            // no latency asked: loopback speed, no tail either
            boolean remote = !options.storageLatency().isZero();
            s3.setFirstByteLatency(options.storageLatency(), remote ? S3_TAIL : Duration.ZERO, remote ? S3_TAIL_SHARE : 0);
            s3.setBandwidth(options.storageBandwidth());
            s3.setSlowEndpoint(0, Duration.ZERO);
        }

        @Override
        public void slowNode(DemoOptions options)
        {
            s3.setSlowEndpoint(S3_SLOW_ENDPOINT_SHARE, options.slowDataNode());
        }


        @Override
        public String counter()
        {
            return "the S3 server";
        }

        @Override
        public long bytesRead()
        {
            return s3.getBytes();
        }

        @Override
        public OptionalLong distinctBytes()
        {
            return OptionalLong.of(s3.distinctBytes());
        }

        @Override
        public void resetDistinctBytes()
        {
            s3.resetDistinctBytes();
        }

        @Override
        public long readRequests()
        {
            return s3.getRequests();
        }

        @Override
        public void close()
        {
            s3.close();
        }
    }

}
