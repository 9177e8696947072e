package io.overdrive.cache.warmup;

import io.trino.spi.connector.ConnectorTransactionHandle;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TestWarmCacheHandle
{
    private static final ConnectorTransactionHandle TRANSACTION = new ConnectorTransactionHandle() {};

    @Test
    void noPartitionsReadsEveryPartition()
    {
        WarmCacheHandle handle = new WarmCacheHandle("sales", "orders", List.of(), List.of(), TRANSACTION);
        assertThat(handle.readsPartition("ds=2026-11-27")).isTrue();
        assertThat(handle.readsPartition("<UNPARTITIONED>")).isTrue();
    }

    @Test
    void patternsMatchWholePartitionNames()
    {
        WarmCacheHandle handle = new WarmCacheHandle("sales", "orders", List.of(), List.of("ds=2026-11-2*", "ds=2026-12-01/region=eu"), TRANSACTION);
        assertThat(handle.readsPartition("ds=2026-11-27")).isTrue();
        assertThat(handle.readsPartition("ds=2026-11-2")).isTrue();
        assertThat(handle.readsPartition("ds=2026-11-27/region=us")).as("'*' spans '/'").isTrue();
        assertThat(handle.readsPartition("ds=2026-11-17")).isFalse();
        assertThat(handle.readsPartition("xds=2026-11-27")).as("anchored at the start").isFalse();
        assertThat(handle.readsPartition("ds=2026-12-01/region=eu")).isTrue();
        assertThat(handle.readsPartition("ds=2026-12-01/region=eus")).as("anchored at the end").isFalse();
    }

    @Test
    void everythingButTheStarIsLiteral()
    {
        WarmCacheHandle handle = new WarmCacheHandle("sales", "orders", List.of(), List.of("p=a.b+c(d)[e]?", "*x$", "q=%2A"), TRANSACTION);
        assertThat(handle.readsPartition("p=a.b+c(d)[e]?")).isTrue();
        assertThat(handle.readsPartition("p=aXb+c(d)[e]?")).isFalse();
        assertThat(handle.readsPartition("anything ending in x$")).isTrue();
        assertThat(handle.readsPartition("q=%2A")).isTrue();
        assertThat(handle.readsPartition("q=*")).isFalse();
    }
}
