package io.overdrive.cache.placement;

import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.Placement;
import io.overdrive.scheduler.affinity.SplitPlacer;
import io.trino.plugin.hive.HiveSplit;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.metrics.Metrics;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * Hive's splits of one table scan, each given the worker Overdrive's placer chose (preferred, else alternative, else
 * the least loaded under the bounded-load limit), as a single address the engine honours without waiting on others.
 */
public class SoftAffinitySplitSource
        implements ConnectorSplitSource
{
    private final ConnectorSplitSource hive;
    private final SplitPlacer placer;
    private final AffinityGranularity granularity;

    public SoftAffinitySplitSource(ConnectorSplitSource hive, SplitPlacer placer, AffinityGranularity granularity)
    {
        this.hive = requireNonNull(hive, "hive is null");
        this.placer = requireNonNull(placer, "placer is null");
        this.granularity = requireNonNull(granularity, "granularity is null");
    }

    @Override
    public CompletableFuture<List<ConnectorSplit>> getNextBatch(int maxSize, DynamicFilterSnapshot dynamicFilterSnapshot)
    {
        return hive.getNextBatch(maxSize, dynamicFilterSnapshot).thenApply(splits -> splits.stream().map(this::place).toList());
    }

    private ConnectorSplit place(ConnectorSplit split)
    {
        // a split Hive pins to its data's hosts (hive.force-local-scheduling) stays pinned: placement never overrides it
        if (!(split instanceof HiveSplit hiveSplit) || !hiveSplit.isRemotelyAccessible()) {
            return split;
        }
        Optional<Placement> placement = placer.place(granularity.affinityKey(hiveSplit.getPath(), hiveSplit.getStart()), hiveSplit.getSplitWeight().getRawValue());
        // no live worker known yet: leave the split as Hive made it, the engine places it
        return placement
                .<ConnectorSplit>map(chosen -> new OverdriveSplit(hiveSplit, List.of(HostAddress.fromString(chosen.worker().hostAndPort())), chosen.kind().isPreferredWorker()))
                .orElse(split);
    }

    @Override
    public void close()
    {
        try {
            hive.close();
        }
        finally {
            placer.finish();
        }
    }

    @Override
    public boolean isFinished()
    {
        return hive.isFinished();
    }

    @Override
    public Optional<List<Object>> getTableExecuteSplitsInfo()
    {
        return hive.getTableExecuteSplitsInfo();
    }

    @Override
    public long getRequestedDynamicFilterWaitTimeoutMillis()
    {
        return hive.getRequestedDynamicFilterWaitTimeoutMillis();
    }

    @Override
    public Metrics getMetrics()
    {
        return hive.getMetrics();
    }
}
