package io.overdrive.cache.flush;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which cached files a flush of some locations removes. */
class TestFlushCacheHandle
{
    @Test
    void filesUnderALocationMatchAndSiblingsDoNot()
    {
        FlushCacheHandle handle = new FlushCacheHandle(false, List.of("hdfs://nn:8020/warehouse/sales/orders"));
        assertThat(handle.matches("hdfs://nn:8020/warehouse/sales/orders/part-0.parquet")).isTrue();
        assertThat(handle.matches("hdfs://nn:8020/warehouse/sales/orders/dt=2024-01-01/part-0.parquet")).isTrue();
        // a table whose name begins with the other's
        assertThat(handle.matches("hdfs://nn:8020/warehouse/sales/orders_archive/part-0.parquet")).isFalse();
        assertThat(handle.matches("hdfs://nn:8020/warehouse/sales/customer/part-0.parquet")).isFalse();
        assertThat(handle.matches("hdfs://other:8020/warehouse/sales/orders/part-0.parquet")).isFalse();
    }

    @Test
    void theS3SchemesAreOneStore()
    {
        // a table located under s3:// whose metadata records its files under s3a:// or s3n://, and the other way round
        FlushCacheHandle s3 = new FlushCacheHandle(false, List.of("s3://lake/warehouse/orders"));
        assertThat(s3.matches("s3a://lake/warehouse/orders/data/00000-0.parquet")).isTrue();
        assertThat(s3.matches("s3n://lake/warehouse/orders/data/00000-0.parquet")).isTrue();
        assertThat(s3.matches("S3A://lake/warehouse/orders/data/00000-0.parquet")).isTrue();
        assertThat(s3.matches("s3://lake/warehouse/orders/data/00000-0.parquet")).isTrue();
        assertThat(s3.matches("s3a://lake/warehouse/customer/data/00000-0.parquet")).isFalse();
        assertThat(s3.matches("s3a://other/warehouse/orders/data/00000-0.parquet")).isFalse();

        FlushCacheHandle s3a = new FlushCacheHandle(false, List.of("s3a://lake/warehouse/orders/"));
        assertThat(s3a.matches("s3://lake/warehouse/orders/data/00000-0.parquet")).isTrue();
        assertThat(s3a.matches("s3n://lake/warehouse/orders/data/00000-0.parquet")).isTrue();
        // other stores keep their schemes apart
        assertThat(s3a.matches("gs://lake/warehouse/orders/data/00000-0.parquet")).isFalse();
        assertThat(new FlushCacheHandle(false, List.of("abfs://c@account.dfs.core.windows.net/orders"))
                .matches("abfss://c@account.dfs.core.windows.net/orders/part-0")).isFalse();
    }

    @Test
    void manyLocationsAreSearchedAndNestedOnesAddNothing()
    {
        FlushCacheHandle handle = new FlushCacheHandle(false, List.of(
                "hdfs://nn/warehouse/orders",
                "hdfs://nn/archive/orders/dt=2020-01-01",
                "hdfs://nn/warehouse/orders/dt=2024-01-01",
                "s3a://cold/orders/dt=2019-01-01/",
                "s3://cold/orders/dt=2019-01-01",
                " "));
        assertThat(handle.locations()).containsExactly(
                "hdfs://nn/archive/orders/dt=2020-01-01/",
                "hdfs://nn/warehouse/orders/",
                "s3://cold/orders/dt=2019-01-01/");
        assertThat(handle.matches("hdfs://nn/archive/orders/dt=2020-01-01/f")).isTrue();
        assertThat(handle.matches("hdfs://nn/archive/orders/dt=2020-01-02/f")).isFalse();
        assertThat(handle.matches("hdfs://nn/warehouse/orders/dt=2024-01-01/f")).isTrue();
        assertThat(handle.matches("s3a://cold/orders/dt=2019-01-01/f")).isTrue();
        assertThat(handle.matches("hdfs://nn/aaa")).isFalse();
        assertThat(handle.matches("z://after/everything")).isFalse();
        // made again from its own locations (as a worker does when it reads the handle), it is the same
        assertThat(new FlushCacheHandle(false, handle.locations())).isEqualTo(handle);
    }

    @Test
    void everythingMatchesEverything()
    {
        FlushCacheHandle all = new FlushCacheHandle(true, List.of());
        assertThat(all.matches("hdfs://nn/warehouse/orders/part-0")).isTrue();
        assertThat(all.matches("s3a://lake/x")).isTrue();
        assertThat(new FlushCacheHandle(false, List.of()).matches("hdfs://nn/warehouse/orders/part-0")).isFalse();
    }
}
