package io.overdrive.cache.placement;

import io.overdrive.cache.connector.HiveFormat;
import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.BusyLimits;
import io.overdrive.scheduler.affinity.Membership;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.NodeSelectionStrategy;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.overdrive.scheduler.affinity.SplitPlacer;
import io.overdrive.scheduler.affinity.SplitPlacerFactory;
import io.overdrive.scheduler.affinity.Worker;
import io.overdrive.scheduler.affinity.WorkerLoads;
import io.trino.plugin.hive.HiveSplit;
import io.trino.plugin.hive.Schema;
import io.trino.spi.HostAddress;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.connector.FixedSplitSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What placement does to Hive's splits, method by method of {@link ConnectorSplit}: one chosen address, remotely
 * accessible, no affinity key, Hive's weight and size; and a split Hive pins to its hosts is left as it is.
 */
class TestSoftAffinitySplitSource
{
    private static final List<Worker> WORKERS = List.of(new Worker("a", "10.0.0.1:8080"), new Worker("b", "10.0.0.2:8080"), new Worker("c", "10.0.0.3:8080"));

    @Test
    void placedSplitCarriesOneAddressAndHivesWeight()
            throws Exception
    {
        HiveSplit hive = hiveSplit("/warehouse/orders/part-0", false);
        ConnectorSplit placed = placeAll(List.of(hive)).getFirst();
        assertThat(placed).isInstanceOf(OverdriveSplit.class);
        OverdriveSplit split = (OverdriveSplit) placed;
        assertThat(split.getSplit()).isSameAs(hive);
        assertThat(split.getAddresses()).hasSize(1);
        assertThat(WORKERS.stream().map(worker -> HostAddress.fromString(worker.hostAndPort()))).contains(split.getAddresses().getFirst());
        assertThat(split.isRemotelyAccessible()).isTrue();
        assertThat(split.getAffinityKey()).isEmpty();
        assertThat(split.getSplitWeight()).isEqualTo(hive.getSplitWeight());
        assertThat(split.getRetainedSizeInBytes()).isGreaterThan(hive.getRetainedSizeInBytes());
        assertThat(split.isCacheable()).isTrue();
        assertThat(split.toString()).contains(hive.toString());
    }

    @Test
    void splitPinnedByHiveStaysPinned()
            throws Exception
    {
        // hive.force-local-scheduling: Hive wants the split on its data's hosts only; placement must not undo that
        HiveSplit pinned = hiveSplit("/warehouse/orders/part-1", true);
        assertThat(pinned.isRemotelyAccessible()).isFalse();
        assertThat(placeAll(List.of(pinned)).getFirst()).isSameAs(pinned);
    }

    private static List<ConnectorSplit> placeAll(List<ConnectorSplit> splits)
            throws Exception
    {
        NodeSelectionConfig config = new NodeSelectionConfig().setNodeSelectionStrategy(NodeSelectionStrategy.SOFT_AFFINITY);
        SplitPlacer placer = new SplitPlacerFactory(config, () -> Membership.of(WORKERS), BusyLimits.TRINO_DEFAULTS, new PlacementStats(), SplitWeight.standard().getRawValue())
                .createPlacer(WorkerLoads.UNKNOWN)
                .orElseThrow();
        try (SoftAffinitySplitSource source = new SoftAffinitySplitSource(new FixedSplitSource(splits), HiveFormat.HIVE::placeable, placer, AffinityGranularity.FILE)) {
            return source.getNextBatch(100, DynamicFilterSnapshot.EMPTY).get();
        }
    }

    private static HiveSplit hiveSplit(String path, boolean forceLocalScheduling)
    {
        return new HiveSplit(
                "",
                path,
                0,
                1000,
                1000,
                0,
                new Schema("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", false, Map.of()),
                List.of(),
                List.of(HostAddress.fromString("10.0.0.9:9866")),
                Optional.empty(),
                OptionalInt.empty(),
                OptionalInt.empty(),
                forceLocalScheduling,
                Map.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                SplitWeight.standard());
    }
}
