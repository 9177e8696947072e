package io.overdrive.cache.inspection;

import io.overdrive.cache.page.PageCacheStats;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.predicate.TupleDomain;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.Test;
import org.weakref.jmx.Managed;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.trino.spi.connector.SystemTable.Distribution.ALL_NODES;
import static org.assertj.core.api.Assertions.assertThat;

class TestCacheMetricsTable
{
    @Test
    void everyNumericManagedAttributeOfEveryStatsObject()
    {
        PageCacheStats pageCache = new PageCacheStats();
        pageCache.recordHit(4096);
        pageCache.recordHit(100);
        pageCache.recordMiss();
        pageCache.recordRemoteRead(777);
        TestStats test = new TestStats();
        CacheMetricsTable table = new CacheMetricsTable("worker-1", List.of(pageCache, test));
        assertThat(table.getDistribution()).isEqualTo(ALL_NODES);
        assertThat(table.getTableMetadata().getTable().toString()).isEqualTo("system.cache_metrics");

        Map<String, Double> values = read(table);
        assertThat(values).containsEntry("PageCacheStats.Hits", 2.0)
                .containsEntry("PageCacheStats.Misses", 1.0)
                .containsEntry("PageCacheStats.BytesFromCache", 4196.0)
                .containsEntry("PageCacheStats.BytesFromRemote", 777.0)
                .containsEntry("PageCacheStats.HitRatio", pageCache.getHitRatio());
        assertThat(values).containsEntry("TestStats.Count", 3.0)
                .containsEntry("TestStats.Ratio", 0.25)
                .containsEntry("TestStats.Healthy", 1.0)
                .doesNotContainKey("TestStats.Label")
                .doesNotContainKey("TestStats.NotManaged")
                .doesNotContainKey("TestStats.WithArgument");

        // read when queried, not when the table was made
        pageCache.recordMiss();
        test.count = 4;
        values = read(table);
        assertThat(values).containsEntry("PageCacheStats.Misses", 2.0).containsEntry("TestStats.Count", 4.0);
    }

    @Test
    void noStatsNoRows()
    {
        assertThat(read(new CacheMetricsTable("coordinator", List.of()))).isEmpty();
    }

    private static Map<String, Double> read(CacheMetricsTable table)
    {
        Map<String, Double> values = new HashMap<>();
        try (RecordCursor cursor = table.cursor(null, TestingConnectorSession.SESSION, TupleDomain.all())) {
            while (cursor.advanceNextPosition()) {
                assertThat(cursor.getSlice(0).toStringUtf8()).isIn("worker-1", "coordinator");
                values.put(cursor.getSlice(1).toStringUtf8() + "." + cursor.getSlice(2).toStringUtf8(), cursor.getDouble(3));
            }
        }
        return values;
    }

    public static final class TestStats
    {
        private long count = 3;

        @Managed
        public long getCount()
        {
            return count;
        }

        @Managed
        public double getRatio()
        {
            return 0.25;
        }

        @Managed
        public boolean isHealthy()
        {
            return true;
        }

        @Managed
        public String getLabel()
        {
            return "label";
        }

        public long getNotManaged()
        {
            return 9;
        }

        @Managed
        public long getWithArgument(int argument)
        {
            return argument;
        }
    }
}
