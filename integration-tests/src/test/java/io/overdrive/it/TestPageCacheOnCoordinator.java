package io.overdrive.it;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A coordinator that runs splits ({@code node-scheduler.include-coordinator=true}, Trino's default) with no workers at
 * all, on real HDFS: it caches what it reads, as a worker does, and {@code flush_cache} empties its cache.
 */
public class TestPageCacheOnCoordinator
        extends AbstractTestQueryFramework
{
    private static final String CATALOG = OverdriveQueryRunner.OVERDRIVE_CATALOG;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        Path cacheDirectory = Files.createDirectories(TestingHdfs.workDirectory().resolve("page-cache-on-coordinator-" + System.nanoTime()));
        return OverdriveQueryRunner.builder(TestingHdfs.shared(), "page-cache-coordinator")
                .workers(0)
                .includeCoordinator(true)
                .overdriveProperty("cache.enabled", "true")
                .overdriveProperty("cache.base-directory", cacheDirectory.toString())
                .overdriveProperty("cache.max-size", "2GB")
                .build();
    }

    @Test
    void coordinatorCachesAndFlushes()
    {
        assertUpdate("CREATE TABLE coordinator_lineitem WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.lineitem", 60175);
        String sql = "SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice), avg(discount) FROM coordinator_lineitem GROUP BY 1, 2";

        PageCacheMetrics start = PageCacheMetrics.read(CATALOG);
        assertThat(query(sql)).matches(sql.replace("coordinator_lineitem", "hive.tpch.coordinator_lineitem"));
        PageCacheMetrics afterFirst = PageCacheMetrics.read(CATALOG);
        computeActual(sql);
        PageCacheMetrics second = PageCacheMetrics.read(CATALOG).minus(afterFirst);

        assertThat(afterFirst.minus(start).bytesFromRemote()).as("the first run reads HDFS").isPositive();
        assertThat(second.cacheShareOfBytes()).as("share of the second run's bytes read from the coordinator's cache (%s)", second).isGreaterThanOrEqualTo(0.9);
        assertThat(PageCacheMetrics.read(CATALOG).bytesCached()).isPositive();

        String coordinator = (String) computeActual("SELECT node_id FROM system.runtime.nodes WHERE coordinator").getOnlyValue();
        List<MaterializedRow> flushed = computeActual("SELECT node_id, bytes_cached_before, bytes_cached_after FROM TABLE(system.flush_cache())").getMaterializedRows();
        assertThat(flushed).as("one row, the coordinator's").hasSize(1);
        assertThat(flushed.getFirst().getField(0)).isEqualTo(coordinator);
        assertThat((Long) flushed.getFirst().getField(1)).isPositive();
        assertThat(flushed.getFirst().getField(2)).isEqualTo(0L);
        assertThat(PageCacheMetrics.read(CATALOG).bytesCached()).isZero();

        // emptied: the next run reads HDFS again
        PageCacheMetrics beforeReread = PageCacheMetrics.read(CATALOG);
        computeActual(sql);
        assertThat(PageCacheMetrics.read(CATALOG).minus(beforeReread).bytesFromRemote()).isPositive();
        assertUpdate("DROP TABLE coordinator_lineitem");
    }
}
