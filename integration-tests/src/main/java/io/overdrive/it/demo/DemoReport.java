package io.overdrive.it.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The demo's results: a table per scenario, catalog and phase; the scoreboard (Overdrive against Trino's own cache and
 * against stock Trino, per scenario, with the goals); and a report directory ({@code report.md}, the PNG charts, every
 * query run as CSV). The catalogs are, in order: stock, Trino's cache, Overdrive.
 */
final class DemoReport
{
    // warm (or concurrent cold) P95 against Trino's cache: at most this in every scenario, and the stricter one where a
    // scenario's fault is what Overdrive's features are for
    static final double GOAL = 1.0;
    static final double STRICT_GOAL = 0.7;

    private final List<PhaseResult> results;
    private final List<PhaseSummary> summaries;
    private final List<String> catalogs;
    private final String stock;
    private final String trinoCache;
    private final String overdrive;

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

    /** Every catalog's phases, in Markdown (it reads as a table on a terminal too). */
    String table()
    {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | catalog | phase | queries | P50 ms | P95 ms | total s | storage bytes | storage requests | cache hit ratio | hedges / wins | placement preferred / alternative / fallback | same rows as %s |\n".formatted(stock));
        out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (PhaseSummary summary : summaries) {
            ClusterCounters counters = summary.counters();
            boolean features = summary.catalog().equals(overdrive);
            out.append("| %s | `%s` | %s | %d | %,d | %,d | %.1f | %s | %,d | %s | %s | %s | %s |\n".formatted(
                    summary.scenario().id(), summary.catalog(), summary.phase().label(), summary.millis().size(), summary.p50(), summary.p95(), summary.wallMillis() / 1000.0,
                    bytes(counters.remoteBytes()), counters.remoteRequests(),
                    counters.cacheHitRatio() < 0 ? "-" : "%.1f%%".formatted(100 * counters.cacheHitRatio()),
                    features ? "%,d / %,d".formatted(counters.hedges(), counters.hedgeWins()) : "-",
                    features ? "%,d / %,d / %,d".formatted(counters.preferred(), counters.alternative(), counters.fallback()) : "-",
                    summary.mismatches() == 0 ? "yes" : "NO (%d)".formatted(summary.mismatches())));
        }
        return out.toString();
    }

    /**
     * The scoreboard: per scenario and measured phase, Overdrive against Trino's own cache first, then against stock
     * Trino, and whether the goal of the scenario is met (P95 against Trino's cache, storage bytes no more than its).
     */
    String scoreboard()
    {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | phase | %1$s / %2$s P50 | P95 | storage bytes | %1$s / %3$s P50 | P95 | storage bytes | goal (against %2$s) | met? |\n".formatted(overdrive, trinoCache, stock));
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (Scenario scenario : scenarios()) {
            for (PhaseResult.Phase phase : PhaseResult.Phase.values()) {
                if (optional(scenario, overdrive, phase).isEmpty() || optional(scenario, trinoCache, phase).isEmpty() || optional(scenario, stock, phase).isEmpty()) {
                    continue;
                }
                String goal = "-";
                String met = "-";
                if (phase == scenario.goalPhase()) {
                    double limit = scenario.strictGoal() ? STRICT_GOAL : GOAL;
                    double p95 = p95Ratio(scenario, phase, trinoCache);
                    double bytes = bytesRatio(scenario, phase, trinoCache);
                    goal = "P95 <= %.1fx, bytes <= 1.0x".formatted(limit);
                    met = (p95 <= limit && bytes <= 1.0) ? "yes" : "**no**";
                }
                out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n".formatted(scenario.id(), phase.label(),
                        ratio(p50Ratio(scenario, phase, trinoCache)), ratio(p95Ratio(scenario, phase, trinoCache)), ratio(bytesRatio(scenario, phase, trinoCache)),
                        ratio(p50Ratio(scenario, phase, stock)), ratio(p95Ratio(scenario, phase, stock)), ratio(bytesRatio(scenario, phase, stock)), goal, met));
            }
        }
        out.append("| all | - | | | | | | | results identical to stock %s | %s |\n".formatted(stock, allMatch() ? "yes" : "**no**"));
        return out.toString();
    }

    private static String ratio(double ratio)
    {
        return Double.isNaN(ratio) ? "-" : "%.2fx".formatted(ratio);
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
            StringBuilder csv = new StringBuilder("scenario,catalog,phase,user,query,millis,same_rows_as_%s\n".formatted(stock));
            for (PhaseResult result : results) {
                for (ConcurrentUsers.QueryRun run : result.runs()) {
                    csv.append("%s,%s,%s,%d,%s,%d,%s\n".formatted(result.scenario().id(), result.catalog(), result.phase().label(), run.user() + 1, run.query(), run.millis(), run.matches()));
                }
            }
            Files.writeString(directory.resolve("runs.csv"), csv);
            String report = """
                    %s
                    ## Scoreboard: %s against %s (Trino's own cache) and %s (stock)

                    %s
                    Ratios: %s's figure over the other catalog's, below 1 better for %s. Goals: warm P95 (concurrent-cold: its cold P95)
                    at most %.1fx %s's in every scenario and at most %.1fx where the scenario's fault is what the features are for
                    (slow-node, concurrent-cold, scan-pollution, restart); storage bytes no more than %s's.

                    ## Results

                    %s
                    ## Per query, P50 / P95 (ms)

                    %s
                    ## Charts

                    %s
                    Every query run: `runs.csv`.
                    """.formatted(header, overdrive, trinoCache, stock, scoreboard(), overdrive, overdrive, GOAL, trinoCache, STRICT_GOAL, trinoCache,
                    table(), perQuery(queries), charts);
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
