package io.overdrive.scheduler.affinity;

import org.junit.jupiter.api.Test;
import org.weakref.jmx.MBeanExporter;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The coordinator's and the worker's stats export through jmxutils with the attributes the issue asks for.
 */
public class TestSchedulerStatsJmx
{
    private static final Worker A = new Worker("node-a", "10.0.0.1:8080");
    private static final Worker B = new Worker("node-b", "10.0.0.2:8080");

    @Test
    public void testPlacementStats()
            throws Exception
    {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("io.overdrive.scheduler:name=TestPlacementStats");
        PlacementStats stats = new PlacementStats();
        new MBeanExporter(server).export(name.toString(), stats);
        try {
            stats.record(new Placement(A, PlacementKind.PREFERRED));
            stats.record(new Placement(A, PlacementKind.PREFERRED));
            stats.record(new Placement(B, PlacementKind.ALTERNATIVE));
            stats.record(new Placement(B, PlacementKind.FALLBACK));
            stats.record(new Placement(B, PlacementKind.FALLBACK));
            stats.recordUnplaced();
            stats.recordQuery(new PlacementSummary(Map.of("node-a", 6L, "node-b", 2L, "node-c", 4L)));
            stats.recordQuery(new PlacementSummary(Map.of("node-a", 0L)));

            assertThat(server.getAttribute(name, "Preferred.TotalCount")).isEqualTo(2L);
            assertThat(server.getAttribute(name, "Alternative.TotalCount")).isEqualTo(1L);
            assertThat(server.getAttribute(name, "Fallback.TotalCount")).isEqualTo(2L);
            assertThat(server.getAttribute(name, "Unplaced.TotalCount")).isEqualTo(1L);
            assertThat(server.getAttribute(name, "SplitsPerNode")).isEqualTo("node-a=2, node-b=3");
            // the query that placed nothing does not replace the last one
            assertThat(server.getAttribute(name, "LastQueryMaxSplitsPerNode")).isEqualTo(6L);
            assertThat((double) server.getAttribute(name, "LastQueryAverageSplitsPerNode")).isCloseTo(4.0, within(1e-9));
            assertThat((double) server.getAttribute(name, "LastQueryImbalance")).isCloseTo(1.5, within(1e-9));

            stats.setLoadView(() -> Map.of("node-a", 300.0, "node-b", 100.0));
            assertThat(server.getAttribute(name, "WorkerLoads")).isEqualTo("node-a=300.0, node-b=100.0");
            assertThat((double) server.getAttribute(name, "LoadImbalance")).isCloseTo(1.5, within(1e-9));
            Worker c = new Worker("node-c", "10.0.0.3:8080");
            stats.recordMembershipChange(List.of(A, B), List.of(B, c), 0.45, 1000);
            assertThat(server.getAttribute(name, "MembershipChanges.TotalCount")).isEqualTo(1L);
            assertThat((double) server.getAttribute(name, "LastRemapFraction")).isCloseTo(0.45, within(1e-9));
            // one of 2 joined, one of 2 left
            assertThat((double) server.getAttribute(name, "LastRemapIdealFraction")).isCloseTo(1.0, within(1e-9));
            assertThat(server.getAttribute(name, "LastRemapSampledKeys")).isEqualTo(1000L);
            assertThat(server.getAttribute(name, "LastRemapJoined")).isEqualTo(1L);
            assertThat(server.getAttribute(name, "LastRemapLeft")).isEqualTo(1L);
        }
        finally {
            server.unregisterMBean(name);
        }
    }
}
