package io.overdrive.it.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/** One catalog's run of one phase (cold or warm) of one scenario: every user's query runs and the counters' deltas. */
record PhaseResult(Scenario scenario, String catalog, Phase phase, List<ConcurrentUsers.QueryRun> runs, long wallMillis, ClusterCounters counters)
{
    enum Phase
    {
        /** Every cache empty; the first pass of the mix. */
        COLD,
        /** The passes after the caches were filled (or, in some scenarios, after a scan or a restart). */
        WARM;

        String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    PhaseResult
    {
        requireNonNull(scenario, "scenario is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(phase, "phase is null");
        runs = List.copyOf(runs);
        requireNonNull(counters, "counters is null");
    }

    /** This run and {@code other} (the same scenario, catalog and phase) as one: runs, wall time and counters added. */
    PhaseResult plus(PhaseResult other)
    {
        if (other.scenario != scenario || !other.catalog.equals(catalog) || other.phase != phase) {
            throw new IllegalArgumentException("cannot add %s %s %s to %s %s %s".formatted(other.scenario, other.catalog, other.phase, scenario, catalog, phase));
        }
        List<ConcurrentUsers.QueryRun> all = new ArrayList<>(runs);
        all.addAll(other.runs);
        return new PhaseResult(scenario, catalog, phase, all, wallMillis + other.wallMillis, counters.plus(other.counters));
    }
}
