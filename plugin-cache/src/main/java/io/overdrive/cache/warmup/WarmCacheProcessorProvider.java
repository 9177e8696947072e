package io.overdrive.cache.warmup;

import io.overdrive.cache.placement.OverdriveSplit;
import io.overdrive.cache.session.QueryReadStats;
import io.trino.plugin.hive.HiveSplit;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;
import io.trino.spi.function.table.TableFunctionProcessorProvider;
import io.trino.spi.function.table.TableFunctionProcessorState;
import io.trino.spi.function.table.TableFunctionSplitProcessor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static io.trino.spi.function.table.TableFunctionProcessorState.Finished.FINISHED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Runs {@code warm_cache} on a worker: reads one split of the table through the catalog's page source, as a scan of
 * the columns would, every page loaded, with the cache filled at once (no admission rule), then reports a row.
 */
public class WarmCacheProcessorProvider
        implements TableFunctionProcessorProvider
{
    // a processor reads for this long at most before it lets the engine run other work (and see a cancel)
    private static final long SLICE_NANOS = MILLISECONDS.toNanos(200);
    private static final CompletableFuture<Void> NOT_BLOCKED = CompletableFuture.completedFuture(null);

    private final SplitOpener opener;
    private final String nodeId;

    /**
     * How a worker opens a split of the table for a warm-up: the catalog's page source, reading through the cache
     * with the admission rule left out.
     */
    public interface SplitOpener
    {
        OpenedSplit open(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorSplit split, ConnectorTableHandle table, List<ColumnHandle> columns);
    }

    /**
     * @param cachedHere whether this worker caches the split's file (soft affinity placed it here as a preferred worker)
     */
    public record OpenedSplit(ConnectorPageSource source, QueryReadStats readStats, boolean cachedHere)
    {
        public OpenedSplit
        {
            requireNonNull(source, "source is null");
            requireNonNull(readStats, "readStats is null");
        }
    }

    public WarmCacheProcessorProvider(SplitOpener opener, String nodeId)
    {
        this.opener = requireNonNull(opener, "opener is null");
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
    }

    @Override
    public TableFunctionSplitProcessor getSplitProcessor(ConnectorSession session, ConnectorTableFunctionHandle handle, Optional<ConnectorTableCredentials> tableCredentials, ConnectorSplit split)
    {
        return new WarmProcessor(session, (WarmCacheHandle) handle, (WarmCacheSplit) split);
    }

    private final class WarmProcessor
            implements TableFunctionSplitProcessor
    {
        private final ConnectorSession session;
        private final WarmCacheHandle handle;
        private final WarmCacheSplit split;
        private OpenedSplit opened;
        private long start;
        private long rows;
        private boolean done;
        private boolean closed;

        private WarmProcessor(ConnectorSession session, WarmCacheHandle handle, WarmCacheSplit split)
        {
            this.session = requireNonNull(session, "session is null");
            this.handle = requireNonNull(handle, "handle is null");
            this.split = requireNonNull(split, "split is null");
        }

        @Override
        public TableFunctionProcessorState process()
        {
            if (done) {
                return FINISHED;
            }
            if (opened == null) {
                start = System.nanoTime();
                opened = opener.open(handle.transaction(), session, split.split(), split.table(), split.columns());
            }
            ConnectorPageSource source = opened.source();
            long sliceEnd = System.nanoTime() + SLICE_NANOS;
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page != null) {
                    // every column loaded: a lazy block not asked for would never be read
                    page.getPage();
                    rows += page.getPositionCount();
                }
                else {
                    CompletableFuture<?> blocked = source.isBlocked();
                    if (!blocked.isDone()) {
                        return TableFunctionProcessorState.Blocked.blocked(blocked.thenApply(_ -> null));
                    }
                }
                if (System.nanoTime() > sliceEnd) {
                    // not blocked: called again at once, once the engine has had its turn
                    return TableFunctionProcessorState.Blocked.blocked(NOT_BLOCKED);
                }
            }
            done = true;
            closeSource();
            return TableFunctionProcessorState.Processed.produced(result());
        }

        private Page result()
        {
            PageBuilder page = new PageBuilder(WarmCacheTableFunction.RESULT.getFields().stream().map(field -> field.getType().orElseThrow()).toList());
            page.declarePosition();
            VARCHAR.writeString(page.getBlockBuilder(0), nodeId);
            if (unwrap(split.split()) instanceof HiveSplit hive) {
                VARCHAR.writeString(page.getBlockBuilder(1), hive.getPath());
                BIGINT.writeLong(page.getBlockBuilder(2), hive.getStart());
                BIGINT.writeLong(page.getBlockBuilder(3), hive.getLength());
            }
            else {
                page.getBlockBuilder(1).appendNull();
                page.getBlockBuilder(2).appendNull();
                page.getBlockBuilder(3).appendNull();
            }
            BOOLEAN.writeBoolean(page.getBlockBuilder(4), opened.cachedHere());
            BIGINT.writeLong(page.getBlockBuilder(5), rows);
            BIGINT.writeLong(page.getBlockBuilder(6), opened.readStats().bytesFromStorage());
            BIGINT.writeLong(page.getBlockBuilder(7), opened.readStats().bytesFromCache());
            BIGINT.writeLong(page.getBlockBuilder(8), NANOSECONDS.toMillis(System.nanoTime() - start));
            return page.build();
        }

        @Override
        public void close()
                throws IOException
        {
            // also when the query is cancelled or fails before the split was read to its end
            closeSource();
        }

        private void closeSource()
        {
            if (opened != null && !closed) {
                closed = true;
                try {
                    opened.source().close();
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    private static ConnectorSplit unwrap(ConnectorSplit split)
    {
        return split instanceof OverdriveSplit placed ? placed.getSplit() : split;
    }
}
