package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.SortedPageSource;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static io.overdrive.merge.shards.ShardsErrorCode.NO_SHARD_ANSWERED;
import static java.util.Objects.requireNonNull;

/**
 * A split's rows: one shard's, streamed as they arrive (a plain scan: one split per shard, so Trino reads the shards in
 * parallel), or every shard's sorted result merged and combined by the merge engine (TopN, aggregations), with the
 * engine's backpressure. Closing it (query done, failed or cancelled) cancels the shard queries still running.
 */
final class ShardsPageSource
        implements ConnectorPageSource
{
    private final Input input;
    private final List<ShardQuery> shards;
    private final int[] outputChannels;
    private final ShardsStats stats;
    private long completedPositions;
    private boolean reported;

    private ShardsPageSource(Input input, List<ShardQuery> shards, int[] outputChannels, ShardsStats stats)
    {
        this.input = requireNonNull(input, "input is null");
        this.shards = ImmutableList.copyOf(shards);
        this.outputChannels = outputChannels.clone();
        this.stats = requireNonNull(stats, "stats is null");
    }

    /**
     * One shard's rows; with no output channels only the row count is kept (the shard sent a constant column).
     */
    static ShardsPageSource scan(ShardQuery shard, int[] outputChannels, ShardsStats stats)
    {
        SortedPageSource source = shard;
        return new ShardsPageSource(new Input(source::isBlocked, source::getNextPage, source::isFinished, source::close), List.of(shard), outputChannels, stats);
    }

    /**
     * The merge of every shard's sorted result; {@code outputChannels} pick the query's columns from the merge's.
     */
    static ShardsPageSource merged(MergedPageStream merge, List<ShardQuery> shards, int[] outputChannels, ShardsStats stats)
    {
        stats.mergedSplit();
        return new ShardsPageSource(new Input(merge::isBlocked, merge::getNextPage, merge::isFinished, merge::close), shards, outputChannels, stats);
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        Page page = input.next().get();
        if (page == null) {
            return null;
        }
        completedPositions += page.getPositionCount();
        return SourcePage.create(outputChannels.length == 0 ? new Page(page.getPositionCount()) : page.getColumns(outputChannels));
    }

    @Override
    public boolean isFinished()
    {
        boolean finished = input.finished().getAsBoolean();
        if (finished && !reported) {
            reported = true;
            long missing = shards.stream().filter(ShardQuery::isMissing).count();
            if (missing == shards.size()) {
                throw new TrinoException(NO_SHARD_ANSWERED, "No shard answered: every shard of this split failed (see the server log for each shard's cause)");
            }
            if (missing > 0) {
                stats.partialResult();
            }
        }
        return finished;
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return input.blocked().get();
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
        input.close().run();
    }

    private record Input(
            Supplier<CompletableFuture<?>> blocked,
            Supplier<Page> next,
            BooleanSupplier finished,
            Runnable close) {}
}
