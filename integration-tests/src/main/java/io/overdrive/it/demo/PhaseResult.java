package io.overdrive.it.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * One catalog's run of one phase (cold or warm) of one scenario in one round (from 0): every user's query runs, the
 * counters' deltas and how busy the machine was.
 */
record PhaseResult(Scenario scenario, String catalog, Phase phase, int round, List<ConcurrentUsers.QueryRun> runs, long wallMillis, ClusterCounters counters, HostLoad.Window host)
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
        requireNonNull(host, "host is null");
        if (round < 0) {
            throw new IllegalArgumentException("round must not be negative: " + round);
        }
    }

    /** A phase of the first round, the machine's load unknown. */
    PhaseResult(Scenario scenario, String catalog, Phase phase, List<ConcurrentUsers.QueryRun> runs, long wallMillis, ClusterCounters counters)
    {
        this(scenario, catalog, phase, 0, runs, wallMillis, counters, HostLoad.Window.UNKNOWN);
    }

    /**
     * This run and {@code other}, a later pass of the same scenario, catalog, phase and round, as one: runs, wall time,
     * counters and CPU jiffies added.
     */
    PhaseResult plus(PhaseResult other)
    {
        if (other.scenario != scenario || !other.catalog.equals(catalog) || other.phase != phase || other.round != round) {
            throw new IllegalArgumentException("cannot add %s %s %s round %d to %s %s %s round %d".formatted(other.scenario, other.catalog, other.phase, other.round,
                    scenario, catalog, phase, round));
        }
        List<ConcurrentUsers.QueryRun> all = new ArrayList<>(runs);
        all.addAll(other.runs);
        return new PhaseResult(scenario, catalog, phase, round, all, wallMillis + other.wallMillis, counters.plus(other.counters), host.plus(other.host));
    }
}
