package io.overdrive.it.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

/** One catalog's phase of one scenario: query time percentiles (nearest rank), totals and counters. */
record PhaseSummary(Scenario scenario, String catalog, PhaseResult.Phase phase, List<Long> millis, long wallMillis, ClusterCounters counters, int mismatches, List<String> errors)
{
    PhaseSummary
    {
        requireNonNull(scenario, "scenario is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(phase, "phase is null");
        millis = millis.stream().sorted().toList();
        requireNonNull(counters, "counters is null");
        errors = List.copyOf(errors);
    }

    /** The summaries of {@code results} in scenario order, then cold before warm, then catalog order. */
    static List<PhaseSummary> of(List<PhaseResult> results, List<String> catalogs)
    {
        Map<String, List<PhaseResult>> groups = new LinkedHashMap<>();
        for (Scenario scenario : Scenario.values()) {
            for (PhaseResult.Phase phase : PhaseResult.Phase.values()) {
                for (String catalog : catalogs) {
                    groups.put(key(scenario, catalog, phase), new ArrayList<>());
                }
            }
        }
        for (PhaseResult result : results) {
            requireNonNull(groups.get(key(result.scenario(), result.catalog(), result.phase())), () -> "unknown catalog " + result.catalog()).add(result);
        }
        List<PhaseSummary> summaries = new ArrayList<>();
        for (List<PhaseResult> group : groups.values()) {
            if (group.isEmpty()) {
                continue;
            }
            List<ConcurrentUsers.QueryRun> runs = group.stream().flatMap(result -> result.runs().stream()).toList();
            summaries.add(new PhaseSummary(
                    group.getFirst().scenario(),
                    group.getFirst().catalog(),
                    group.getFirst().phase(),
                    runs.stream().map(ConcurrentUsers.QueryRun::millis).toList(),
                    group.stream().mapToLong(PhaseResult::wallMillis).sum(),
                    group.stream().map(PhaseResult::counters).reduce(ClusterCounters.ZERO, ClusterCounters::plus),
                    (int) runs.stream().filter(run -> !run.matches()).count(),
                    runs.stream().map(ConcurrentUsers.QueryRun::error).filter(Objects::nonNull).distinct().toList()));
        }
        return summaries;
    }

    private static String key(Scenario scenario, String catalog, PhaseResult.Phase phase)
    {
        return scenario + "/" + catalog + "/" + phase;
    }

    /** The summary of {@code catalog}'s {@code phase} in {@code scenario}, which must exist. */
    static PhaseSummary find(List<PhaseSummary> summaries, Scenario scenario, String catalog, PhaseResult.Phase phase)
    {
        return summaries.stream()
                .filter(summary -> summary.scenario() == scenario && summary.catalog().equals(catalog) && summary.phase() == phase)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no %s %s phase in %s".formatted(catalog, phase, scenario.id())));
    }

    long p50()
    {
        return percentile(millis, 50);
    }

    long p95()
    {
        return percentile(millis, 95);
    }

    /** Nearest-rank percentile of sorted values: the smallest value with at least {@code percent}% of the values at or below it. */
    static long percentile(List<Long> sorted, double percent)
    {
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        if (!isSorted(sorted)) {
            throw new IllegalArgumentException("values are not sorted");
        }
        int rank = (int) Math.ceil(percent / 100 * sorted.size());
        return sorted.get(Math.max(rank, 1) - 1);
    }

    private static boolean isSorted(List<Long> values)
    {
        for (int i = 1; i < values.size(); i++) {
            if (values.get(i - 1) > values.get(i)) {
                return false;
            }
        }
        return true;
    }
}
