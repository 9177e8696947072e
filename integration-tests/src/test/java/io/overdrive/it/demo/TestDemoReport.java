package io.overdrive.it.demo;

import io.overdrive.it.demo.ConcurrentUsers.QueryRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static io.overdrive.it.demo.PhaseResult.Phase.WARM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

final class TestDemoReport
{
    @Test
    void percentilesAreNearestRank()
    {
        List<Long> hundred = LongStream.rangeClosed(1, 100).boxed().toList();
        assertThat(PhaseSummary.percentile(hundred, 50)).isEqualTo(50);
        assertThat(PhaseSummary.percentile(hundred, 95)).isEqualTo(95);
        assertThat(PhaseSummary.percentile(hundred, 100)).isEqualTo(100);
        List<Long> twenty = LongStream.rangeClosed(1, 20).map(i -> i * 10).boxed().toList();
        // rank ceil(0.95 * 20) = 19
        assertThat(PhaseSummary.percentile(twenty, 95)).isEqualTo(190);
        assertThat(PhaseSummary.percentile(List.of(7L), 50)).isEqualTo(7);
        assertThat(PhaseSummary.percentile(List.of(7L), 0)).isEqualTo(7);
        assertThatThrownBy(() -> PhaseSummary.percentile(List.of(), 50)).hasMessage("no values");
        assertThatThrownBy(() -> PhaseSummary.percentile(List.of(2L, 1L), 50)).hasMessage("values are not sorted");
    }

    @Test
    void summariesCombineRepetitionsAndRatiosCompareTheCatalogs()
    {
        DemoReport report = new DemoReport(results(), "hive", "overdrive");
        PhaseSummary hiveWarm = PhaseSummary.find(report.summaries(), "hive", WARM);
        // two repetitions of 20 runs each
        assertThat(hiveWarm.millis()).hasSize(40);
        assertThat(hiveWarm.p95()).isEqualTo(1900);
        assertThat(hiveWarm.counters().remoteBytes()).isEqualTo(2 * 100L << 20);
        PhaseSummary overdriveWarm = PhaseSummary.find(report.summaries(), "overdrive", WARM);
        assertThat(overdriveWarm.p95()).isEqualTo(380);
        assertThat(report.p95Ratio(WARM)).isCloseTo(0.2, within(1e-9));
        assertThat(report.remoteBytesSaved(WARM)).isCloseTo(0.95, within(1e-9));
        assertThat(report.remoteBytesSaved(COLD)).isCloseTo(0.5, within(1e-9));
        assertThat(overdriveWarm.counters().cacheHitRatio()).isCloseTo(0.9, within(1e-9));
        assertThat(hiveWarm.counters().cacheHitRatio()).isEqualTo(-1);
        assertThat(report.allMatch()).isFalse();
        assertThat(PhaseSummary.find(report.summaries(), "overdrive", COLD).mismatches()).isEqualTo(1);
        assertThat(PhaseSummary.find(report.summaries(), "overdrive", COLD).errors()).containsExactly("Query failed: boom");

        assertThat(report.table())
                .contains("| `hive` | warm | 40 | 1,000 | 1,900 | 20.0 | 200.0 MiB | 20 | - | - | - | - | yes |")
                .contains("| `overdrive` | warm | 40 | 200 | 380 | 4.0 | 10.0 MiB | 2 | 90.0% | 6 / 4 | 10 | 8 / 2 / 0 | yes |")
                .contains("| `overdrive` | cold | 20 |")
                .contains("NO (1)");
        assertThat(report.verdict())
                .contains("| warm P95 <= 0.5x stock hive | 0.20x (P50 0.20x) | yes |")
                .contains("| storage bytes -90% on the repeated (warm) workload | 95.0% less (cold: 50.0% less) | yes |")
                .contains("| results identical to stock hive | NOT ALL (see the table) | **no** |");
    }

    @Test
    void reportHasTheTablesChartsAndEveryRun(@TempDir Path directory)
            throws IOException
    {
        DemoReport report = new DemoReport(results(), "hive", "overdrive");
        Path file = report.write(directory.resolve("report"), "# header\n", "hive vs overdrive", DemoQueries.ALL);
        String markdown = Files.readString(file);
        assertThat(markdown).startsWith("# header\n")
                .contains(report.table())
                .contains(report.verdict())
                .contains("![query time percentiles](latency-percentiles.png)")
                .contains("| Q1 |");
        for (String chart : List.of(DemoCharts.PERCENTILES, DemoCharts.DISTRIBUTION, DemoCharts.REMOTE_BYTES)) {
            BufferedImage image = ImageIO.read(directory.resolve("report").resolve(chart).toFile());
            assertThat(image).as(chart).isNotNull();
            assertThat(image.getWidth()).isEqualTo(900);
            assertThat(image.getHeight()).isEqualTo(500);
        }
        List<String> csv = Files.readAllLines(directory.resolve("report/runs.csv"));
        assertThat(csv).hasSize(1 + 40 + 40 + 20 + 20);
        assertThat(csv.getFirst()).isEqualTo("catalog,phase,repetition,user,query,millis,same_rows_as_hive");
        assertThat(csv).contains("overdrive,cold,1,1,Q1,20,false");
    }

    // hive: warm 100..2000 ms twice, cold the same once; overdrive a fifth of that, one cold run failed
    private static List<PhaseResult> results()
    {
        List<PhaseResult> results = new ArrayList<>();
        for (int repetition = 1; repetition <= 2; repetition++) {
            results.add(new PhaseResult("hive", WARM, repetition, runs(100, false), 10_000, counters(100L << 20, 10, 0, 0, 0, 0, 0, 0, 0)));
            results.add(new PhaseResult("overdrive", WARM, repetition, runs(20, false), 2_000, counters(5L << 20, 1, 90, 10, 3, 2, 5, 4, 1)));
        }
        results.add(new PhaseResult("hive", COLD, 1, runs(100, false), 10_000, counters(100L << 20, 10, 0, 0, 0, 0, 0, 0, 0)));
        results.add(new PhaseResult("overdrive", COLD, 1, runs(20, true), 5_000, counters(50L << 20, 5, 0, 50, 9, 7, 30, 4, 0)));
        return results;
    }

    private static List<QueryRun> runs(long step, boolean firstFails)
    {
        List<QueryRun> runs = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            boolean failed = firstFails && i == 1;
            runs.add(new QueryRun(0, DemoQueries.ALL.get((i - 1) % DemoQueries.ALL.size()).name(), i * step, !failed, failed ? "Query failed: boom" : null));
        }
        return runs;
    }

    private static ClusterCounters counters(long bytes, long requests, long hit, long missed, long hedges, long wins, long coalesced, long preferred, long alternative)
    {
        return new ClusterCounters(bytes, requests, hit, missed, hedges, wins, coalesced, 0, preferred, alternative, 0);
    }
}
