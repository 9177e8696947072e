package io.overdrive.cache.placement;

import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.Placement;
import io.overdrive.scheduler.affinity.SplitPlacer;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.metrics.Metrics;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * A connector's splits of one table scan, each given the worker Overdrive's placer chose (preferred, else alternative,
 * else the least loaded under the bounded-load limit), as a single address the engine honours without waiting on
 * others. Splits whose file the table format does not give (pinned splits, splits of other kinds) pass unchanged.
 */
public class SoftAffinitySplitSource
        implements ConnectorSplitSource
{
    private final ConnectorSplitSource splits;
    private final Function<ConnectorSplit, Optional<SplitFile>> files;
    private final SplitPlacer placer;
    private final AffinityGranularity granularity;

    /**
     * @param files the file a split reads, where placement may choose its worker
     */
    public SoftAffinitySplitSource(ConnectorSplitSource splits, Function<ConnectorSplit, Optional<SplitFile>> files, SplitPlacer placer, AffinityGranularity granularity)
    {
        this.splits = requireNonNull(splits, "splits is null");
        this.files = requireNonNull(files, "files is null");
        this.placer = requireNonNull(placer, "placer is null");
        this.granularity = requireNonNull(granularity, "granularity is null");
    }

    @Override
    public CompletableFuture<List<ConnectorSplit>> getNextBatch(int maxSize, DynamicFilterSnapshot dynamicFilterSnapshot)
    {
        return splits.getNextBatch(maxSize, dynamicFilterSnapshot).thenApply(batch -> batch.stream().map(this::place).toList());
    }

    private ConnectorSplit place(ConnectorSplit split)
    {
        Optional<SplitFile> file = files.apply(split);
        if (file.isEmpty()) {
            return split;
        }
        String affinityKey = granularity.affinityKey(file.get().path(), file.get().start());
        Optional<Placement> placement = placer.place(affinityKey, split.getSplitWeight().getRawValue());
        // no live worker known yet: leave the split as the connector made it, the engine places it
        return placement
                .<ConnectorSplit>map(chosen -> new OverdriveSplit(
                        split,
                        List.of(HostAddress.fromString(chosen.worker().hostAndPort())),
                        chosen.kind().isPreferredWorker(),
                        placer.peer(affinityKey, chosen).map(peer -> List.of(HostAddress.fromString(peer.hostAndPort()))).orElse(List.of())))
                .orElse(split);
    }

    @Override
    public void close()
    {
        try {
            splits.close();
        }
        finally {
            placer.finish();
        }
    }

    @Override
    public boolean isFinished()
    {
        return splits.isFinished();
    }

    @Override
    public Optional<List<Object>> getTableExecuteSplitsInfo()
    {
        return splits.getTableExecuteSplitsInfo();
    }

    @Override
    public long getRequestedDynamicFilterWaitTimeoutMillis()
    {
        return splits.getRequestedDynamicFilterWaitTimeoutMillis();
    }

    @Override
    public Metrics getMetrics()
    {
        return splits.getMetrics();
    }
}
