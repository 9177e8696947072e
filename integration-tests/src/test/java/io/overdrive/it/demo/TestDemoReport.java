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
                .contains("| healthy | `hive` | warm | 1 | 40 | 1,000 | 1,900 | 20.0 | - | - | 200.0 MiB | 5.0 MiB | 20 | 0.5 | - | - | - | - | yes |")
                .contains("| healthy | `overdrive` | warm | 1 | 40 | 200 | 380 | 4.0 | - | - | 0.0 KiB | 0.0 KiB | 2 | 0.1 | 90.0% | 6 / 4 | 8 / 2 / 0 | - | yes |")
                .contains("| healthy | `overdrive` | cold | 1 | 20 |")
                .contains("| restart | `trino_cache` | warm | 1 | 20 |")
                .contains("NO (1)");
        assertThat(report.rounds()).isEqualTo(1);
        assertThat(report.scoreboard())
                .startsWith("Ratios: overdrive's figure over the other catalog's; lower is better. One round gives no interval over rounds")
                .contains("--rounds 5")
                .contains("| scenario | phase | figure | overdrive / trino_cache: ratio | 95% interval | verdict | overdrive / hive: ratio | 95% interval | verdict | goal (against trino_cache) | met? |")
                // one round: bytes have no interval; no CPU time was reported
                .contains("| healthy | cold | storage bytes | 0.50x | - | - | 0.50x | - | - | - | - |")
                .contains("| healthy | cold | CPU time | - | - | - | - | - | - | - | - |")
                .contains("| healthy | warm | storage bytes | 1.00x | - | - | 0.00x | - | - | - | - |")
                .contains("| restart | warm | storage bytes | inf | - | - | 0.01x | - | - | - | - |")
                .containsPattern("\\| healthy \\| cold \\| P50 \\| 0\\.80x \\| [0-9.]+-[0-9.]+ \\| [a-z*]+ \\| 0\\.40x \\| [0-9.]+-[0-9.]+ \\| [a-z*]+ \\| - \\| - \\|")
                // cold is not the healthy scenario's goal phase
                .containsPattern("\\| healthy \\| warm \\| P95 \\| 0\\.80x \\| [0-9.]+-[0-9.]+ \\| [a-z*]+ \\| 0\\.20x \\| [0-9.]+-[0-9.]+ \\| [a-z*]+ \\| P95 <= 1\\.0x, bytes <= 1\\.0x \\| yes \\|")
                .containsPattern("\\| restart \\| warm \\| P95 \\| 0\\.40x \\| .* \\| P95 <= 0\\.7x, bytes <= 1\\.0x \\| \\*\\*no\\*\\* \\|")
                .contains("| all | - | - | | | | | | | results identical to stock hive | **no** |");
        // one round: the queries resampled within it, labelled so
        RatioInterval.Estimate warm = report.estimate(HEALTHY, WARM, "hive", DemoReport.Metric.P95);
        assertThat(warm.method()).isEqualTo(RatioInterval.Method.QUERIES);
        assertThat(warm.ratio()).isCloseTo(0.2, within(1e-9));
        // a fifth of stock hive's time in every run: clearly a win however the queries are drawn
        assertThat(warm.verdict()).isEqualTo(RatioInterval.Verdict.WIN);
        assertThat(report.cpuBound()).isEqualTo("Host CPU: unknown (no /proc/stat here).");
    }

    @Test
    void roundsGiveIntervalsOverRoundsCpuTimeAndTheMachineLoad(@TempDir Path directory)
            throws IOException
    {
        // three rounds of the healthy warm phase: in every round Overdrive takes half trino_cache's time and a tenth of
        // hive's, and half trino_cache's CPU; its storage bytes 1, 2 and 3 MiB against trino_cache's 2 MiB each round
        List<PhaseResult> results = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            long noise = 10L * round;
            HostLoad.Window host = new HostLoad.Window(1.0 + round, 2.0 + round, round == 1 ? 95 : 50, round == 1 ? 5 : 50);
            results.add(new PhaseResult(HEALTHY, "hive", WARM, round, runs(200 + noise, 40 + noise), 10_000, counters(20L << 20, 20, 0, 0, 0, 0, 0, 0), host));
            results.add(new PhaseResult(HEALTHY, "trino_cache", WARM, round, runs(40 + noise, 20 + noise), 3_000, counters(2L << 20, 2, 9, 1, 0, 0, 0, 0), host));
            results.add(new PhaseResult(HEALTHY, "overdrive", WARM, round, runs(20 + noise / 2, 10 + noise / 2), 2_000, counters((round + 1L) << 20, 1, 9, 1, 0, 0, 4, 0), host));
        }
        DemoReport report = new DemoReport(results, LakeFormat.HIVE.catalogs());
        assertThat(report.rounds()).isEqualTo(3);
        PhaseSummary overdrive = report.summary(HEALTHY, "overdrive", WARM);
        assertThat(overdrive.rounds()).isEqualTo(3);
        assertThat(overdrive.millis()).hasSize(60);
        assertThat(overdrive.cpuMillis()).hasSize(60);
        // CPU per run i * (10, 15, 20) over the rounds, i = 1..20: 210 * 45
        assertThat(overdrive.cpuTotal()).isEqualTo(210 * 45);
        // busy 50 + 95 + 50 of 300 jiffies
        assertThat(overdrive.host().utilisation()).isCloseTo(0.65, within(1e-12));

        RatioInterval.Estimate p95 = report.estimate(HEALTHY, WARM, "trino_cache", DemoReport.Metric.P95);
        assertThat(p95.method()).isEqualTo(RatioInterval.Method.ROUNDS);
        assertThat(p95.ratio()).isCloseTo(0.5, within(1e-9));
        assertThat(p95.intervalText()).isEqualTo("0.50-0.50");
        assertThat(p95.verdict()).isEqualTo(RatioInterval.Verdict.WIN);
        assertThat(report.estimate(HEALTHY, WARM, "trino_cache", DemoReport.Metric.CPU).intervalText()).isEqualTo("0.50-0.50");
        RatioInterval.Estimate bytes = report.estimate(HEALTHY, WARM, "trino_cache", DemoReport.Metric.BYTES);
        // 6 MiB against 6 MiB pooled; rounds drawn: between 1/2 and 3/2
        assertThat(bytes.ratio()).isEqualTo(1.0);
        assertThat(bytes.low()).isEqualTo(0.5);
        assertThat(bytes.high()).isEqualTo(1.5);
        assertThat(bytes.verdict()).isEqualTo(RatioInterval.Verdict.TIE);
        assertThat(bytes.roundRatios()).containsExactly(0.5, 1.0, 1.5);

        assertThat(report.scoreboard())
                .contains("95% interval: bootstrap over the 3 rounds")
                .doesNotContain("One round")
                .contains("| healthy | warm | P95 | 0.50x | 0.50-0.50 | **win** |")
                .contains("| healthy | warm | CPU time | 0.50x | 0.50-0.50 | **win** |")
                .contains("| healthy | warm | storage bytes | 1.00x | 0.50-1.50 | tie |");
        assertThat(report.scoreboard()).contains("With fewer than 5 rounds the rounds can be drawn in only a few ways");
        assertThat(report.cpuBound()).isEqualTo("CPU-bound phases (host CPU at least 90%; their times say as much about this machine's cores as about the catalogs): "
                + "healthy hive warm round 2 (95%), healthy trino_cache warm round 2 (95%), healthy overdrive warm round 2 (95%).");
        assertThat(report.table()).contains("| healthy | `overdrive` | warm | 3 | 60 |").contains("| 65% | yes |");
        List<PhaseResult> busy = results.stream()
                .map(result -> new PhaseResult(result.scenario(), result.catalog(), result.phase(), result.round(), result.runs(), result.wallMillis(), result.counters(),
                        new HostLoad.Window(1, 1, 99, 1)))
                .toList();
        assertThat(new DemoReport(busy, LakeFormat.HIVE.catalogs()).cpuBound()).startsWith("CPU-bound phases (host CPU at least 90%): every one of the 9,");
        assertThat(new DemoReport(results.stream().filter(result -> result.round() != 1).toList(), LakeFormat.HIVE.catalogs()).cpuBound())
                .isEqualTo("CPU-bound phases (host CPU at least 90%): none.");
        assertThat(report.load()).contains("| healthy | `hive` | warm | 2 | 2.00 | 3.00 | 95% | **yes** |");
        assertThat(report.perRound()).contains("| healthy | warm | storage bytes | `trino_cache` | 0.50x | 1.00x | 1.50x |");

        report.write(directory, "# header\n", "subtitle", DemoQueries.ALL);
        List<String> summary = Files.readAllLines(directory.resolve("summary.csv"));
        assertThat(summary.getFirst()).isEqualTo("scenario,phase,metric,catalog,anchor,ratio,low,high,verdict,rounds,method");
        assertThat(summary).contains(
                "healthy,warm,p95,overdrive,trino_cache,0.5000,0.5000,0.5000,win,3,rounds",
                "healthy,warm,storage_bytes,overdrive,trino_cache,1.0000,0.5000,1.5000,tie,3,rounds");
        // 4 figures against 2 anchors
        assertThat(summary).hasSize(1 + 8);
        List<String> phases = Files.readAllLines(directory.resolve("phases.csv"));
        assertThat(phases.getFirst()).isEqualTo("scenario,catalog,phase,round,queries,wall_millis,cpu_millis,storage_bytes,storage_requests,load_start,load_end,cpu_utilisation,cpu_bound");
        assertThat(phases).hasSize(1 + 9).contains("healthy,overdrive,warm,2,20,2000,%d,%d,1,2.00,3.00,0.9500,true".formatted(210 * 15, 2L << 20));
        List<String> runs = Files.readAllLines(directory.resolve("runs.csv"));
        assertThat(runs.getFirst()).isEqualTo("scenario,catalog,phase,round,user,query,millis,cpu_millis,same_rows_as_hive");
        assertThat(runs).contains("healthy,overdrive,warm,3,1,Q1,30,20,true");
        assertThat(Files.readString(directory.resolve("report.md")))
                .contains("### Each round's own ratio")
                .contains("## Machine load per phase")
                .contains(report.load());
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
        assertThat(csv.getFirst()).isEqualTo("scenario,catalog,phase,round,user,query,millis,cpu_millis,same_rows_as_hive");
        // no CPU time reported: an empty field
        assertThat(csv).contains("healthy,overdrive,cold,1,1,Q1,40,,false");
        assertThat(directory.resolve("report/summary.csv")).exists();
        assertThat(directory.resolve("report/phases.csv")).exists();
        assertThat(markdown).contains("Every ratio with its interval: `summary.csv`.").doesNotContain("Each round's own ratio");
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
                .contains("| healthy | `iceberg` | warm | 1 | 40 | 1,000 | 1,900 | 20.0 | - | - | 200.0 MiB | 5.0 MiB | 20 | 0.5 | - | - | - | - | yes |");
        assertThat(report.scoreboard())
                .contains("| scenario | phase | figure | overdrive / trino_cache: ratio | 95% interval | verdict | overdrive / iceberg: ratio | 95% interval | verdict | goal (against trino_cache) | met? |")
                .contains("| healthy | warm | storage bytes | 1.00x | - | - | 0.00x | - | - | - | - |")
                .contains("| all | - | - | | | | | | | results identical to stock iceberg | **no** |")
                .doesNotContain("hive");
        report.write(directory, "# header\n", "iceberg vs trino_cache vs overdrive", DemoQueries.ALL);
        assertThat(Files.readAllLines(directory.resolve("runs.csv")).getFirst()).isEqualTo("scenario,catalog,phase,round,user,query,millis,cpu_millis,same_rows_as_iceberg");
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

    // 20 runs of i * step ms and i * cpuStep ms of CPU, i = 1..20
    private static List<QueryRun> runs(long step, long cpuStep)
    {
        List<QueryRun> runs = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            runs.add(new QueryRun(0, DemoQueries.ALL.get((i - 1) % DemoQueries.ALL.size()).name(), i * step, i * cpuStep, true, null));
        }
        return runs;
    }

    private static ClusterCounters counters(long bytes, long requests, long hit, long missed, long hedges, long wins, long preferred, long alternative)
    {
        return new ClusterCounters(bytes, requests, hit, missed, hedges, wins, preferred, alternative, 0);
    }
}
