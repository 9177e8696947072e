package io.overdrive.cache.connector;

import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.placement.OverdriveSplit;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.EmptyPageSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which reads may cache on this node: only those of a split the coordinator placed here as one of the file's preferred
 * workers. A split the engine runs elsewhere (a task retried under {@code retry-policy=TASK}) reads through.
 */
class TestCacheContextPageSourceProvider
{
    private static final HostAddress SELF = HostAddress.fromParts("10.0.0.1", 8080);
    private static final HostAddress OTHER = HostAddress.fromParts("10.0.0.2", 8080);
    private static final ConnectorSplit HIVE_SPLIT = new ConnectorSplit() {};

    @Test
    void cachesOnlySplitsPlacedHereOnAPreferredWorker()
            throws IOException
    {
        assertThat(cacheable(new OverdriveSplit(HIVE_SPLIT, List.of(SELF), true))).isTrue();
        // placed here as a fallback: read through
        assertThat(cacheable(new OverdriveSplit(HIVE_SPLIT, List.of(SELF), false))).isFalse();
        // placed on another worker as preferred, run here by the engine: read through
        assertThat(cacheable(new OverdriveSplit(HIVE_SPLIT, List.of(OTHER), true))).isFalse();
        // not placed by Overdrive (NO_PREFERENCE): cache as before
        assertThat(cacheable(HIVE_SPLIT)).isTrue();
    }

    @Test
    void hiveGetsTheUnwrappedSplit()
            throws IOException
    {
        AtomicReference<ConnectorSplit> seen = new AtomicReference<>();
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(recording(new AtomicReference<>(), seen), SELF);
        try (ConnectorPageSource _ = provider.createPageSource(null, null, new OverdriveSplit(HIVE_SPLIT, List.of(SELF), true), null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            assertThat(seen.get()).isSameAs(HIVE_SPLIT);
        }
    }

    private static boolean cacheable(ConnectorSplit split)
            throws IOException
    {
        AtomicReference<CacheReadContext> context = new AtomicReference<>();
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(recording(context, new AtomicReference<>()), SELF);
        try (ConnectorPageSource _ = provider.createPageSource(null, null, split, null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            return context.get().cacheable();
        }
    }

    // Hive's provider as the page cache sees it: the context is read while Hive opens the split's files
    private static ConnectorPageSourceProvider recording(AtomicReference<CacheReadContext> context, AtomicReference<ConnectorSplit> split)
    {
        return new ConnectorPageSourceProvider()
        {
            @Override
            public ConnectorPageSource createPageSource(
                    ConnectorTransactionHandle transaction,
                    ConnectorSession session,
                    ConnectorSplit hiveSplit,
                    ConnectorTableHandle table,
                    Optional<ConnectorTableCredentials> tableCredentials,
                    List<ColumnHandle> columns,
                    DynamicFilter dynamicFilter)
            {
                context.set(CacheReadContext.current());
                split.set(hiveSplit);
                return new EmptyPageSource();
            }
        };
    }
}
