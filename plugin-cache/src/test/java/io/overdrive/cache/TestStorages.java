package io.overdrive.cache;

import io.trino.filesystem.Location;
import org.junit.jupiter.api.Test;

import static io.overdrive.cache.Storages.storageOf;
import static org.assertj.core.api.Assertions.assertThat;

class TestStorages
{
    @Test
    void aStorageIsTheSchemeAndAuthority()
    {
        assertThat(storageOf(Location.of("s3://bucket/warehouse/orders/part-0.parquet"))).isEqualTo("s3://bucket");
        assertThat(storageOf(Location.of("s3://bucket/other/table/file"))).isEqualTo("s3://bucket");
        assertThat(storageOf(Location.of("s3://another-bucket/warehouse/orders/part-0.parquet"))).isEqualTo("s3://another-bucket");
        assertThat(storageOf(Location.of("hdfs://namenode:8020/warehouse/orders"))).isEqualTo("hdfs://namenode:8020");
        assertThat(storageOf(Location.of("hdfs://namenode:9000/warehouse/orders"))).isEqualTo("hdfs://namenode:9000");
        assertThat(storageOf(Location.of("viewfs://cluster/warehouse/orders"))).isEqualTo("viewfs://cluster");
        assertThat(storageOf(Location.of("local:///data.bin"))).isEqualTo("local://");
        // no scheme: HDFS, Trino's fallback file system
        assertThat(storageOf(Location.of("/warehouse/orders/part-0"))).isEqualTo("hdfs://");
    }
}
