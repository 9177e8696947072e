package io.overdrive.it.demo;

import io.overdrive.it.TestingHdfs;
import io.overdrive.it.harness.ProjectLayout;
import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static io.overdrive.it.demo.PhaseResult.Phase.WARM;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main job end to end, small: {@code ./overdrive demo} at TPC-H tiny with 2 users on remote-like storage with a slow
 * DataNode. Its real HDFS and three Trino processes are its own. Asserts what the demo promises: every result is stock
 * hive's, Overdrive's warm passes are served by its cache and read (almost) nothing from storage, the features count
 * what they did, and the report and its charts are written. Speed is the benchmark's business, not this test's.
 */
final class TestDemo
{
    @Test
    void demoRunsTheWorkloadThroughBothCatalogsAndReports()
            throws Exception
    {
        Path work = TestingHdfs.workDirectory().resolve("demo");
        DemoOptions options = DemoOptions.parse("--repo", ProjectLayout.fromSystemProperty().root().toString(), "--work", work.toString(),
                "--scale", "tiny", "--users", "2", "--warm-passes", "1", "--storage-latency", "5ms", "--slow-datanode", "100ms");
        DemoReport report = Demo.run(options);

        assertThat(report.allMatch()).as("every query run returned stock hive's rows").isTrue();
        List<PhaseSummary> summaries = report.summaries();
        assertThat(summaries).extracting(summary -> summary.catalog() + " " + summary.phase().label())
                .containsExactly("hive cold", "hive warm", "overdrive cold", "overdrive warm");
        for (PhaseSummary summary : summaries) {
            assertThat(summary.millis()).as(summary.catalog() + " " + summary.phase()).hasSize(2 * DemoQueries.ALL.size());
        }

        PhaseSummary hiveWarm = PhaseSummary.find(summaries, "hive", WARM);
        PhaseSummary overdriveCold = PhaseSummary.find(summaries, "overdrive", COLD);
        PhaseSummary overdriveWarm = PhaseSummary.find(summaries, "overdrive", WARM);
        // stock hive reads storage on every pass; Overdrive's cold pass fills its cache, its warm pass is served by it
        assertThat(hiveWarm.counters().remoteBytes()).isPositive();
        assertThat(overdriveCold.counters().cacheBytesMissed()).isPositive();
        assertThat(overdriveWarm.counters().cacheHitRatio()).isGreaterThan(0.99);
        assertThat(overdriveWarm.counters().remoteBytes()).isLessThan(hiveWarm.counters().remoteBytes() / 10);
        assertThat(report.remoteBytesSaved(WARM)).isGreaterThan(0.9);
        // every split was placed by soft affinity
        assertThat(overdriveCold.counters().preferred() + overdriveCold.counters().alternative() + overdriveCold.counters().fallback()).isPositive();
        // stock hive has none of Overdrive's MBeans
        assertThat(PhaseSummary.find(summaries, "hive", COLD).counters().cacheHitRatio()).isEqualTo(-1);

        Path markdown = options.report().resolve("report.md");
        assertThat(Files.readString(markdown)).contains("# Overdrive demo report").contains(report.table()).contains(report.verdict());
        for (String chart : List.of(DemoCharts.PERCENTILES, DemoCharts.DISTRIBUTION, DemoCharts.REMOTE_BYTES)) {
            assertThat(ImageIO.read(options.report().resolve(chart).toFile())).as(chart).isNotNull();
        }
    }
}
