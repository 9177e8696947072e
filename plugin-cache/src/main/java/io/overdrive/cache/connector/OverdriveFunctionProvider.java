package io.overdrive.cache.connector;

import io.overdrive.cache.flush.FlushCacheFunctionProvider;
import io.overdrive.cache.flush.FlushCacheHandle;
import io.overdrive.cache.warmup.WarmCacheHandle;
import io.overdrive.cache.warmup.WarmCacheProcessorProvider;
import io.trino.spi.function.AggregationImplementation;
import io.trino.spi.function.BoundSignature;
import io.trino.spi.function.FunctionDependencies;
import io.trino.spi.function.FunctionId;
import io.trino.spi.function.FunctionProvider;
import io.trino.spi.function.InvocationConvention;
import io.trino.spi.function.ScalarFunctionImplementation;
import io.trino.spi.function.WindowFunctionSupplier;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;
import io.trino.spi.function.table.TableFunctionProcessorProvider;
import io.trino.spi.function.table.TableFunctionProcessorProviderFactory;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The processors of Overdrive's table functions, by their handles: {@code flush_cache}, and {@code warm_cache} where the
 * connector has it; everything else (the table format's own functions, such as Iceberg's {@code bucket} and
 * {@code table_changes}) is the wrapped connector's function provider's.
 */
final class OverdriveFunctionProvider
        implements FunctionProvider
{
    private final Optional<FunctionProvider> delegate;
    private final FlushCacheFunctionProvider flushCache;
    private final Optional<WarmCacheProcessorProvider> warmCache;

    OverdriveFunctionProvider(Optional<FunctionProvider> delegate, FlushCacheFunctionProvider flushCache, Optional<WarmCacheProcessorProvider> warmCache)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.flushCache = requireNonNull(flushCache, "flushCache is null");
        this.warmCache = requireNonNull(warmCache, "warmCache is null");
    }

    @Override
    public ScalarFunctionImplementation getScalarFunctionImplementation(FunctionId functionId, BoundSignature boundSignature, FunctionDependencies functionDependencies, InvocationConvention invocationConvention)
    {
        return delegate().getScalarFunctionImplementation(functionId, boundSignature, functionDependencies, invocationConvention);
    }

    @Override
    public AggregationImplementation getAggregationImplementation(FunctionId functionId, BoundSignature boundSignature, FunctionDependencies functionDependencies)
    {
        return delegate().getAggregationImplementation(functionId, boundSignature, functionDependencies);
    }

    @Override
    public WindowFunctionSupplier getWindowFunctionSupplier(FunctionId functionId, BoundSignature boundSignature, FunctionDependencies functionDependencies)
    {
        return delegate().getWindowFunctionSupplier(functionId, boundSignature, functionDependencies);
    }

    @Override
    public TableFunctionProcessorProvider getTableFunctionProcessorProvider(ConnectorTableFunctionHandle functionHandle)
    {
        return overdrives(functionHandle).orElseGet(() -> delegate().getTableFunctionProcessorProvider(functionHandle));
    }

    @Override
    public TableFunctionProcessorProviderFactory getTableFunctionProcessorProviderFactory(ConnectorTableFunctionHandle functionHandle)
    {
        Optional<TableFunctionProcessorProvider> overdrives = overdrives(functionHandle);
        if (overdrives.isPresent()) {
            TableFunctionProcessorProvider provider = overdrives.get();
            return () -> provider;
        }
        return delegate().getTableFunctionProcessorProviderFactory(functionHandle);
    }

    private Optional<TableFunctionProcessorProvider> overdrives(ConnectorTableFunctionHandle functionHandle)
    {
        return switch (functionHandle) {
            case FlushCacheHandle _ -> Optional.of(flushCache.getTableFunctionProcessorProvider(functionHandle));
            case WarmCacheHandle _ -> Optional.of(warmCache.orElseThrow(() -> new IllegalArgumentException("warm_cache is not a function of this connector")));
            default -> Optional.empty();
        };
    }

    private FunctionProvider delegate()
    {
        return delegate.orElseThrow(() -> new IllegalArgumentException("Not a function of this connector"));
    }
}
