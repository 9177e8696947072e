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
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static io.overdrive.it.demo.PhaseResult.Phase.WARM;
import static io.overdrive.it.demo.Scenario.HEALTHY;
import static io.overdrive.it.demo.Scenario.RESTART;
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
    void summariesCombinePassesAndTheScoreboardComparesOverdriveWithBothAnchors()
    {
        DemoReport report = new DemoReport(results(), LakeFormat.HIVE.catalogs());
        assertThat(report.scenarios()).containsExactly(HEALTHY, RESTART);
        PhaseSummary hiveWarm = report.summary(HEALTHY, "hive", WARM);
        // two warm passes of 20 runs each
        assertThat(hiveWarm.millis()).hasSize(40);
        assertThat(hiveWarm.p95()).isEqualTo(1900);
        assertThat(hiveWarm.counters().remoteBytes()).isEqualTo(2 * 100L << 20);
        assertThat(report.summary(HEALTHY, "overdrive", WARM).p95()).isEqualTo(380);
        assertThat(report.summary(HEALTHY, "trino_cache", WARM).p95()).isEqualTo(475);
        assertThat(report.p95Ratio(HEALTHY, WARM, "trino_cache")).isCloseTo(0.8, within(1e-9));
        assertThat(report.p95Ratio(HEALTHY, WARM, "hive")).isCloseTo(0.2, within(1e-9));
        // neither cache read anything warm: the same bytes
        assertThat(report.bytesRatio(HEALTHY, WARM, "trino_cache")).isEqualTo(1.0);
        assertThat(report.bytesRatio(HEALTHY, COLD, "hive")).isCloseTo(0.5, within(1e-9));
        // after the restart Overdrive read 1 MiB where Trino's cache read nothing: no ratio, and the goal is missed
        assertThat(report.bytesRatio(RESTART, WARM, "trino_cache")).isNaN();
        assertThat(report.summary(HEALTHY, "overdrive", WARM).counters().cacheHitRatio()).isCloseTo(0.9, within(1e-9));
        assertThat(hiveWarm.counters().cacheHitRatio()).isEqualTo(-1);
        assertThat(report.allMatch()).isFalse();
        assertThat(report.summary(HEALTHY, "overdrive", COLD).mismatches()).isEqualTo(1);
        assertThat(report.summary(HEALTHY, "overdrive", COLD).errors()).containsExactly("Query failed: boom");
        assertThatThrownBy(() -> report.summary(RESTART, "hive", COLD)).hasMessage("no hive COLD phase in restart");

        assertThat(report.table())
                .contains("| healthy | `hive` | warm | 40 | 1,000 | 1,900 | 20.0 | 200.0 MiB | 20 | - | - | - | yes |")
                .contains("| healthy | `overdrive` | warm | 40 | 200 | 380 | 4.0 | 0.0 KiB | 2 | 90.0% | 6 / 4 | 8 / 2 / 0 | yes |")
                .contains("| healthy | `overdrive` | cold | 20 |")
                .contains("| restart | `trino_cache` | warm | 20 |")
                .contains("NO (1)");
        assertThat(report.scoreboard())
                .contains("| scenario | phase | overdrive / trino_cache P50 | P95 | storage bytes | overdrive / hive P50 | P95 | storage bytes | goal (against trino_cache) | met? |")
                // cold is not the healthy scenario's goal phase
                .contains("| healthy | cold | 0.80x | 0.80x | 0.50x | 0.40x | 0.40x | 0.50x | - | - |")
                .contains("| healthy | warm | 0.80x | 0.80x | 1.00x | 0.20x | 0.20x | 0.00x | P95 <= 1.0x, bytes <= 1.0x | yes |")
                .contains("| restart | warm | 0.40x | 0.40x | - | 0.20x | 0.20x | 0.01x | P95 <= 0.7x, bytes <= 1.0x | **no** |")
                .contains("| all | - | | | | | | | results identical to stock hive | **no** |");
    }

    @Test
    void everyScenarioHasAGoalPhaseItMeasures()
    {
        for (Scenario scenario : Scenario.values()) {
            assertThat(scenario.measures(scenario.goalPhase())).as(scenario.id()).isTrue();
        }
        assertThat(Scenario.CONCURRENT_COLD.goalPhase()).isEqualTo(COLD);
        assertThat(Arrays.stream(Scenario.values()).filter(Scenario::strictGoal))
                .containsExactly(Scenario.SLOW_NODE, Scenario.CONCURRENT_COLD, Scenario.SCAN_POLLUTION, RESTART);
    }

    @Test
    void skewedMixRepeatsForEveryCatalogAndFavoursFewQueries()
    {
        ConcurrentUsers.Mix mix = ConcurrentUsers.Mix.skewed(1, 1.2);
        List<DemoQueries.Query> first = mix.queries(DemoQueries.ALL, 0, 4, 0);
        assertThat(first).hasSize(DemoQueries.ALL.size());
        // the same user and pass draw the same queries, whichever catalog they run on
        assertThat(mix.queries(DemoQueries.ALL, 0, 4, 0)).isEqualTo(first);
        Map<String, Long> counts = new HashMap<>();
        for (int user = 0; user < 4; user++) {
            for (int pass = 0; pass < 50; pass++) {
                mix.queries(DemoQueries.ALL, user, 4, pass).forEach(query -> counts.merge(query.name(), 1L, Long::sum));
            }
        }
        List<Long> sorted = counts.values().stream().sorted(Comparator.reverseOrder()).toList();
        long total = sorted.stream().mapToLong(Long::longValue).sum();
        // weights 1/k^1.2 over 8 queries: the two most popular about 58% of the draws, the least popular about 3%
        assertThat((double) (sorted.get(0) + sorted.get(1)) / total).isBetween(0.5, 0.66);
        assertThat((double) sorted.getLast() / total).isLessThan(0.06);
        // the staggered mix: every query once per user, each user starting elsewhere; the same start: one order
        assertThat(ConcurrentUsers.Mix.STAGGERED.queries(DemoQueries.ALL, 1, 4, 0).getFirst()).isEqualTo(DemoQueries.ALL.get(2));
        assertThat(ConcurrentUsers.Mix.STAGGERED.queries(DemoQueries.ALL, 1, 4, 0)).containsExactlyInAnyOrderElementsOf(DemoQueries.ALL);
        assertThat(ConcurrentUsers.Mix.SAME_START.queries(DemoQueries.ALL, 3, 4, 0)).isEqualTo(DemoQueries.ALL);
    }

    @Test
    void reportHasTheTablesChartsAndEveryRun(@TempDir Path directory)
            throws IOException
    {
        DemoReport report = new DemoReport(results(), LakeFormat.HIVE.catalogs());
        Path file = report.write(directory.resolve("report"), "# header\n", "hive vs trino_cache vs overdrive", DemoQueries.ALL);
        String markdown = Files.readString(file);
        assertThat(markdown).startsWith("# header\n")
                .contains(report.table())
                .contains(report.scoreboard())
                .contains("![P95 query time per scenario](latency-percentiles.png)")
                .contains("**restart**")
                .contains("| Q1 |");
        for (String chart : List.of(DemoCharts.PERCENTILES, DemoCharts.DISTRIBUTION, DemoCharts.REMOTE_BYTES)) {
            BufferedImage image = ImageIO.read(directory.resolve("report").resolve(chart).toFile());
            assertThat(image).as(chart).isNotNull();
            assertThat(image.getWidth()).isEqualTo(900);
            assertThat(image.getHeight()).isEqualTo(500);
        }
        List<String> csv = Files.readAllLines(directory.resolve("report/runs.csv"));
        assertThat(csv).hasSize(1 + 3 * (20 + 40) + 3 * 20);
        assertThat(csv.getFirst()).isEqualTo("scenario,catalog,phase,user,query,millis,same_rows_as_hive");
        assertThat(csv).contains("healthy,overdrive,cold,1,Q1,40,false");
    }

    @Test
    void icebergReportNamesItsStockCatalogAsTheAnchor(@TempDir Path directory)
            throws IOException
    {
        List<PhaseResult> results = results().stream()
                .map(result -> result.catalog().equals("hive")
                        ? new PhaseResult(result.scenario(), "iceberg", result.phase(), result.runs(), result.wallMillis(), result.counters())
                        : result)
                .toList();
        DemoReport report = new DemoReport(results, LakeFormat.ICEBERG.catalogs());
        assertThat(report.p95Ratio(HEALTHY, WARM, "iceberg")).isCloseTo(0.2, within(1e-9));
        assertThat(report.table())
                .contains("| same rows as iceberg |")
                .contains("| healthy | `iceberg` | warm | 40 | 1,000 | 1,900 | 20.0 | 200.0 MiB | 20 | - | - | - | yes |");
        assertThat(report.scoreboard())
                .contains("| scenario | phase | overdrive / trino_cache P50 | P95 | storage bytes | overdrive / iceberg P50 | P95 | storage bytes | goal (against trino_cache) | met? |")
                .contains("| healthy | warm | 0.80x | 0.80x | 1.00x | 0.20x | 0.20x | 0.00x | P95 <= 1.0x, bytes <= 1.0x | yes |")
                .contains("| all | - | | | | | | | results identical to stock iceberg | **no** |")
                .doesNotContain("hive");
        report.write(directory, "# header\n", "iceberg vs trino_cache vs overdrive", DemoQueries.ALL);
        assertThat(Files.readAllLines(directory.resolve("runs.csv")).getFirst()).isEqualTo("scenario,catalog,phase,user,query,millis,same_rows_as_iceberg");
        assertThat(Files.readString(directory.resolve("report.md"))).contains("## Scoreboard: overdrive against trino_cache (Trino's own cache) and iceberg (stock)");
    }

    // healthy: hive 100..2000 ms per run, trino_cache half that cold and a quarter warm, overdrive 40% cold (one run
    // failed) and a fifth warm, two warm passes each; restart: one warm pass each, overdrive reading 1 MiB
    private static List<PhaseResult> results()
    {
        List<PhaseResult> results = new ArrayList<>();
        results.add(new PhaseResult(HEALTHY, "hive", COLD, runs(100, false), 10_000, counters(100L << 20, 10, 0, 0, 0, 0, 0, 0)));
        results.add(new PhaseResult(HEALTHY, "trino_cache", COLD, runs(50, false), 5_000, counters(100L << 20, 10, 0, 100, 0, 0, 0, 0)));
        results.add(new PhaseResult(HEALTHY, "overdrive", COLD, runs(40, true), 5_000, counters(50L << 20, 5, 0, 50, 9, 7, 4, 0)));
        for (int pass = 1; pass <= 2; pass++) {
            results.add(new PhaseResult(HEALTHY, "hive", WARM, runs(100, false), 10_000, counters(100L << 20, 10, 0, 0, 0, 0, 0, 0)));
            results.add(new PhaseResult(HEALTHY, "trino_cache", WARM, runs(25, false), 3_000, counters(0, 0, 100, 0, 0, 0, 0, 0)));
            results.add(new PhaseResult(HEALTHY, "overdrive", WARM, runs(20, false), 2_000, counters(0, 1, 90, 10, 3, 2, 4, 1)));
        }
        results.add(new PhaseResult(RESTART, "hive", WARM, runs(100, false), 10_000, counters(100L << 20, 10, 0, 0, 0, 0, 0, 0)));
        results.add(new PhaseResult(RESTART, "trino_cache", WARM, runs(50, false), 5_000, counters(0, 0, 100, 0, 0, 0, 0, 0)));
        results.add(new PhaseResult(RESTART, "overdrive", WARM, runs(20, false), 2_000, counters(1L << 20, 1, 99, 1, 0, 0, 4, 0)));
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

    private static ClusterCounters counters(long bytes, long requests, long hit, long missed, long hedges, long wins, long preferred, long alternative)
    {
        return new ClusterCounters(bytes, requests, hit, missed, hedges, wins, preferred, alternative, 0);
    }
}
