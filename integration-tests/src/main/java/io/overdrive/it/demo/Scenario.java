package io.overdrive.it.demo;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static io.overdrive.it.demo.PhaseResult.Phase.WARM;
import static java.util.Objects.requireNonNull;

/**
 * The scoreboard's scenarios, in the order {@code ./overdrive bench all} runs them. Each names the phases it measures;
 * the others it runs (filling a cache, a one-off scan, a restart) are not timed.
 */
enum Scenario
{
    HEALTHY("healthy", "healthy lake: latency per request and a finite bandwidth; cold, then warm", Set.of(COLD, WARM), false),
    SLOW_NODE("slow-node", "one slow DataNode (a replica of every block) on top of the healthy lake; cold, then warm", Set.of(COLD, WARM), true),
    CONCURRENT_COLD("concurrent-cold", "every user starts the same query at the same moment, on empty caches", Set.of(COLD), true),
    SCAN_POLLUTION("scan-pollution", "a one-off full scan of a table larger than the cache runs through each catalog between warm passes; the warm pass after it", Set.of(WARM), true),
    RESTART("restart", "every worker restarted (caches kept on disk); the warm pass after the restart", Set.of(WARM), true),
    SCALE_OUT("scale-out", "cold on two workers, then a third worker with an empty cache joins; the passes after the join", Set.of(COLD, WARM), false),
    OVERFLOW("overflow", "three workers and a skewed query mix (Zipf over the queries), so that splits overflow their file's worker; cold, then warm", Set.of(COLD, WARM), false),
    BIG_WORKING_SET("big-working-set", "caches of about half the data and a skewed query mix (Zipf over the queries); cold, then warm", Set.of(COLD, WARM), false);

    private final String id;
    private final String description;
    private final Set<PhaseResult.Phase> measured;
    private final boolean strictGoal;

    Scenario(String id, String description, Set<PhaseResult.Phase> measured, boolean strictGoal)
    {
        this.id = requireNonNull(id, "id is null");
        this.description = requireNonNull(description, "description is null");
        this.measured = Set.copyOf(measured);
        this.strictGoal = strictGoal;
    }

    /** The name {@code --scenario} takes and the report prints. */
    String id()
    {
        return id;
    }

    String description()
    {
        return description;
    }

    /** The description for a lake on {@code storage}: on S3 the slow node is a slow endpoint. */
    String description(DemoStorage.Kind storage)
    {
        if (this == SLOW_NODE && storage == DemoStorage.Kind.S3) {
            return "a slow endpoint (a third of the GETs reach it) on top of the healthy lake; cold, then warm";
        }
        return description;
    }

    boolean measures(PhaseResult.Phase phase)
    {
        return measured.contains(phase);
    }

    /**
     * The phase whose P95 the goal for this scenario is about: the warm pass, or the cold pass where nothing warm is
     * measured (concurrent cold).
     */
    PhaseResult.Phase goalPhase()
    {
        return measures(WARM) ? WARM : COLD;
    }

    /** Whether the scoreboard's goal is the stricter one here (P95 at most 0.7x Trino's cache, not 1.0x). */
    boolean strictGoal()
    {
        return strictGoal;
    }

    /** Whether the scenario runs on a third worker that joins the cluster (a standby worker). */
    boolean joinsAWorker()
    {
        return this == SCALE_OUT || this == OVERFLOW;
    }

    /** {@code all} or a comma-separated list of ids, returned in the canonical order. */
    static List<Scenario> parse(String value)
    {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("all")) {
            return List.of(values());
        }
        Set<Scenario> chosen = Arrays.stream(text.split(","))
                .map(String::strip)
                .map(Scenario::byId)
                .collect(Collectors.toSet());
        return Arrays.stream(values()).filter(chosen::contains).toList();
    }

    private static Scenario byId(String id)
    {
        return Arrays.stream(values())
                .filter(scenario -> scenario.id.equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--scenario must be all or a comma-separated list of %s, not '%s'".formatted(
                        String.join(", ", Arrays.stream(values()).map(Scenario::id).toList()), id)));
    }
}
