package io.overdrive.cache.connector;

import io.overdrive.cache.flush.FlushCacheFunctionProvider;
import io.overdrive.cache.flush.FlushCacheHandle;
import io.overdrive.cache.warmup.WarmCacheHandle;
import io.overdrive.cache.warmup.WarmCacheProcessorProvider;
import io.trino.spi.function.FunctionProvider;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;
import io.trino.spi.function.table.TableFunctionProcessorProvider;

import static java.util.Objects.requireNonNull;

/** The processors of Overdrive's table functions, by their handles: {@code flush_cache} and {@code warm_cache}. */
final class OverdriveFunctionProvider
        implements FunctionProvider
{
    private final FlushCacheFunctionProvider flushCache;
    private final WarmCacheProcessorProvider warmCache;

    OverdriveFunctionProvider(FlushCacheFunctionProvider flushCache, WarmCacheProcessorProvider warmCache)
    {
        this.flushCache = requireNonNull(flushCache, "flushCache is null");
        this.warmCache = requireNonNull(warmCache, "warmCache is null");
    }

    @Override
    public TableFunctionProcessorProvider getTableFunctionProcessorProvider(ConnectorTableFunctionHandle functionHandle)
    {
        return switch (functionHandle) {
            case FlushCacheHandle _ -> flushCache.getTableFunctionProcessorProvider(functionHandle);
            case WarmCacheHandle _ -> warmCache;
            default -> throw new IllegalArgumentException("Not a table function of Overdrive's: " + functionHandle);
        };
    }
}
