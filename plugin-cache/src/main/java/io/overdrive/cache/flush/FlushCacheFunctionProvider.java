package io.overdrive.cache.flush;

import com.google.inject.Inject;
import io.overdrive.cache.OverdriveFileSystemCache;
import io.overdrive.cache.page.PageCacheStats;
import io.trino.filesystem.cache.TrinoFileSystemCache;
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

import static io.trino.spi.function.table.TableFunctionProcessorState.Finished.FINISHED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/** Runs {@code flush_cache} on a worker: empties this worker's page cache as the handle says and reports a row. */
public class FlushCacheFunctionProvider
        implements FunctionProvider
{
    // empty on a node that does not cache: its row then says 0 bytes before and after
    private final Optional<OverdriveFileSystemCache> cache;

    @Inject
    public FlushCacheFunctionProvider(Optional<TrinoFileSystemCache> fileSystemCache)
    {
        this.cache = fileSystemCache
                .filter(OverdriveFileSystemCache.class::isInstance)
                .map(OverdriveFileSystemCache.class::cast);
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
            cache.map(OverdriveFileSystemCache::pageCache).ifPresent(pageCache -> {
                if (handle.all()) {
                    pageCache.invalidateAll();
                }
                else {
                    pageCache.invalidatePaths(handle::matches);
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
            return cache.map(OverdriveFileSystemCache::stats).map(PageCacheStats::getBytesCached).orElse(0L);
        }
    }
}
