package io.overdrive.it.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The demo's results: a table per scenario, catalog and phase; the scoreboard (Overdrive against Trino's own cache and
 * against stock Trino, per scenario, each ratio with its 95% interval and verdict ({@link RatioInterval}), with the
 * goals); the machine's load per phase; and a report directory ({@code report.md}, the PNG charts, every query run, every
 * phase and every ratio as CSV). The catalogs are, in order: stock, Trino's cache, Overdrive.
 */
final class DemoReport
{
    // warm (or concurrent cold) P95 against Trino's cache: at most this in every scenario, and the stricter one where a
    // scenario's fault is what Overdrive's features are for
    static final double GOAL = 1.0;
    static final double STRICT_GOAL = 0.7;
    // below this many rounds a bootstrap over rounds has too few distinct resamples to trust its interval
    static final int FEW_ROUNDS = 5;

    /** What the scoreboard compares, each as Overdrive's over an anchor's. */
    enum Metric
    {
        P50("P50", "p50", RatioInterval.Statistic.P50),
        P95("P95", "p95", RatioInterval.Statistic.P95),
        CPU("CPU time", "cpu_millis", RatioInterval.Statistic.TOTAL),
        BYTES("storage bytes", "storage_bytes", RatioInterval.Statistic.TOTAL);

        private final String label;
        private final String id;
        private final RatioInterval.Statistic statistic;

        Metric(String label, String id, RatioInterval.Statistic statistic)
        {
            this.label = label;
            this.id = id;
            this.statistic = statistic;
        }

        String label()
        {
            return label;
        }

        /** The name in summary.csv. */
        String id()
        {
            return id;
        }

        // one catalog's round of a phase: its runs by query (the CPU time of those Trino reported it for), or its bytes
        RatioInterval.Round round(PhaseResult result)
        {
            if (this == BYTES) {
                return RatioInterval.Round.single(result.counters().remoteBytes());
            }
            Map<String, List<Long>> byQuery = new LinkedHashMap<>();
            for (ConcurrentUsers.QueryRun run : result.runs()) {
                long value = this == CPU ? run.cpuMillis() : run.millis();
                if (value >= 0) {
                    byQuery.computeIfAbsent(run.query(), _ -> new ArrayList<>()).add(value);
                }
            }
            return new RatioInterval.Round(byQuery);
        }
    }

    private final List<PhaseResult> results;
    private final List<PhaseSummary> summaries;
    private final List<String> catalogs;
    private final String stock;
    private final String trinoCache;
    private final String overdrive;
    private final Map<String, RatioInterval.Estimate> estimates = new HashMap<>();

    DemoReport(List<PhaseResult> results, List<String> catalogs)
    {
        this.results = List.copyOf(results);
        this.catalogs = List.copyOf(catalogs);
        if (catalogs.size() != 3) {
            throw new IllegalArgumentException("the report compares three catalogs (stock, Trino's cache, Overdrive), not " + catalogs);
        }
        this.stock = catalogs.get(0);
        this.trinoCache = catalogs.get(1);
        this.overdrive = catalogs.get(2);
        this.summaries = PhaseSummary.of(results, catalogs);
    }

    List<PhaseSummary> summaries()
    {
        return summaries;
    }

    /** The scenarios with results, in the order they ran. */
    List<Scenario> scenarios()
    {
        Set<Scenario> scenarios = new LinkedHashSet<>();
        summaries.forEach(summary -> scenarios.add(summary.scenario()));
        return List.copyOf(scenarios);
    }

    boolean allMatch()
    {
        return summaries.stream().allMatch(summary -> summary.mismatches() == 0);
    }

    PhaseSummary summary(Scenario scenario, String catalog, PhaseResult.Phase phase)
    {
        return PhaseSummary.find(summaries, scenario, catalog, phase);
    }

    private Optional<PhaseSummary> optional(Scenario scenario, String catalog, PhaseResult.Phase phase)
    {
        return summaries.stream().filter(summary -> summary.scenario() == scenario && summary.catalog().equals(catalog) && summary.phase() == phase).findFirst();
    }

    /** Overdrive's P95 over {@code anchor}'s in {@code scenario}'s {@code phase} (below 1: Overdrive faster). */
    double p95Ratio(Scenario scenario, PhaseResult.Phase phase, String anchor)
    {
        return (double) summary(scenario, overdrive, phase).p95() / summary(scenario, anchor, phase).p95();
    }

    double p50Ratio(Scenario scenario, PhaseResult.Phase phase, String anchor)
    {
        return (double) summary(scenario, overdrive, phase).p50() / summary(scenario, anchor, phase).p50();
    }

    /** Overdrive's storage bytes over {@code anchor}'s (NaN where the anchor read nothing and Overdrive did; 1 where both read nothing). */
    double bytesRatio(Scenario scenario, PhaseResult.Phase phase, String anchor)
    {
        long anchorBytes = summary(scenario, anchor, phase).counters().remoteBytes();
        long overdriveBytes = summary(scenario, overdrive, phase).counters().remoteBytes();
        if (anchorBytes == 0) {
            return overdriveBytes == 0 ? 1 : Double.NaN;
        }
        return (double) overdriveBytes / anchorBytes;
    }

    /**
     * Overdrive's {@code metric} over {@code anchor}'s in {@code scenario}'s {@code phase}: the ratio over every round
     * pooled, its 95% interval and verdict.
     */
    synchronized RatioInterval.Estimate estimate(Scenario scenario, PhaseResult.Phase phase, String anchor, Metric metric)
    {
        return estimates.computeIfAbsent("%s/%s/%s/%s".formatted(scenario, phase, anchor, metric),
                _ -> RatioInterval.estimate(rounds(scenario, overdrive, phase, metric), rounds(scenario, anchor, phase, metric), metric.statistic));
    }

    private List<RatioInterval.Round> rounds(Scenario scenario, String catalog, PhaseResult.Phase phase, Metric metric)
    {
        // a phase's passes within a round are one round
        Map<Integer, PhaseResult> byRound = new TreeMap<>();
        results.stream()
                .filter(result -> result.scenario() == scenario && result.catalog().equals(catalog) && result.phase() == phase)
                .forEach(result -> byRound.merge(result.round(), result, PhaseResult::plus));
        return byRound.values().stream().map(metric::round).toList();
    }

    /** The most rounds any phase ran. */
    int rounds()
    {
        return summaries.stream().mapToInt(PhaseSummary::rounds).max().orElse(0);
    }

    /** Every catalog's phases, in Markdown (it reads as a table on a terminal too). */
    String table()
    {
        StringBuilder out = new StringBuilder();
        out.append(("| scenario | catalog | phase | rounds | queries | P50 ms | P95 ms | total s | CPU s | CPU ms per query (median) | storage bytes | per query "
                + "| storage requests | per query | cache hit ratio | hedges / wins | placement preferred / alternative / fallback | host CPU | same rows as %s |\n").formatted(stock));
        out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (PhaseSummary summary : summaries) {
            ClusterCounters counters = summary.counters();
            boolean features = summary.catalog().equals(overdrive);
            int queries = summary.millis().size();
            out.append("| %s | `%s` | %s | %d | %d | %,d | %,d | %.1f | %s | %s | %s | %s | %,d | %s | %s | %s | %s | %s | %s |\n".formatted(
                    summary.scenario().id(), summary.catalog(), summary.phase().label(), summary.rounds(), queries, summary.p50(), summary.p95(), summary.wallMillis() / 1000.0,
                    summary.cpuMillis().isEmpty() ? "-" : "%.1f".formatted(summary.cpuTotal() / 1000.0),
                    summary.cpuMillis().isEmpty() ? "-" : "%,d".formatted(summary.cpuMedian()),
                    bytes(counters.remoteBytes()), queries == 0 ? "-" : bytes(counters.remoteBytes() / queries),
                    counters.remoteRequests(), queries == 0 ? "-" : "%.1f".formatted((double) counters.remoteRequests() / queries),
                    counters.cacheHitRatio() < 0 ? "-" : "%.1f%%".formatted(100 * counters.cacheHitRatio()),
                    features ? "%,d / %,d".formatted(counters.hedges(), counters.hedgeWins()) : "-",
                    features ? "%,d / %,d / %,d".formatted(counters.preferred(), counters.alternative(), counters.fallback()) : "-",
                    utilisation(summary.host()) + (summary.host().cpuBound() ? " (CPU-bound)" : ""),
                    summary.mismatches() == 0 ? "yes" : "NO (%d)".formatted(summary.mismatches())));
        }
        return out.toString();
    }

    /**
     * The scoreboard: per scenario, measured phase and figure, Overdrive against Trino's own cache first, then against
     * stock Trino, each ratio with its 95% interval and verdict, and whether the goal of the scenario is met (P95 against
     * Trino's cache, storage bytes no more than its; on the point estimates).
     */
    String scoreboard()
    {
        StringBuilder out = new StringBuilder();
        out.append("Ratios: %s's figure over the other catalog's; lower is better. %s%n%n".formatted(overdrive, intervalNote()));
        out.append("| scenario | phase | figure | %1$s / %2$s: ratio | 95%% interval | verdict | %1$s / %3$s: ratio | 95%% interval | verdict | goal (against %2$s) | met? |\n"
                .formatted(overdrive, trinoCache, stock));
        out.append("|---|---|---|---:|---|---|---:|---|---|---|---|\n");
        for (Scenario scenario : scenarios()) {
            for (PhaseResult.Phase phase : PhaseResult.Phase.values()) {
                if (optional(scenario, overdrive, phase).isEmpty() || optional(scenario, trinoCache, phase).isEmpty() || optional(scenario, stock, phase).isEmpty()) {
                    continue;
                }
                for (Metric metric : Metric.values()) {
                    String goal = "-";
                    String met = "-";
                    if (phase == scenario.goalPhase() && metric == Metric.P95) {
                        double limit = scenario.strictGoal() ? STRICT_GOAL : GOAL;
                        double p95 = p95Ratio(scenario, phase, trinoCache);
                        double bytes = bytesRatio(scenario, phase, trinoCache);
                        goal = "P95 <= %.1fx, bytes <= 1.0x".formatted(limit);
                        met = (p95 <= limit && bytes <= 1.0) ? "yes" : "**no**";
                    }
                    RatioInterval.Estimate cache = estimate(scenario, phase, trinoCache, metric);
                    RatioInterval.Estimate plain = estimate(scenario, phase, stock, metric);
                    out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n".formatted(scenario.id(), phase.label(), metric.label(),
                            cache.ratioText(), cache.intervalText(), verdict(cache), plain.ratioText(), plain.intervalText(), verdict(plain), goal, met));
                }
            }
        }
        out.append("| all | - | - | | | | | | | results identical to stock %s | %s |\n".formatted(stock, allMatch() ? "yes" : "**no**"));
        return out.toString();
    }

    private static String verdict(RatioInterval.Estimate estimate)
    {
        return switch (estimate.verdict()) {
            case WIN -> "**win**";
            case LOSS -> "**loss**";
            case TIE, NONE -> estimate.verdict().label();
        };
    }

    /** How the intervals were drawn, and with one round, that it gives no interval over rounds and how to get one. */
    String intervalNote()
    {
        int rounds = rounds();
        String verdicts = "Verdict: win where the whole interval is below 1, loss where it is above 1, tie where it contains 1.";
        if (rounds > 1) {
            return ("95%% interval: bootstrap over the %d rounds (rounds resampled with replacement, the pooled ratio recomputed, %,d resamples, "
                    + "fixed seed, percentile interval). %s%s").formatted(rounds, RatioInterval.RESAMPLES, verdicts, rounds < FEW_ROUNDS
                    ? " With fewer than %d rounds the rounds can be drawn in only a few ways, so the interval is narrower than it should be: read it as an indication, and use --rounds %d or more for a claim."
                            .formatted(FEW_ROUNDS, FEW_ROUNDS)
                    : "");
        }
        return ("One round gives no interval over rounds: these intervals resample each catalog's runs within each query of the one round "
                + "(%,d resamples, fixed seed), which leaves out what changes from round to round, and storage bytes have none. "
                + "For intervals over rounds run every measured phase several times: --rounds 5. %s").formatted(RatioInterval.RESAMPLES, verdicts);
    }

    /** The phases (catalog and round) during which the machine's CPUs were at least 90% busy, one line. */
    String cpuBound()
    {
        List<String> bound = results.stream()
                .filter(result -> result.host().cpuBound())
                .map(result -> "%s %s %s%s (%s)".formatted(result.scenario().id(), result.catalog(), result.phase().label(),
                        rounds() > 1 ? " round %d".formatted(result.round() + 1) : "", utilisation(result.host())))
                .toList();
        if (results.stream().allMatch(result -> Double.isNaN(result.host().utilisation()))) {
            return "Host CPU: unknown (no /proc/stat here).";
        }
        if (bound.isEmpty()) {
            return "CPU-bound phases (host CPU at least %.0f%%): none.".formatted(100 * HostLoad.CPU_BOUND);
        }
        if (bound.size() == results.size() && bound.size() > 1) {
            return "CPU-bound phases (host CPU at least %.0f%%): every one of the %d, so the times say as much about this machine's cores as about the catalogs."
                    .formatted(100 * HostLoad.CPU_BOUND, bound.size());
        }
        return "CPU-bound phases (host CPU at least %.0f%%; their times say as much about this machine's cores as about the catalogs): %s."
                .formatted(100 * HostLoad.CPU_BOUND, String.join(", ", bound));
    }

    /** Every phase's round: the load average at its start and end, the host CPU, in Markdown. */
    String load()
    {
        StringBuilder out = new StringBuilder("| scenario | catalog | phase | round | load average at start | at end | host CPU | CPU-bound |\n|---|---|---|---:|---:|---:|---:|---|\n");
        for (PhaseResult result : ordered()) {
            out.append("| %s | `%s` | %s | %d | %s | %s | %s | %s |\n".formatted(result.scenario().id(), result.catalog(), result.phase().label(), result.round() + 1,
                    loadAverage(result.host().loadStart()), loadAverage(result.host().loadEnd()), utilisation(result.host()), result.host().cpuBound() ? "**yes**" : "no"));
        }
        return out.toString();
    }

    /** Each round's own ratio against {@code trinoCache} and {@code stock}, per scenario, phase and figure, in Markdown. */
    String perRound()
    {
        int rounds = rounds();
        StringBuilder out = new StringBuilder("| scenario | phase | figure | against |");
        StringBuilder rule = new StringBuilder("|---|---|---|---|");
        for (int round = 1; round <= rounds; round++) {
            out.append(" round %d |".formatted(round));
            rule.append("---:|");
        }
        out.append('\n').append(rule).append('\n');
        for (Scenario scenario : scenarios()) {
            for (PhaseResult.Phase phase : PhaseResult.Phase.values()) {
                if (optional(scenario, overdrive, phase).isEmpty()) {
                    continue;
                }
                for (Metric metric : Metric.values()) {
                    for (String anchor : List.of(trinoCache, stock)) {
                        if (optional(scenario, anchor, phase).isEmpty()) {
                            continue;
                        }
                        out.append("| %s | %s | %s | `%s` |".formatted(scenario.id(), phase.label(), metric.label(), anchor));
                        for (double ratio : estimate(scenario, phase, anchor, metric).roundRatios()) {
                            out.append(" %s |".formatted(ratio(ratio)));
                        }
                        out.append('\n');
                    }
                }
            }
        }
        return out.toString();
    }

    /** summary.csv: every ratio of the scoreboard with its interval, one a line. */
    String summaryCsv()
    {
        StringBuilder csv = new StringBuilder("scenario,phase,metric,catalog,anchor,ratio,low,high,verdict,rounds,method\n");
        for (Scenario scenario : scenarios()) {
            for (PhaseResult.Phase phase : PhaseResult.Phase.values()) {
                if (optional(scenario, overdrive, phase).isEmpty()) {
                    continue;
                }
                for (Metric metric : Metric.values()) {
                    for (String anchor : List.of(trinoCache, stock)) {
                        if (optional(scenario, anchor, phase).isEmpty()) {
                            continue;
                        }
                        RatioInterval.Estimate estimate = estimate(scenario, phase, anchor, metric);
                        csv.append("%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s\n".formatted(scenario.id(), phase.label(), metric.id(), overdrive, anchor,
                                number(estimate.ratio()), number(estimate.low()), number(estimate.high()), estimate.verdict().label().replace("-", ""), estimate.rounds(),
                                estimate.method().name().toLowerCase(Locale.ROOT)));
                    }
                }
            }
        }
        return csv.toString();
    }

    private static String number(double value)
    {
        if (Double.isNaN(value)) {
            return "";
        }
        return Double.isInfinite(value) ? "inf" : String.format(Locale.ROOT, "%.4f", value);
    }

    // the results in the summaries' order (scenario, phase, catalog), then by round
    private List<PhaseResult> ordered()
    {
        List<PhaseResult> ordered = new ArrayList<>();
        for (PhaseSummary summary : summaries) {
            results.stream()
                    .filter(result -> result.scenario() == summary.scenario() && result.catalog().equals(summary.catalog()) && result.phase() == summary.phase())
                    .sorted(Comparator.comparingInt(PhaseResult::round))
                    .forEach(ordered::add);
        }
        return ordered;
    }

    /** "93%", or "-" where unknown. */
    static String utilisation(HostLoad.Window host)
    {
        double utilisation = host.utilisation();
        return Double.isNaN(utilisation) ? "-" : "%.0f%%".formatted(100 * utilisation);
    }

    /** "1.52 -> 2.10", or "-" where unknown. */
    static String load(HostLoad.Window host)
    {
        return "%s -> %s".formatted(loadAverage(host.loadStart()), loadAverage(host.loadEnd()));
    }

    private static String ratio(double ratio)
    {
        if (Double.isNaN(ratio)) {
            return "-";
        }
        return Double.isInfinite(ratio) ? "inf" : "%.2fx".formatted(ratio);
    }

    private static String csvLoad(double load)
    {
        return Double.isNaN(load) ? "" : String.format(Locale.ROOT, "%.2f", load);
    }

    private static String loadAverage(double load)
    {
        return Double.isNaN(load) ? "-" : String.format(Locale.ROOT, "%.2f", load);
    }

    /** P50 / P95 of every query, per scenario: one table each, a column per catalog and phase. */
    String perQuery(List<DemoQueries.Query> queries)
    {
        StringBuilder out = new StringBuilder();
        for (Scenario scenario : scenarios()) {
            List<PhaseSummary> columns = summaries.stream().filter(summary -> summary.scenario() == scenario).toList();
            out.append("**%s**\n\n| query |".formatted(scenario.id()));
            StringBuilder rule = new StringBuilder("|---|");
            for (PhaseSummary summary : columns) {
                out.append(" `%s` %s |".formatted(summary.catalog(), summary.phase().label()));
                rule.append("---:|");
            }
            out.append('\n').append(rule).append('\n');
            for (DemoQueries.Query query : queries) {
                List<String> cells = new ArrayList<>();
                for (PhaseSummary summary : columns) {
                    List<Long> millis = results.stream()
                            .filter(result -> result.scenario() == scenario && result.catalog().equals(summary.catalog()) && result.phase() == summary.phase())
                            .flatMap(result -> result.runs().stream())
                            .filter(run -> run.query().equals(query.name()))
                            .map(ConcurrentUsers.QueryRun::millis)
                            .sorted()
                            .toList();
                    cells.add(millis.isEmpty() ? "-" : "%,d / %,d".formatted(PhaseSummary.percentile(millis, 50), PhaseSummary.percentile(millis, 95)));
                }
                if (cells.stream().allMatch("-"::equals)) {
                    continue;
                }
                out.append("| ").append(query.name()).append(" | ").append(String.join(" | ", cells)).append(" |\n");
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** Writes {@code report.md}, the charts (under {@code chartSubtitle}) and {@code runs.csv} into {@code directory}; returns report.md. */
    Path write(Path directory, String header, String chartSubtitle, List<DemoQueries.Query> queries)
    {
        try {
            Files.createDirectories(directory);
            String charts;
            try {
                DemoCharts.write(directory, summaries, catalogs, chartSubtitle);
                charts = """
                        ![P95 query time per scenario](%s)

                        ![query time distribution, first scenario](%s)

                        ![bytes read from storage](%s)
                        """.formatted(DemoCharts.PERCENTILES, DemoCharts.DISTRIBUTION, DemoCharts.REMOTE_BYTES);
            }
            catch (RuntimeException | Error e) {
                // no fonts (fontconfig) on this machine: keep the results, say why there are no charts
                charts = "No charts: the JDK could not draw them here (%s). Install fontconfig and a font (Debian: fontconfig fonts-dejavu-core).\n".formatted(e);
                System.out.println("      " + charts.strip());
            }
            StringBuilder csv = new StringBuilder("scenario,catalog,phase,round,user,query,millis,cpu_millis,same_rows_as_%s\n".formatted(stock));
            for (PhaseResult result : results) {
                for (ConcurrentUsers.QueryRun run : result.runs()) {
                    csv.append("%s,%s,%s,%d,%d,%s,%d,%s,%s\n".formatted(result.scenario().id(), result.catalog(), result.phase().label(), result.round() + 1, run.user() + 1,
                            run.query(), run.millis(), run.cpuMillis() < 0 ? "" : Long.toString(run.cpuMillis()), run.matches()));
                }
            }
            Files.writeString(directory.resolve("runs.csv"), csv);
            StringBuilder phases = new StringBuilder("scenario,catalog,phase,round,queries,wall_millis,cpu_millis,storage_bytes,storage_requests,load_start,load_end,cpu_utilisation,cpu_bound\n");
            for (PhaseResult result : ordered()) {
                HostLoad.Window host = result.host();
                phases.append("%s,%s,%s,%d,%d,%d,%d,%d,%d,%s,%s,%s,%s\n".formatted(result.scenario().id(), result.catalog(), result.phase().label(), result.round() + 1,
                        result.runs().size(), result.wallMillis(), result.runs().stream().mapToLong(ConcurrentUsers.QueryRun::cpuMillis).filter(cpu -> cpu >= 0).sum(),
                        result.counters().remoteBytes(), result.counters().remoteRequests(), csvLoad(host.loadStart()), csvLoad(host.loadEnd()), number(host.utilisation()), host.cpuBound()));
            }
            Files.writeString(directory.resolve("phases.csv"), phases);
            Files.writeString(directory.resolve("summary.csv"), summaryCsv());
            String report = """
                    %s
                    ## Scoreboard: %s against %s (Trino's own cache) and %s (stock)

                    %s
                    P50 and P95: over every round's queries pooled; CPU time: Trino's CPU time of every query added up (the same
                    queries for every catalog); storage bytes: what storage served over the phase. Goals: warm P95 (concurrent-cold: its cold P95)
                    at most %.1fx %s's in every scenario and at most %.1fx where the scenario's fault is what the features are for
                    (slow-node, concurrent-cold, scan-pollution, restart); storage bytes no more than %s's.
                    Every ratio with its interval: `summary.csv`.
                    %s
                    ## Results

                    %s
                    Per query: storage bytes and requests over the phase divided by its queries; CPU: Trino's CPU time of each
                    query, all nodes. Host CPU: this machine's CPUs busy over the phase (`/proc/stat`), all cores; at %.0f%% or
                    more a phase is CPU-bound.

                    %s

                    ## Machine load per phase

                    %s
                    Every phase: `phases.csv`.

                    ## Per query, P50 / P95 (ms)

                    %s
                    ## Charts

                    %s
                    Every query run: `runs.csv`.
                    """.formatted(header, overdrive, trinoCache, stock, scoreboard(), GOAL, trinoCache, STRICT_GOAL, trinoCache,
                    rounds() > 1 ? "\n### Each round's own ratio\n\n" + perRound() : "",
                    table(), 100 * HostLoad.CPU_BOUND, cpuBound(), load(), perQuery(queries), charts);
            Path file = directory.resolve("report.md");
            Files.writeString(file, report);
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + directory, e);
        }
    }

    static String bytes(long bytes)
    {
        if (bytes >= 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
        }
        if (bytes >= 1024L * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
        }
        return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
}
