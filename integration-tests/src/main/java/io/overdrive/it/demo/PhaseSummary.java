package io.overdrive.it.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

/**
 * One catalog's phase of one scenario, over every round: query time percentiles (nearest rank), the CPU time Trino
 * counted per query (the queries it reported it for), totals, counters and the machine's load.
 */
record PhaseSummary(
        Scenario scenario,
        String catalog,
        PhaseResult.Phase phase,
        int rounds,
        List<Long> millis,
        List<Long> cpuMillis,
        long wallMillis,
        ClusterCounters counters,
        HostLoad.Window host,
        int mismatches,
        List<String> errors)
{
    PhaseSummary
    {
        requireNonNull(scenario, "scenario is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(phase, "phase is null");
        millis = millis.stream().sorted().toList();
        cpuMillis = cpuMillis.stream().sorted().toList();
        requireNonNull(counters, "counters is null");
        requireNonNull(host, "host is null");
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
                    (int) group.stream().mapToInt(PhaseResult::round).distinct().count(),
                    runs.stream().map(ConcurrentUsers.QueryRun::millis).toList(),
                    runs.stream().map(ConcurrentUsers.QueryRun::cpuMillis).filter(cpu -> cpu >= 0).toList(),
                    group.stream().mapToLong(PhaseResult::wallMillis).sum(),
                    group.stream().map(PhaseResult::counters).reduce(ClusterCounters.ZERO, ClusterCounters::plus),
                    group.stream().map(PhaseResult::host).reduce(HostLoad.Window::plus).orElseThrow(),
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

    /** The CPU time of every query Trino reported it for, added up (0 where none). */
    long cpuTotal()
    {
        return cpuMillis.stream().mapToLong(Long::longValue).sum();
    }

    /** The median CPU time per query, or -1 where Trino reported none. */
    long cpuMedian()
    {
        return cpuMillis.isEmpty() ? -1 : percentile(cpuMillis, 50);
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
