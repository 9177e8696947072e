package io.overdrive.it.demo;

import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/** One catalog's run of one phase (cold or warm) of one repetition: every user's query runs and the counters' deltas. */
record PhaseResult(String catalog, Phase phase, int repetition, List<ConcurrentUsers.QueryRun> runs, long wallMillis, ClusterCounters counters)
{
    enum Phase
    {
        /** Overdrive's cache just flushed on every worker; the first pass of the mix. */
        COLD,
        /** The passes after the cold one, with whatever the cold pass cached. */
        WARM;

        String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    PhaseResult
    {
        requireNonNull(catalog, "catalog is null");
        requireNonNull(phase, "phase is null");
        runs = List.copyOf(runs);
        requireNonNull(counters, "counters is null");
    }
}
