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
import static io.overdrive.it.demo.Scenario.HEALTHY;
import static io.overdrive.it.demo.Scenario.RESTART;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main job end to end, small: {@code ./overdrive demo} at TPC-H tiny with 2 users on remote-like storage, the healthy
 * and restart scenarios. Its real HDFS and three Trino processes are its own. Asserts what the demo promises: every
 * result is stock hive's, both caches serve their warm passes and read (almost) nothing from storage, also after every
 * worker restarted with its cache on disk, Overdrive's features count what they did, and the report and its charts are
 * written. Speed is the benchmark's business, not this test's.
 */
final class TestDemo
{
    @Test
    void demoRunsTheWorkloadThroughEveryCatalogAndReports()
            throws Exception
    {
        Path work = TestingHdfs.workDirectory().resolve("demo");
        DemoOptions options = DemoOptions.parse("--repo", ProjectLayout.fromSystemProperty().root().toString(), "--work", work.toString(),
                "--scale", "tiny", "--users", "2", "--warm-passes", "1", "--storage-latency", "5ms", "--scenario", "healthy,restart", "--cache-size", "16MB");
        DemoReport report = Demo.run(options);

        assertThat(report.allMatch()).as("every query run returned stock hive's rows").isTrue();
        List<PhaseSummary> summaries = report.summaries();
        assertThat(summaries).extracting(summary -> "%s %s %s".formatted(summary.scenario().id(), summary.catalog(), summary.phase().label()))
                .containsExactly(
                        "healthy hive cold", "healthy trino_cache cold", "healthy overdrive cold",
                        "healthy hive warm", "healthy trino_cache warm", "healthy overdrive warm",
                        "restart hive warm", "restart trino_cache warm", "restart overdrive warm");
        for (PhaseSummary summary : summaries) {
            assertThat(summary.millis()).as(summary.catalog() + " " + summary.phase()).hasSize(2 * DemoQueries.ALL.size());
        }

        for (Scenario scenario : List.of(HEALTHY, RESTART)) {
            PhaseSummary hiveWarm = report.summary(scenario, "hive", WARM);
            // stock hive reads storage on every pass, and has neither cache's MBeans
            assertThat(hiveWarm.counters().remoteBytes()).isPositive();
            assertThat(hiveWarm.counters().cacheHitRatio()).isEqualTo(-1);
            // both caches serve the warm pass, after the restart too (each restores its pages from disk)
            for (String catalog : List.of("trino_cache", "overdrive")) {
                PhaseSummary warm = report.summary(scenario, catalog, WARM);
                assertThat(warm.counters().cacheHitRatio()).as("%s %s warm hit ratio", scenario.id(), catalog).isGreaterThan(0.9);
                assertThat(warm.counters().remoteBytes()).as("%s %s warm storage bytes", scenario.id(), catalog).isLessThan(hiveWarm.counters().remoteBytes() / 10);
            }
        }
        PhaseSummary overdriveCold = report.summary(HEALTHY, "overdrive", COLD);
        assertThat(overdriveCold.counters().cacheBytesMissed()).isPositive();
        assertThat(report.summary(HEALTHY, "trino_cache", COLD).counters().cacheBytesMissed()).isPositive();
        // every split was placed by soft affinity, and on its file's first worker: at the placement defaults the load
        // floor keeps a dominant file (lineitem) on its worker on 2 workers, where the relative bound alone would not
        for (Scenario scenario : List.of(HEALTHY, RESTART)) {
            for (PhaseResult.Phase phase : scenario == HEALTHY ? List.of(COLD, WARM) : List.of(WARM)) {
                ClusterCounters counters = report.summary(scenario, "overdrive", phase).counters();
                assertThat(counters.preferred()).as("%s %s splits on their preferred worker", scenario.id(), phase).isPositive();
                assertThat(counters.alternative() + counters.fallback()).as("%s %s splits moved off their preferred worker", scenario.id(), phase).isZero();
            }
        }

        Path markdown = options.report().resolve("report.md");
        assertThat(Files.readString(markdown)).contains("# Overdrive demo report").contains(report.table()).contains(report.scoreboard())
                .contains("restart: both workers restarted");
        for (String chart : List.of(DemoCharts.PERCENTILES, DemoCharts.DISTRIBUTION, DemoCharts.REMOTE_BYTES)) {
            assertThat(ImageIO.read(options.report().resolve(chart).toFile())).as(chart).isNotNull();
        }
    }
}
