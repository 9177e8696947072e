package io.overdrive.cache.iceberg;

import io.overdrive.cache.placement.SplitFile;
import io.trino.plugin.iceberg.IcebergFileFormat;
import io.trino.plugin.iceberg.IcebergSplit;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static io.overdrive.cache.iceberg.IcebergFormat.ICEBERG;
import static org.assertj.core.api.Assertions.assertThat;

class TestIcebergFormat
{
    @Test
    void placesIcebergSplitsByTheirDataFile()
    {
        IcebergSplit split = new IcebergSplit(
                "hdfs://lake/warehouse/orders/data/00000-0-a.parquet",
                64 << 20,
                32 << 20,
                200 << 20,
                1_000_000,
                IcebergFileFormat.PARQUET,
                0,
                List.of(),
                List.of(),
                SplitWeight.standard(),
                TupleDomain.all(),
                Optional.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                Optional.empty());
        assertThat(ICEBERG.placeable(split)).contains(new SplitFile("hdfs://lake/warehouse/orders/data/00000-0-a.parquet", 64 << 20));
        // splits of other kinds (system tables', table functions') are left as the connector made them
        assertThat(ICEBERG.placeable(new ConnectorSplit() {})).isEmpty();
        assertThat(ICEBERG.table(null)).isEmpty();
    }
}
