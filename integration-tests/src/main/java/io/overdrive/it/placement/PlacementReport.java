package io.overdrive.it.placement;

import io.overdrive.it.placement.PlacementSimulation.Run;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static java.util.stream.Collectors.joining;

/**
 * The simulation's Markdown report: the model, a table per scale, the goals, the sensitivity runs and
 * Overdrive's settings. Every figure comes from the runs passed in.
 */
final class PlacementReport
{
    static final String MAIN = "main";
    static final String SUSTAINABLE = "sustainable";
    static final String SENSITIVITY = "sensitivity";
    static final String SETTINGS_10 = "settings-10";
    static final String SETTINGS_100 = "settings-100";
    static final String SETTINGS_1000 = "settings-1000";

    private static final Map<String, String> SECTION_NAMES = Map.of(
            MAIN, "all policies",
            SUSTAINABLE, "largest sustainable load",
            SENSITIVITY, "sensitivity",
            SETTINGS_10, "Overdrive's settings",
            SETTINGS_100, "Overdrive's settings",
            SETTINGS_1000, "Overdrive's settings");

    private PlacementReport() {}

    static String render(List<Run> runs, Instant started, double wallSeconds, boolean quick, long seed)
    {
        StringBuilder out = new StringBuilder();
        double cpuSeconds = runs.stream().mapToDouble(Run::cpuSeconds).sum();
        double meanLoad = runs.stream().mapToDouble(Run::loadAverage).filter(load -> !Double.isNaN(load)).average().orElse(Double.NaN);
        double maxLoad = runs.stream().mapToDouble(Run::loadAverage).filter(load -> !Double.isNaN(load)).max().orElse(Double.NaN);
        out.append("# Placement at cluster scale (simulation)\n\n");
        if (quick) {
            out.append("**Quick smoke run (`--quick`): a tenth of the simulated time and no 1,000-worker runs; not for the docs.**\n\n");
        }
        out.append(format("Run %s, %,.0f s wall, %,.0f s CPU (one thread), %d runs, seed %d. Machine: %d CPUs, JDK %s (%s), %s %s. "
                        + "Load average (1 min) after each run: mean %.1f, max %.1f.%n%n",
                started, wallSeconds, cpuSeconds, runs.size(), seed, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.runtime.version"), System.getProperty("java.vm.name"), System.getProperty("os.name"), System.getProperty("os.arch"), meanLoad, maxLoad));
        model(out, runs);
        for (int workers : scales(runs)) {
            List<Run> scale = runs.stream().filter(run -> run.section().equals(MAIN) && run.config().workers() == workers).toList();
            if (!scale.isEmpty()) {
                scaleTables(out, scale);
            }
        }
        sustainable(out, runs);
        goals(out, runs);
        sensitivity(out, runs);
        settings(out, runs);
        return out.toString();
    }

    private static void model(StringBuilder out, List<Run> runs)
    {
        SimulationConfig config = runs.getFirst().config();
        out.append("## Model\n\n");
        out.append(format("""
                        | parameter | value |
                        |---|---|
                        | workers | %s at the start; one more joins at %.0f%% of the arrival period, one of the original ones (chosen by the seed) leaves at %.0f%% |
                        | split slots per worker | %d (splits running at once; more wait in the worker's FIFO queue) |
                        | lake | %d files per starting worker in tables of %d files, %d splits per file (one split = one cacheable unit) |
                        | page cache per worker | %d splits' data, LRU (%.0f%% of a worker's share of the lake); Overdrive's also admits as its page cache does by default (`cache.admission`): once full, only data read at least twice recently (the real `AdmissionFilter`, TinyLFU) |
                        | table popularity | Zipf, exponent %.1f: the hottest table gets %.1f%% of the queries at %,d workers, %.1f%% at %,d |
                        | queries | Poisson arrivals; each reads every split of %d to %d consecutive files of one table (a range of partitions; length and start uniform): %d to %d splits, %.0f on average; query time = last split's finish - arrival |
                        | split service time | %.0f ms CPU + %.0f ms reading when the worker has the split cached, %.0f ms reading it remotely (a miss) |
                        | offered load | %.0f%% of the slots at a reference hit ratio of %.0f%% (mean %.1f ms per split): the same arrivals for every policy, each then has its own hit ratio and so its own utilisation |
                        | measured | queries that arrive after the warm-up until arrivals stop; then the run drains |
                        | Overdrive | the real `SplitPlacerFactory`, `SOFT_AFFINITY`, defaults (`preferred-hosts-count` %d, `load-balance-epsilon` %.2f, `load-floor` 16 splits of weight 1, `load-half-life` %.0fs, `%s` granularity; `cache.admission` on), `BusyLimits.TRINO_DEFAULTS`, one `createPlacer(WorkerLoads.UNKNOWN)` per query, `place(path, 1)` per split, on the simulation's clock |
                        | Trino 483 engine | `node-scheduler.max-splits-per-node` 256, `min-pending-splits-per-task` 16, `min-candidates` 10, `splits-balancing-policy` %s |
                        | Presto engine | `max-splits-per-node` 100, `max-pending-splits-per-task` 10, 10 random candidates, consistent hashing with 100 virtual nodes per worker |

                        """,
                scales(runs).stream().map(workers -> format("%,d", workers)).collect(joining(", ")),
                100 * config.joinFraction(), 100 * config.leaveFraction(), config.slotsPerWorker(), config.filesPerWorker(), config.filesPerTable(), config.splitsPerFile(),
                config.cachedSplitsPerWorker(), 100.0 * config.cachedSplitsPerWorker() / (config.filesPerWorker() * config.splitsPerFile()),
                config.zipfExponent(), 100 * Lake.hottestShare(scales(runs).getFirst() * config.filesPerWorker() / config.filesPerTable(), config.zipfExponent()), scales(runs).getFirst(),
                100 * Lake.hottestShare(scales(runs).getLast() * config.filesPerWorker() / config.filesPerTable(), config.zipfExponent()), scales(runs).getLast(),
                config.minFilesPerQuery(), config.maxFilesPerQuery(), config.minFilesPerQuery() * config.splitsPerFile(), config.maxFilesPerQuery() * config.splitsPerFile(),
                config.meanSplitsPerQuery(), config.cpuMillis(), config.localReadMillis(), config.remoteReadMillis(),
                100 * config.utilisation(), 100 * config.referenceHitRatio(), config.referenceServiceMillis(),
                config.preferredHostsCount(), config.loadBalanceEpsilon(), config.loadHalfLifeSeconds(), config.granularity(), config.splitsBalancing()));
        out.append("Per scale:\n\n| workers | files | tables | queries/s | splits/s | arrivals (s) | warm-up (s) | measured queries | hottest table's share |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int workers : scales(runs)) {
            Optional<Run> first = runs.stream().filter(run -> run.section().equals(MAIN) && run.config().workers() == workers).findFirst();
            if (first.isEmpty()) {
                continue;
            }
            SimulationConfig scale = first.get().config();
            out.append(format("| %,d | %,d | %,d | %,.1f | %,.0f | %,.0f | %,.0f | %,d | %.1f%% |%n", workers, scale.files(), scale.tables(), scale.queriesPerSecond(),
                    scale.queriesPerSecond() * scale.meanSplitsPerQuery(), scale.arrivalSeconds(), scale.warmupSeconds(), first.get().result().queries(),
                    100 * Lake.hottestShare(scale.tables(), scale.zipfExponent())));
        }
        out.append("""

                Policies (the same arrivals for each):

                - `overdrive`: the real plugin-scheduler placer as `overdrive_hive` uses it, without the load signal: it \
                balances by its own decayed count of the splits it recently placed on each worker. The split queues on the worker it chose (the engine \
                keeps a split with one address on that worker). Only a placement on one of the file's preferred workers \
                (`isPreferredWorker()`) may cache; a `FALLBACK` reads through. Its workers' caches admit as Overdrive's page cache \
                does by default: once full, data read only once recently is not cached (Trino's and Presto's caches, Alluxio's, \
                cache every read).
                - `overdrive-reported`: `overdrive` with its load signal: the coordinator asks every worker every 500 ms \
                (`cache.peer.load-poll-interval`) how many splits it has queued or running and how many it has completed, \
                and the placer balances by those counts, plus what it placed on each worker since, less what that worker \
                should have finished since at its last rate, instead of by its own decayed count of recent placements. \
                Here the answers arrive at once (no network delay). A worker that has not answered yet (the one that \
                joins, until the next poll) or whose last answer is more than 1.5 s old has no count, and while any \
                worker has none the placer balances by its own count, as `overdrive` does.
                - `overdrive-lru`: `overdrive` with plain LRU caches, as the references have: what placement alone does.
                - `overdrive-earlier`: `overdrive` (with admission) with the earlier `load-half-life`, 10 s.
                - `trino`: Trino 483 with `fs.cache` on stock Hive, as read from its bytecode: the affinity key is per split \
                (`CacheSplitAffinityProvider`: `path:start:length`), hashed to one of 2048 buckets; `StableHostAddressProvider` maps \
                each bucket to `cache-preferred-hosts-count` hosts (default 2) by rendezvous hashing; `UniformNodeSelector` takes only \
                those as candidates (no fallback) and, with the default `STAGE` balancing, picks the one with the fewest splits of \
                this query on it (ties to the last), so it does not see other queries' load. A split waits on the coordinator when \
                every host holds 256 splits and 16 of this query's. Every host caches. `trino-hosts-1`, `-4`, `-8`: the same with \
                `cache-preferred-hosts-count` 1, 4 and 8, the setting a Trino operator would tune.
                - `presto-modular`, `presto-consistent`: Presto's `SOFT_AFFINITY`: preferred = hash(path) mod N (or the owner on a \
                ring with 100 virtual nodes per worker), alternative = the next worker (the next other owner on the ring); the \
                preferred unless it holds 100 splits, else the alternative, else the least busy of 10 random workers. Only preferred \
                and alternative cache.
                - `none`: `NO_PREFERENCE`: the engine picks among 10 random workers as for `trino` (with `STAGE` balancing that is \
                balancing it spreads a query's splits evenly over the candidates); every worker caches what it reads.

                Remap: the fraction of split keys (every split of the lake, or of an evenly spaced sample of 100,000 files where the lake has more) whose first \
                choice changed on the join and on the leave; the ideal of consistent hashing is 1/(N+1) for both. For Overdrive also \
                the placer's own figure (`PlacementStats.getLastRemapFraction`, over its 4,096 most recently placed keys). Loads count \
                the splits that started in the measured window on the workers live through all of it; busy = their service time.

                """);
    }

    private static void scaleTables(StringBuilder out, List<Run> scale)
    {
        Run first = scale.getFirst();
        SimulationConfig config = first.config();
        out.append(format("## %,d workers%n%n", config.workers()));
        out.append(format("%,.0f s of arrivals (%,.0f s warm-up), %,d measured queries; simulated in %,.0f s CPU.%n%n",
                config.arrivalSeconds(), config.warmupSeconds(), first.result().queries(), scale.stream().mapToDouble(Run::cpuSeconds).sum()));
        out.append("| policy | hit ratio | split wait P50 / P95 / P99 (ms) | query P50 / P95 / P99 (ms) | mean query (ms) | splits unfinished when arrivals stopped | drained after (s) | kept up |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Run run : scale) {
            SimulationResult result = run.result();
            out.append(format("| `%s` | %.3f | %s / %s / %s | %s / %s / %s | %s | %,d | %,.1f | %s |%n", result.policy(), result.hitRatio(),
                    millis(result.splitWaitP50()), millis(result.splitWaitP95()), millis(result.splitWaitP99()),
                    millis(result.queryP50()), millis(result.queryP95()), millis(result.queryP99()), millis(result.queryMean()), result.backlogAtEnd(), result.drainSeconds(),
                    keptUp(result)));
        }
        out.append(format("%nA policy that keeps up leaves about the splits of the last half second unfinished and drains in a second or two; "
                + "one that does not keep up leaves a queue that grows with the length of the run, and so do its percentiles: "
                + "\"kept up\" is no when the queues took more than %.1f s to drain (%.0f s, or %.0f%% of the arrival period when that is shorter), "
                + "and such a run's percentiles are not comparable.%n", first.result().keptUpDrainSeconds(), SimulationResult.KEPT_UP_DRAIN_SECONDS, 100 * SimulationResult.KEPT_UP_DRAIN_FRACTION));
        out.append("\n| policy | max/avg splits run | max/avg busy time | utilisation: mean / busiest worker | cached copies per cached file | remap on join | remap on leave | placer's own remap (join / leave) | preferred / alternative / fallback |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Run run : scale) {
            SimulationResult result = run.result();
            out.append(format("| `%s` | %.2f | %.2f | %.2f / %.2f | %.2f | %s | %s | %s | %s |%n", result.policy(), result.maxAvgSplits(), result.maxAvgBusy(),
                    result.utilisation(), result.maxWorkerUtilisation(), result.copiesPerCachedFile(),
                    remap(result.remapJoin(), result.idealRemap()), remap(result.remapLeave(), result.idealRemap()),
                    Double.isNaN(result.placerRemapJoin()) ? "-" : format("%.4f / %.4f", result.placerRemapJoin(), result.placerRemapLeave()),
                    shares(result)));
        }
        out.append(format("%nIdeal remap 1/(N+1) = %.4f; the goal's 1.1/(N+1) = %.4f.%n%n", first.result().idealRemap(), 1.1 * first.result().idealRemap()));
    }

    private static void sustainable(StringBuilder out, List<Run> runs)
    {
        List<Run> searched = runs.stream().filter(run -> run.section().equals(SUSTAINABLE)).toList();
        if (searched.isEmpty()) {
            return;
        }
        out.append("## Largest sustainable load\n\n");
        out.append(format("Each policy at rising offered load (utilisation in steps of %.1f from %.1f, or falling while it does not keep up), with shorter runs; "
                + "the largest load it kept up with, and its hit ratio and P95 query time there. Utilisation is measured against the reference "
                + "service time (hit ratio %.0f%%), so a policy with a higher hit ratio can keep up above 1.%n%n",
                PlacementSimulation.LOAD_STEP, PlacementSimulation.FIRST_LOAD, 100 * searched.getFirst().config().referenceHitRatio()));
        out.append("| workers | arrivals (s) | policy | largest load kept up: utilisation / queries/s | hit ratio there | query P95 there (ms) | first load not kept up (drained after) |\n");
        out.append("|---:|---:|---|---:|---:|---:|---|\n");
        for (int workers : scales(runs)) {
            for (String policy : Simulator.POLICIES) {
                List<Run> tried = searched.stream().filter(run -> run.config().workers() == workers && run.result().policy().equals(policy)).toList();
                if (tried.isEmpty()) {
                    continue;
                }
                Optional<Run> best = largestKeptUp(tried);
                Optional<Run> failed = tried.stream().filter(run -> !run.result().keptUp()).min(Comparator.comparingDouble(run -> run.config().utilisation()));
                out.append(format("| %,d | %,.0f | `%s` | %s | %s | %s | %s |%n", workers, tried.getFirst().config().arrivalSeconds(), policy,
                        best.map(run -> format("%.2f / %,.1f", run.config().utilisation(), run.config().queriesPerSecond())).orElse(format("< %.2f", PlacementSimulation.MIN_LOAD)),
                        best.map(run -> format("%.3f", run.result().hitRatio())).orElse("-"),
                        best.map(run -> millis(run.result().queryP95())).orElse("-"),
                        failed.map(run -> format("%.2f (%,.1f s)", run.config().utilisation(), run.result().drainSeconds())).orElse("none tried")));
            }
        }
        out.append('\n');
    }

    static Optional<Run> largestKeptUp(List<Run> tried)
    {
        return tried.stream().filter(run -> run.result().keptUp()).max(Comparator.comparingDouble(run -> run.config().utilisation()));
    }

    /** The largest sustainable utilisation of {@code policy} at {@code workers}, or 0 when it kept up with none. */
    static double sustainableLoad(List<Run> runs, int workers, String policy)
    {
        return largestKeptUp(runs.stream()
                .filter(run -> run.section().equals(SUSTAINABLE) && run.config().workers() == workers && run.result().policy().equals(policy))
                .toList())
                .map(run -> run.config().utilisation())
                .orElse(0.0);
    }

    private static void goals(StringBuilder out, List<Run> runs)
    {
        out.append("## Against the goals: Overdrive against the best reference at each scale\n\n");
        out.append("The best reference is the best of the other policies on that figure, Trino's `cache-preferred-hosts-count` 1, 2, 4 and 8 included; "
                + "hit ratio and P95 count only the references that kept up with the main run's load. The verdict is the shipped defaults' "
                + "(`overdrive`); `overdrive-lru` shows the same placer with plain LRU caches (placement alone), `overdrive-earlier` the shipped placer "
                + "with the earlier `load-half-life` of 10 s.\n\n");
        out.append("| goal | workers | `overdrive` | `overdrive-lru` | `overdrive-earlier` | best reference | verdict |\n|---|---:|---:|---:|---:|---:|---|\n");
        for (int workers : scales(runs)) {
            Optional<SimulationResult> overdrive = find(runs, MAIN, workers, "overdrive");
            if (overdrive.isEmpty()) {
                continue;
            }
            SimulationResult ours = overdrive.get();
            SimulationResult lru = find(runs, MAIN, workers, "overdrive-lru").orElse(ours);
            SimulationResult earlier = find(runs, MAIN, workers, "overdrive-earlier").orElse(ours);
            List<SimulationResult> references = runs.stream()
                    .filter(run -> run.section().equals(MAIN) && run.config().workers() == workers && !run.result().policy().startsWith("overdrive"))
                    .map(Run::result)
                    .toList();
            List<SimulationResult> keptUp = references.stream().filter(SimulationResult::keptUp).toList();
            Optional<SimulationResult> bestHit = keptUp.stream().max(Comparator.comparingDouble(SimulationResult::hitRatio));
            Optional<SimulationResult> bestP95 = keptUp.stream().min(Comparator.comparingDouble(SimulationResult::queryP95));
            bestHit.ifPresent(best -> out.append(format("| hit ratio >= the best reference's | %,d | %.3f | %.3f | %.3f | %.3f (`%s`) | %s |%n", workers, ours.hitRatio(), lru.hitRatio(), earlier.hitRatio(),
                    best.hitRatio(), best.policy(), met(ours.keptUp() && ours.hitRatio() >= best.hitRatio()))));
            bestP95.ifPresent(best -> out.append(format("| P95 query time <= the best reference's | %,d | %s ms | %s ms | %s ms | %s ms (`%s`) | %s (%+.1f%%) |%n", workers, millis(ours.queryP95()),
                    millis(lru.queryP95()), millis(earlier.queryP95()), millis(best.queryP95()), best.policy(), met(ours.keptUp() && ours.queryP95() <= best.queryP95()), 100 * (ours.queryP95() / best.queryP95() - 1))));
            if (runs.stream().anyMatch(run -> run.section().equals(SUSTAINABLE) && run.config().workers() == workers)) {
                double ourLoad = sustainableLoad(runs, workers, "overdrive");
                references.stream()
                        .map(SimulationResult::policy)
                        .max(Comparator.comparingDouble(policy -> sustainableLoad(runs, workers, policy)))
                        .ifPresent(policy -> {
                            double theirs = sustainableLoad(runs, workers, policy);
                            out.append(format("| largest sustainable load >= the best reference's | %,d | %.2f | %.2f | %.2f | %.2f (`%s`) | %s |%n", workers, ourLoad,
                                    sustainableLoad(runs, workers, "overdrive-lru"), sustainableLoad(runs, workers, "overdrive-earlier"), theirs, policy, met(ourLoad >= theirs)));
                        });
            }
            out.append(format("| busy time max/avg <= 1.2 (splits run) | %,d | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | - | %s |%n", workers, ours.maxAvgBusy(), ours.maxAvgSplits(),
                    lru.maxAvgBusy(), lru.maxAvgSplits(), earlier.maxAvgBusy(), earlier.maxAvgSplits(), met(ours.maxAvgBusy() <= 1.2)));
            double limit = 1.1 * ours.idealRemap();
            out.append(format("| remap <= 1.1/N (join; leave) | %,d | %.4f; %.4f | %.4f; %.4f | %.4f; %.4f | - | %s (limit %.4f) |%n", workers, ours.remapJoin(), ours.remapLeave(),
                    lru.remapJoin(), lru.remapLeave(), earlier.remapJoin(), earlier.remapLeave(), met(ours.remapJoin() <= limit && ours.remapLeave() <= limit), limit));
        }
        out.append('\n');
    }

    private static void sensitivity(StringBuilder out, List<Run> runs)
    {
        List<Run> sensitivity = runs.stream().filter(run -> run.section().equals(SENSITIVITY)).toList();
        if (sensitivity.isEmpty()) {
            return;
        }
        SimulationConfig config = sensitivity.getFirst().config();
        out.append(format("## Sensitivity (%,d workers, %,.0f s of arrivals, %,.0f s warm-up; one parameter changed at a time)%n%n",
                config.workers(), config.arrivalSeconds(), config.warmupSeconds()));
        out.append("| variant | policy | hit ratio | query P50 / P95 / P99 (ms) | max/avg splits | max/avg busy | utilisation: mean / busiest | fallback | unfinished when arrivals stopped | kept up |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Run run : sensitivity) {
            SimulationResult result = run.result();
            out.append(format("| %s | `%s` | %.3f | %s / %s / %s | %.2f | %.2f | %.2f / %.2f | %.1f%% | %,d | %s |%n", run.variant(), result.policy(), result.hitRatio(),
                    millis(result.queryP50()), millis(result.queryP95()), millis(result.queryP99()), result.maxAvgSplits(), result.maxAvgBusy(),
                    result.utilisation(), result.maxWorkerUtilisation(), 100 * result.fallbackShare(), result.backlogAtEnd(), keptUp(result)));
        }
        out.append('\n');
    }

    private static void settings(StringBuilder out, List<Run> runs)
    {
        for (String section : List.of(SETTINGS_10, SETTINGS_100, SETTINGS_1000)) {
            List<Run> settings = runs.stream().filter(run -> run.section().equals(section)).toList();
            if (settings.isEmpty()) {
                continue;
            }
            SimulationConfig config = settings.getFirst().config();
            out.append(format("## Overdrive's settings (%,d workers, %,.0f s of arrivals)%n%n", config.workers(), config.arrivalSeconds()));
            out.append("| setting | hit ratio | query P50 / P95 / P99 (ms) | max/avg splits | max/avg busy | utilisation: mean / busiest | cached copies per cached file | preferred / alternative / fallback |\n");
            out.append("|---|---:|---:|---:|---:|---:|---:|---|\n");
            List<Run> rows = settings;
            if (!section.equals(SETTINGS_100)) {
                // the defaults are the main grid's run
                Optional<Run> defaults = runs.stream()
                        .filter(run -> run.section().equals(MAIN) && run.config().workers() == config.workers() && run.result().policy().equals("overdrive"))
                        .findFirst();
                if (defaults.isPresent()) {
                    Run main = defaults.get();
                    rows = Stream.concat(
                            Stream.of(new Run(section, "defaults (the run above)", main.config(), main.result(), main.cpuSeconds(), main.wallSeconds(), main.loadAverage())),
                            settings.stream()).toList();
                }
            }
            for (Run run : rows) {
                SimulationResult result = run.result();
                out.append(format("| %s | %.3f | %s / %s / %s | %.2f | %.2f | %.2f / %.2f | %.2f | %s |%n", run.variant(), result.hitRatio(),
                        millis(result.queryP50()), millis(result.queryP95()), millis(result.queryP99()), result.maxAvgSplits(), result.maxAvgBusy(),
                        result.utilisation(), result.maxWorkerUtilisation(), result.copiesPerCachedFile(), shares(result)));
            }
            out.append('\n');
        }
        out.append("Time per part of the run:\n\n| part | runs | wall (s) | CPU (s) |\n|---|---:|---:|---:|\n");
        for (String section : List.of(MAIN, SUSTAINABLE, SENSITIVITY, SETTINGS_10, SETTINGS_100, SETTINGS_1000)) {
            for (int workers : runs.stream().map(run -> run.config().workers()).distinct().sorted().toList()) {
                List<Run> part = runs.stream().filter(run -> run.section().equals(section) && run.config().workers() == workers).toList();
                if (!part.isEmpty()) {
                    out.append(format("| %s, %,d workers | %d | %,.0f | %,.0f |%n", SECTION_NAMES.get(section), workers, part.size(),
                            part.stream().mapToDouble(Run::wallSeconds).sum(), part.stream().mapToDouble(Run::cpuSeconds).sum()));
                }
            }
        }
    }

    // the worker counts of the main grid, ascending
    private static List<Integer> scales(List<Run> runs)
    {
        return runs.stream()
                .filter(run -> run.section().equals(MAIN))
                .map(run -> run.config().workers())
                .distinct()
                .sorted()
                .toList();
    }

    static Optional<SimulationResult> find(List<Run> runs, String section, int workers, String policy)
    {
        return runs.stream()
                .filter(run -> run.section().equals(section) && run.config().workers() == workers && run.result().policy().equals(policy))
                .map(Run::result)
                .findFirst();
    }

    private static String shares(SimulationResult result)
    {
        if (result.preferredShare() + result.alternativeShare() + result.fallbackShare() == 0) {
            return "-";
        }
        return format("%.1f%% / %.1f%% / %.1f%%", 100 * result.preferredShare(), 100 * result.alternativeShare(), 100 * result.fallbackShare());
    }

    private static String remap(double fraction, double ideal)
    {
        return Double.isNaN(fraction) ? "-" : format("%.4f (%.2fx)", fraction, fraction / ideal);
    }

    private static String millis(double value)
    {
        return Double.isNaN(value) ? "-" : format("%,.0f", value);
    }

    private static String met(boolean met)
    {
        return met ? "met" : "**not met**";
    }

    private static String format(String pattern, Object... arguments)
    {
        return String.format(Locale.ROOT, pattern, arguments);
    }

    private static String keptUp(SimulationResult result)
    {
        return result.keptUp() ? "yes" : "**no**";
    }
}
