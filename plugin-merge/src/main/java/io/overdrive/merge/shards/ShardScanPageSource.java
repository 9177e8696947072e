package io.overdrive.merge.shards;

import io.trino.spi.Page;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * One shard's rows, streamed as they arrive: a plain scan runs as one split per shard, so Trino reads the shards in
 * parallel and does the rest of the query itself.
 */
final class ShardScanPageSource
        implements ConnectorPageSource
{
    private final ShardQuery query;
    private final boolean noColumns;
    private final ShardsStats stats;
    private long completedPositions;
    private boolean reported;

    ShardScanPageSource(ShardQuery query, boolean noColumns, ShardsStats stats)
    {
        this.query = requireNonNull(query, "query is null");
        this.noColumns = noColumns;
        this.stats = requireNonNull(stats, "stats is null");
        query.start();
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        Page page = query.getNextPage();
        if (page == null) {
            return null;
        }
        completedPositions += page.getPositionCount();
        // the shard sent a constant column so that rows can be counted; the query asked for none
        return SourcePage.create(noColumns ? new Page(page.getPositionCount()) : page);
    }

    @Override
    public boolean isFinished()
    {
        boolean finished = query.isFinished();
        if (finished && !reported && query.isMissing()) {
            reported = true;
            stats.partialResult();
        }
        return finished;
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return query.isBlocked();
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
        query.close();
    }
}
