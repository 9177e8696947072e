package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import io.overdrive.merge.MergedPageStream;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static io.overdrive.merge.shards.ShardsErrorCode.NO_SHARD_ANSWERED;
import static java.util.Objects.requireNonNull;

/**
 * Every shard's sorted result merged (and combined) by the parallel merge engine, streamed with the engine's
 * backpressure; closing it (query cancelled or done) cancels the merge, which closes every shard query.
 */
final class MergedShardsPageSource
        implements ConnectorPageSource
{
    private final MergedPageStream merge;
    private final List<ShardQuery> shards;
    private final int[] outputChannels;
    private final ShardsStats stats;
    private long completedPositions;
    private boolean reported;

    MergedShardsPageSource(MergedPageStream merge, List<ShardQuery> shards, int[] outputChannels, ShardsStats stats)
    {
        this.merge = requireNonNull(merge, "merge is null");
        this.shards = ImmutableList.copyOf(shards);
        this.outputChannels = outputChannels.clone();
        this.stats = requireNonNull(stats, "stats is null");
        stats.mergedSplit();
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        Page page = merge.getNextPage();
        if (page == null) {
            return null;
        }
        completedPositions += page.getPositionCount();
        return SourcePage.create(outputChannels.length == 0 ? new Page(page.getPositionCount()) : page.getColumns(outputChannels));
    }

    @Override
    public boolean isFinished()
    {
        boolean finished = merge.isFinished();
        if (finished && shards.stream().allMatch(ShardQuery::isMissing)) {
            throw new TrinoException(NO_SHARD_ANSWERED, "No shard answered: every shard failed (see the server log for each shard's cause)");
        }
        if (finished && !reported && shards.stream().anyMatch(ShardQuery::isMissing)) {
            reported = true;
            stats.partialResult();
        }
        return finished;
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return merge.isBlocked();
    }

    @Override
    public long getCompletedBytes()
    {
        return 0;
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(completedPositions);
    }

    @Override
    public long getReadTimeNanos()
    {
        return 0;
    }

    @Override
    public void close()
    {
        merge.close();
    }
}
