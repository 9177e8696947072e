package io.overdrive.cache;

import io.trino.filesystem.Location;

/**
 * The storage that holds a file, as the features that keep a model per storage (hedging's thresholds, shared scans'
 * fetch costs) and their metrics name it.
 */
public final class Storages
{
    private Storages() {}

    /**
     * The location's scheme and authority: an S3 bucket ({@code s3://bucket}), an HDFS name service or name node
     * ({@code hdfs://namenode:8020}), a host. A location without a scheme is served by HDFS, Trino's fallback file
     * system, so it names {@code hdfs://}.
     */
    public static String storageOf(Location location)
    {
        String authority = location.host()
                .map(host -> host + location.port().stream().mapToObj(port -> ":" + port).findFirst().orElse(""))
                .orElse("");
        return location.scheme().orElse("hdfs") + "://" + authority;
    }
}
