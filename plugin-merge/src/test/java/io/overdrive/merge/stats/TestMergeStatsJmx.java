package io.overdrive.merge.stats;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.PageListSource;
import io.overdrive.merge.SortKey;
import io.overdrive.merge.SortedPageSource;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.overdrive.merge.testing.Drain;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;
import org.weakref.jmx.MBeanExporter;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.stream.IntStream;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's stats and scheduler export through jmxutils with the attributes the issue asks for.
 */
public class TestMergeStatsJmx
{
    @Test
    public void testExportedAttributes()
            throws Exception
    {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        MBeanExporter exporter = new MBeanExporter(server);
        ObjectName statsName = new ObjectName("io.overdrive.merge:name=TestMergeStats");
        ObjectName poolName = new ObjectName("io.overdrive.merge:name=TestMergePool");
        try (MergeEngine engine = new MergeEngine(new MergeConfig().setPoolSize(2).setBatchSize(100).setQueueSize(1))) {
            exporter.export(statsName.toString(), engine.getStats());
            exporter.export(poolName.toString(), engine.getPool());

            List<SortedPageSource> sources = IntStream.range(0, 9)
                    .mapToObj(i -> (SortedPageSource) new PageListSource(List.of(page(i, 50_000))))
                    .toList();
            var stream = engine.merge(MergeRequest.builder(List.of(BIGINT), List.of(SortKey.ascending(0)))
                    .sources(sources)
                    .parallelism(MergeParallelism.fixed(3))
                    .build());
            Drain.all(stream);
            Drain.awaitTerminated(stream);

            ObjectName exported = statsName;
            assertThat(server.getAttribute(exported, "RunningMerges")).isEqualTo(0L);
            assertThat(server.getAttribute(exported, "QueuedMerges")).isEqualTo(0L);
            assertThat(server.getAttribute(exported, "RowsIn.TotalCount")).isEqualTo(450_000L);
            assertThat(server.getAttribute(exported, "RowsOut.TotalCount")).isEqualTo(450_000L);
            assertThat((Double) server.getAttribute(exported, "RowsOut.OneMinute.Rate")).isPositive();
            assertThat(server.getAttribute(exported, "Yields.TotalCount")).isInstanceOf(Long.class);
            assertThat(server.getAttribute(exported, "Parallelism.AllTime.Max")).isEqualTo(3.0);
            assertThat(server.getAttribute(exported, "PoolWait.AllTime.Max")).isNotNull();
            assertThat(server.getAttribute(poolName, "RunningTasks")).isEqualTo(0);
            assertThat(server.getAttribute(poolName, "QueuedTasks")).isEqualTo(0);
            assertThat(server.getAttribute(poolName, "ConfiguredPoolSize")).isEqualTo(2);
        }
        finally {
            exporter.unexportAllAndReportMissing();
        }
    }

    private static Page page(int offset, int rows)
    {
        BlockBuilder builder = BIGINT.createBlockBuilder(null, rows);
        for (int i = 0; i < rows; i++) {
            BIGINT.writeLong(builder, offset + 9L * i);
        }
        return new Page(builder.build());
    }
}
