package io.overdrive.it.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static io.overdrive.it.demo.PhaseResult.Phase.WARM;
import static java.util.Objects.requireNonNull;

/**
 * The demo's results: a table per catalog and phase, Overdrive against stock {@code hive} with the goals, and
 * a report directory ({@code report.md}, the PNG charts, every query run as CSV).
 */
final class DemoReport
{
    private final List<PhaseResult> results;
    private final List<PhaseSummary> summaries;
    private final String stock;
    private final String overdrive;

    DemoReport(List<PhaseResult> results, String stock, String overdrive)
    {
        this.results = List.copyOf(results);
        this.stock = requireNonNull(stock, "stock is null");
        this.overdrive = requireNonNull(overdrive, "overdrive is null");
        this.summaries = PhaseSummary.of(results, List.of(stock, overdrive));
    }

    List<PhaseSummary> summaries()
    {
        return summaries;
    }

    boolean allMatch()
    {
        return summaries.stream().allMatch(summary -> summary.mismatches() == 0);
    }

    /** Overdrive's P95 over stock hive's in {@code phase} (below 1: Overdrive faster). */
    double p95Ratio(PhaseResult.Phase phase)
    {
        return (double) PhaseSummary.find(summaries, overdrive, phase).p95() / PhaseSummary.find(summaries, stock, phase).p95();
    }

    double p50Ratio(PhaseResult.Phase phase)
    {
        return (double) PhaseSummary.find(summaries, overdrive, phase).p50() / PhaseSummary.find(summaries, stock, phase).p50();
    }

    /** How much less Overdrive read from storage than stock hive in {@code phase}, as a fraction (0.9 = 90% less). */
    double remoteBytesSaved(PhaseResult.Phase phase)
    {
        long stockBytes = PhaseSummary.find(summaries, stock, phase).counters().remoteBytes();
        long overdriveBytes = PhaseSummary.find(summaries, overdrive, phase).counters().remoteBytes();
        return stockBytes == 0 ? 0 : 1 - (double) overdriveBytes / stockBytes;
    }

    /** The results table, in Markdown (it reads as a table on a terminal too). */
    String table()
    {
        StringBuilder out = new StringBuilder();
        out.append("| catalog | phase | queries | P50 ms | P95 ms | total s | storage bytes | storage requests | cache hit ratio | hedges / wins | coalesced reads | placement preferred / alternative / fallback | same rows as hive |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (PhaseSummary summary : summaries) {
            ClusterCounters counters = summary.counters();
            boolean features = summary.catalog().equals(overdrive);
            out.append("| `%s` | %s | %d | %,d | %,d | %.1f | %s | %,d | %s | %s | %s | %s | %s |\n".formatted(
                    summary.catalog(), summary.phase().label(), summary.millis().size(), summary.p50(), summary.p95(), summary.wallMillis() / 1000.0,
                    bytes(counters.remoteBytes()), counters.remoteRequests(),
                    counters.cacheHitRatio() < 0 ? "-" : "%.1f%%".formatted(100 * counters.cacheHitRatio()),
                    features ? "%,d / %,d".formatted(counters.hedges(), counters.hedgeWins()) : "-",
                    features ? "%,d".formatted(counters.coalescedReads()) : "-",
                    features ? "%,d / %,d / %,d".formatted(counters.preferred(), counters.alternative(), counters.fallback()) : "-",
                    summary.mismatches() == 0 ? "yes" : "NO (%d)".formatted(summary.mismatches())));
        }
        return out.toString();
    }

    /** Overdrive against stock hive, with the demo's goals. */
    String verdict()
    {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"warm P95 <= 0.5x stock hive", "%.2fx (P50 %.2fx)".formatted(p95Ratio(WARM), p50Ratio(WARM)), met(p95Ratio(WARM) <= 0.5)});
        rows.add(new String[] {"cold P95 <= 0.5x stock hive", "%.2fx (P50 %.2fx)".formatted(p95Ratio(COLD), p50Ratio(COLD)), met(p95Ratio(COLD) <= 0.5)});
        rows.add(new String[] {"storage bytes -90% on the repeated (warm) workload", "%.1f%% less (cold: %.1f%% less)".formatted(100 * remoteBytesSaved(WARM), 100 * remoteBytesSaved(COLD)), met(remoteBytesSaved(WARM) >= 0.9)});
        rows.add(new String[] {"results identical to stock hive", allMatch() ? "every query run" : "NOT ALL (see the table)", met(allMatch())});
        StringBuilder out = new StringBuilder("| goal | measured | met? |\n|---|---|---|\n");
        for (String[] row : rows) {
            out.append("| %s | %s | %s |\n".formatted(row[0], row[1], row[2]));
        }
        return out.toString();
    }

    /** P50 / P95 of every query, per catalog and phase. */
    String perQuery(List<DemoQueries.Query> queries)
    {
        StringBuilder out = new StringBuilder("| query |");
        StringBuilder rule = new StringBuilder("|---|");
        for (PhaseSummary summary : summaries) {
            out.append(" `%s` %s P50 / P95 |".formatted(summary.catalog(), summary.phase().label()));
            rule.append("---:|");
        }
        out.append('\n').append(rule).append('\n');
        for (DemoQueries.Query query : queries) {
            out.append("| ").append(query.name()).append(" |");
            for (PhaseSummary summary : summaries) {
                List<Long> millis = results.stream()
                        .filter(result -> result.catalog().equals(summary.catalog()) && result.phase() == summary.phase())
                        .flatMap(result -> result.runs().stream())
                        .filter(run -> run.query().equals(query.name()))
                        .map(ConcurrentUsers.QueryRun::millis)
                        .sorted()
                        .toList();
                out.append(millis.isEmpty() ? " - |" : " %,d / %,d |".formatted(PhaseSummary.percentile(millis, 50), PhaseSummary.percentile(millis, 95)));
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
                DemoCharts.write(directory, summaries, chartSubtitle);
                charts = """
                        ![query time percentiles](%s)

                        ![query time distribution](%s)

                        ![bytes read from storage](%s)
                        """.formatted(DemoCharts.PERCENTILES, DemoCharts.DISTRIBUTION, DemoCharts.REMOTE_BYTES);
            }
            catch (RuntimeException | Error e) {
                // no fonts (fontconfig) on this machine: keep the results, say why there are no charts
                charts = "No charts: the JDK could not draw them here (%s). Install fontconfig and a font (Debian: fontconfig fonts-dejavu-core).\n".formatted(e);
                System.out.println("      " + charts.strip());
            }
            StringBuilder csv = new StringBuilder("catalog,phase,repetition,user,query,millis,same_rows_as_hive\n");
            for (PhaseResult result : results) {
                for (ConcurrentUsers.QueryRun run : result.runs()) {
                    csv.append("%s,%s,%d,%d,%s,%d,%s\n".formatted(result.catalog(), result.phase().label(), result.repetition(), run.user() + 1, run.query(), run.millis(), run.matches()));
                }
            }
            Files.writeString(directory.resolve("runs.csv"), csv);
            String report = """
                    %s
                    ## Results

                    %s
                    ## Overdrive against stock hive

                    %s
                    ## Per query (ms)

                    %s
                    ## Charts

                    %s
                    Every query run: `runs.csv`.
                    """.formatted(header, table(), verdict(), perQuery(queries), charts);
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

    private static String met(boolean met)
    {
        return met ? "yes" : "**no**";
    }
}
