package io.overdrive.it.placement;

import io.overdrive.it.demo.RatioInterval;
import io.overdrive.it.demo.RatioInterval.Estimate;
import io.overdrive.it.placement.PlacementSimulation.Run;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

import static java.lang.String.format;
import static java.util.stream.Collectors.joining;

/**
 * {@code ./overdrive bench placement --rounds N}: the main run at one scale repeated with N seeds, every policy; Overdrive
 * against each other policy on query P95 and on the miss ratio (1 - hit ratio; lower is better for both, as
 * {@link RatioInterval}'s verdicts read), each ratio the ratio of the sums over the seeds with its 95% bootstrap interval
 * over the seeds; where the runs have it, {@code overdrive-reported} (with the load signal) against each other policy
 * the same way.
 */
final class PlacementRounds
{
    static final String OVERDRIVE = "overdrive";
    static final String REPORTED = "overdrive-reported";

    private PlacementRounds() {}

    /** {@code seeds}: one list of runs per seed, every policy once in each. */
    static String render(List<List<Run>> seeds, Instant started, double wallSeconds, boolean quick)
    {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds");
        }
        List<String> policies = seeds.getFirst().stream().map(run -> run.result().policy()).toList();
        if (!policies.contains(OVERDRIVE)) {
            throw new IllegalArgumentException("the runs have no %s policy: %s".formatted(OVERDRIVE, policies));
        }
        List<Run> all = seeds.stream().flatMap(List::stream).toList();
        SimulationConfig config = all.getFirst().config();
        StringBuilder out = new StringBuilder();
        out.append(format("### Placement at %d workers, %d seeds%n%n", config.workers(), seeds.size()));
        if (quick) {
            out.append("**Quick smoke run (`--quick`): a tenth of the simulated time; not for the docs.**\n\n");
        }
        out.append(format("Run %s, %,.0f s wall, %,.0f s CPU (one thread), seeds %s. Machine: %d CPUs, JDK %s. "
                        + "Load average (1 min) after each run: mean %.1f, max %.1f. Each seed draws its own arrivals, tie breaks and leaving worker; "
                        + "every policy runs the same draw. Ratios: the sum over the seeds of Overdrive's figure over the policy's, with the 95%% "
                        + "bootstrap interval over the seeds; for both figures lower is better, so an interval below 1 is a win for Overdrive.%n%n",
                started, wallSeconds, all.stream().mapToDouble(Run::cpuSeconds).sum(),
                seeds.stream().map(runs -> Long.toString(runs.getFirst().config().seed())).collect(joining(", ")),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.runtime.version"),
                all.stream().mapToDouble(Run::loadAverage).filter(load -> !Double.isNaN(load)).average().orElse(Double.NaN),
                all.stream().mapToDouble(Run::loadAverage).filter(load -> !Double.isNaN(load)).max().orElse(Double.NaN)));
        table(out, seeds, policies, OVERDRIVE, "Overdrive's");
        String fastest = policies.stream()
                .filter(policy -> !policy.startsWith(OVERDRIVE))
                .min(Comparator.comparingDouble(policy -> mean(seeds, policy, SimulationResult::queryP95)))
                .orElseThrow();
        Estimate best = estimate(seeds, fastest, SimulationResult::queryP95);
        out.append(format("%nAgainst the policy with the lowest mean P95 other than Overdrive's (`%s`): P95 %s (%s), a **%s**; per seed %s.%n",
                fastest, best.ratioText(), best.intervalText(), best.verdict().label(),
                best.roundRatios().stream().map(ratio -> format("%.2f", ratio)).collect(joining(", "))));
        if (policies.contains(REPORTED)) {
            out.append(format("%n#### `%s` (with the load signal) against each policy%n%n", REPORTED));
            out.append(format("The same runs; the ratios are `%s`'s figure over the policy's (below 1: `%s` is better).%n%n", REPORTED, REPORTED));
            table(out, seeds, policies, REPORTED, "`" + REPORTED + "`'s");
            Estimate reportedBest = estimate(seeds, REPORTED, fastest, SimulationResult::queryP95);
            out.append(format("%nAgainst `%s`: P95 %s (%s), a **%s**; per seed %s.%n",
                    fastest, reportedBest.ratioText(), reportedBest.intervalText(), reportedBest.verdict().label(),
                    reportedBest.roundRatios().stream().map(ratio -> format("%.2f", ratio)).collect(joining(", "))));
        }
        return out.toString();
    }

    // a row per policy: its means, and the baseline's P95 and miss ratio over its with their intervals
    private static void table(StringBuilder out, List<List<Run>> seeds, List<String> policies, String baseline, String possessive)
    {
        out.append(format("| policy | hit ratio (mean) | query P95, ms (mean) | %s P95 / its | 95%% interval | verdict | %s miss ratio / its | 95%% interval | verdict |%n", possessive, possessive));
        out.append("|---|---:|---:|---:|---:|---|---:|---:|---|\n");
        for (String policy : policies) {
            double hit = mean(seeds, policy, SimulationResult::hitRatio);
            double p95 = mean(seeds, policy, SimulationResult::queryP95);
            if (policy.equals(baseline)) {
                out.append(format("| `%s` | %.3f | %,.0f | | | | | | |%n", policy, hit, p95));
                continue;
            }
            Estimate time = estimate(seeds, baseline, policy, SimulationResult::queryP95);
            Estimate misses = estimate(seeds, baseline, policy, result -> 1 - result.hitRatio());
            out.append(format("| `%s` | %.3f | %,.0f | %s | %s | %s | %s | %s | %s |%n", policy, hit, p95,
                    time.ratioText(), time.intervalText(), time.verdict().label(), misses.ratioText(), misses.intervalText(), misses.verdict().label()));
        }
    }

    /** Overdrive's figure over {@code policy}'s, a round per seed. */
    static Estimate estimate(List<List<Run>> seeds, String policy, ToDoubleFunction<SimulationResult> figure)
    {
        return estimate(seeds, OVERDRIVE, policy, figure);
    }

    /** {@code baseline}'s figure over {@code policy}'s, a round per seed. */
    static Estimate estimate(List<List<Run>> seeds, String baseline, String policy, ToDoubleFunction<SimulationResult> figure)
    {
        return RatioInterval.estimate(rounds(seeds, baseline, figure), rounds(seeds, policy, figure), RatioInterval.Statistic.TOTAL);
    }

    private static List<RatioInterval.Round> rounds(List<List<Run>> seeds, String policy, ToDoubleFunction<SimulationResult> figure)
    {
        // RatioInterval takes whole numbers: millionths keep a ratio's six digits and a P95's microseconds
        return seeds.stream().map(runs -> RatioInterval.Round.single(Math.round(figure.applyAsDouble(result(runs, policy).result()) * 1e6))).toList();
    }

    private static double mean(List<List<Run>> seeds, String policy, ToDoubleFunction<SimulationResult> figure)
    {
        return seeds.stream().mapToDouble(runs -> figure.applyAsDouble(result(runs, policy).result())).average().orElse(Double.NaN);
    }

    private static Run result(List<Run> runs, String policy)
    {
        return runs.stream().filter(run -> run.result().policy().equals(policy)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no run of policy " + policy));
    }
}
