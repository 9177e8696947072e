package io.overdrive.cache.flush;

import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.stats.PageCacheStats;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.function.FunctionProvider;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;
import io.trino.spi.function.table.TableFunctionProcessorProvider;
import io.trino.spi.function.table.TableFunctionProcessorState;
import io.trino.spi.function.table.TableFunctionSplitProcessor;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static io.trino.spi.function.table.TableFunctionProcessorState.Finished.FINISHED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/** Runs {@code flush_cache} on a worker: empties this worker's page cache as the handle says and reports a row. */
public class FlushCacheFunctionProvider
        implements FunctionProvider
{
    private final Supplier<Optional<PageCache>> pageCache;
    private final Supplier<Optional<PageCacheStats>> stats;

    public FlushCacheFunctionProvider(Supplier<Optional<PageCache>> pageCache, Supplier<Optional<PageCacheStats>> stats)
    {
        this.pageCache = requireNonNull(pageCache, "pageCache is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Override
    public TableFunctionProcessorProvider getTableFunctionProcessorProvider(ConnectorTableFunctionHandle functionHandle)
    {
        return new TableFunctionProcessorProvider()
        {
            @Override
            public TableFunctionSplitProcessor getSplitProcessor(ConnectorSession session, ConnectorTableFunctionHandle handle, Optional<ConnectorTableCredentials> tableCredentials, ConnectorSplit split)
            {
                return new FlushProcessor((FlushCacheHandle) handle, (FlushCacheSplit) split);
            }
        };
    }

    private final class FlushProcessor
            implements TableFunctionSplitProcessor
    {
        private final FlushCacheHandle handle;
        private final FlushCacheSplit split;
        private boolean done;

        private FlushProcessor(FlushCacheHandle handle, FlushCacheSplit split)
        {
            this.handle = handle;
            this.split = split;
        }

        @Override
        public TableFunctionProcessorState process()
        {
            if (done) {
                return FINISHED;
            }
            done = true;
            long before = cachedBytes();
            pageCache.get().ifPresent(cache -> {
                if (handle.all()) {
                    cache.invalidateAll();
                }
                else {
                    cache.invalidatePaths(handle::matches);
                }
            });
            long after = cachedBytes();
            PageBuilder page = new PageBuilder(List.of(VARCHAR, BIGINT, BIGINT));
            page.declarePosition();
            VARCHAR.writeString(page.getBlockBuilder(0), split.nodeId());
            BIGINT.writeLong(page.getBlockBuilder(1), before);
            BIGINT.writeLong(page.getBlockBuilder(2), after);
            Page result = page.build();
            return TableFunctionProcessorState.Processed.produced(result);
        }

        private long cachedBytes()
        {
            return stats.get().map(PageCacheStats::getBytesCached).orElse(0L);
        }
    }
}
