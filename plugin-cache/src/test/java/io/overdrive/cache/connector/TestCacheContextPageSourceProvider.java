package io.overdrive.cache.connector;

import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.placement.OverdriveSplit;
import io.overdrive.cache.session.OverdriveSessionProperties;
import io.overdrive.cache.session.QueryReadStats;
import io.overdrive.cache.session.ReadOptions;
import io.trino.plugin.base.metrics.LongCount;
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
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Count;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
    private static final ConnectorSession SESSION = TestingConnectorSession.builder()
            .setPropertyMetadata(OverdriveSessionProperties.properties())
            .build();

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
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(recording(new AtomicReference<>(), seen), SELF, HiveFormat.HIVE);
        try (ConnectorPageSource _ = provider.createPageSource(null, SESSION, new OverdriveSplit(HIVE_SPLIT, List.of(SELF), true), null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            assertThat(seen.get()).isSameAs(HIVE_SPLIT);
        }
    }

    @Test
    void sessionPropertiesReachTheReadContext()
            throws IOException
    {
        AtomicReference<CacheReadContext> context = new AtomicReference<>();
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(recording(context, new AtomicReference<>()), SELF, HiveFormat.HIVE);
        try (ConnectorPageSource _ = provider.createPageSource(null, SESSION, HIVE_SPLIT, null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            assertThat(context.get().options()).isEqualTo(ReadOptions.DEFAULT);
        }
        ConnectorSession session = TestingConnectorSession.builder()
                .setPropertyMetadata(OverdriveSessionProperties.properties())
                .setPropertyValues(Map.of(
                        "cache_enabled", false,
                        "cache_populate", "NEVER",
                        "hedged_reads_enabled", false,
                        "shared_scans_enabled", false))
                .build();
        try (ConnectorPageSource _ = provider.createPageSource(null, session, HIVE_SPLIT, null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            assertThat(context.get().options()).isEqualTo(new ReadOptions(false, ReadOptions.Populate.NEVER, false, false));
            assertThat(context.get().writes()).isFalse();
        }
    }

    // each page source counts its own reads, and reports them beside Hive's metrics
    @Test
    void pageSourceReportsItsReadsAsMetrics()
            throws IOException
    {
        AtomicReference<CacheReadContext> context = new AtomicReference<>();
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(recording(context, new AtomicReference<>()), SELF, HiveFormat.HIVE);
        try (ConnectorPageSource first = provider.createPageSource(null, SESSION, HIVE_SPLIT, null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            QueryReadStats firstStats = context.get().readStats();
            try (ConnectorPageSource second = provider.createPageSource(null, SESSION, HIVE_SPLIT, null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
                assertThat(context.get().readStats()).isNotSameAs(firstStats).isNotSameAs(QueryReadStats.UNTRACKED);
                firstStats.recordFromCache(1000);
                firstStats.recordFromStorage(300);
                firstStats.recordFromSharedFetch(20);
                firstStats.recordHedge();
                context.get().readStats().recordFromStorage(7);
                Map<String, Metric<?>> metrics = first.getMetrics().getMetrics();
                assertThat(((Count<?>) metrics.get(QueryReadStats.BYTES_FROM_CACHE)).getTotal()).isEqualTo(1000);
                assertThat(((Count<?>) metrics.get(QueryReadStats.BYTES_FROM_STORAGE)).getTotal()).isEqualTo(300);
                assertThat(((Count<?>) metrics.get(QueryReadStats.BYTES_FROM_SHARED_FETCHES)).getTotal()).isEqualTo(20);
                assertThat(((Count<?>) metrics.get(QueryReadStats.COALESCED_READS)).getTotal()).isEqualTo(1);
                assertThat(((Count<?>) metrics.get(QueryReadStats.HEDGED_READS)).getTotal()).isEqualTo(1);
                assertThat(((Count<?>) metrics.get(QueryReadStats.HEDGED_READ_WINS)).getTotal()).isZero();
                assertThat(((Count<?>) second.getMetrics().getMetrics().get(QueryReadStats.BYTES_FROM_STORAGE)).getTotal()).isEqualTo(7);
                // Hive's own metrics are kept
                assertThat(metrics).containsKey("hive_metric");
            }
        }
    }

    // Iceberg reads a split's delete files when its page source makes its first page, not when it is created
    @Test
    void filesOpenedWhileMakingPagesGetTheSplitsContext()
            throws IOException
    {
        AtomicReference<CacheReadContext> opened = new AtomicReference<>();
        List<CacheReadContext> whileMakingPages = new ArrayList<>();
        ConnectorPageSourceProvider lazy = new ConnectorPageSourceProvider()
        {
            @Override
            public ConnectorPageSource createPageSource(
                    ConnectorTransactionHandle transaction,
                    ConnectorSession session,
                    ConnectorSplit split,
                    ConnectorTableHandle table,
                    Optional<ConnectorTableCredentials> tableCredentials,
                    List<ColumnHandle> columns,
                    DynamicFilter dynamicFilter)
            {
                opened.set(CacheReadContext.current());
                return new EmptyPageSource()
                {
                    @Override
                    public SourcePage getNextSourcePage()
                    {
                        whileMakingPages.add(CacheReadContext.current());
                        return null;
                    }
                };
            }
        };
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(lazy, SELF, HiveFormat.HIVE);
        try (ConnectorPageSource source = provider.createPageSource(null, SESSION, new OverdriveSplit(HIVE_SPLIT, List.of(OTHER), true), null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
            assertThat(CacheReadContext.current()).as("outside the page source's calls").isSameAs(CacheReadContext.UNKNOWN);
            source.getNextSourcePage();
            source.getNextSourcePage();
            assertThat(CacheReadContext.current()).isSameAs(CacheReadContext.UNKNOWN);
        }
        assertThat(opened.get().cacheable()).as("placed on another worker: read through").isFalse();
        assertThat(whileMakingPages).hasSize(2).allSatisfy(context -> assertThat(context).isSameAs(opened.get()));
    }

    private static boolean cacheable(ConnectorSplit split)
            throws IOException
    {
        AtomicReference<CacheReadContext> context = new AtomicReference<>();
        CacheContextPageSourceProvider provider = new CacheContextPageSourceProvider(recording(context, new AtomicReference<>()), SELF, HiveFormat.HIVE);
        try (ConnectorPageSource _ = provider.createPageSource(null, SESSION, split, null, Optional.empty(), List.of(), DynamicFilter.EMPTY)) {
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
                return new EmptyPageSource()
                {
                    @Override
                    public Metrics getMetrics()
                    {
                        return new Metrics(Map.of("hive_metric", new LongCount(1)));
                    }
                };
            }
        };
    }
}
