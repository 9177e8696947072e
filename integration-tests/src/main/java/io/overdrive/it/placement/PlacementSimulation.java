package io.overdrive.it.placement;

import io.overdrive.scheduler.affinity.AffinityGranularity;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * {@code ./overdrive bench placement}: the placement simulation at 10, 100 and 1,000 workers for every policy, the
 * largest load each keeps up with at each scale, a sensitivity run at 100 workers, and Overdrive's own settings; writes {@code report.md} and its PNG charts.
 */
public final class PlacementSimulation
{
    static final String USAGE = """
            usage: ./overdrive bench placement [--out DIR] [--quick] [--seed N] [--rounds N [--workers W]]
              --out DIR     where report.md and the charts go (default integration-tests/target/benchmarks/placement)
              --quick       a smoke run: a tenth of the simulated time, no 1,000-worker runs; not for the docs
              --seed N      the seed of arrivals, the leaving worker and tie breaks (default %d)
              --rounds N    instead of the full report: the main run at one scale with N seeds (N, the seed and those after
                            it), every policy; Overdrive's hit ratio and query P95 against each other policy's, and
                            overdrive-reported's (with the load signal) against each other policy's, each with its 95%%
                            interval over the seeds (rounds.md)
              --workers W   the scale of --rounds (default 10)""".formatted(SimulationConfig.DEFAULT_SEED);

    static final List<Integer> SCALES = List.of(10, 100, 1000);

    private PlacementSimulation() {}

    /** One simulated run: its section of the report, its label there, what ran and what it cost. */
    record Run(String section, String variant, SimulationConfig config, SimulationResult result, double cpuSeconds, double wallSeconds, double loadAverage) {}

    public static void main(String[] args)
            throws IOException
    {
        Path out = Path.of("integration-tests/target/benchmarks/placement");
        boolean quick = false;
        long seed = SimulationConfig.DEFAULT_SEED;
        int rounds = 0;
        int workers = 10;
        for (int index = 0; index < args.length; index++) {
            switch (args[index]) {
                case "--out" -> out = Path.of(argument(args, ++index));
                case "--quick" -> quick = true;
                case "--seed" -> seed = Long.parseLong(argument(args, ++index));
                case "--rounds" -> rounds = positive(argument(args, ++index), "--rounds");
                case "--workers" -> workers = positive(argument(args, ++index), "--workers");
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> {
                    System.err.println("placement: unknown option " + args[index] + "\n" + USAGE);
                    System.exit(2);
                }
            }
        }
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(out);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long startNanos = System.nanoTime();
        if (rounds > 0) {
            List<List<Run>> seeds = runSeeds(rounds, workers, quick, seed);
            String report = PlacementRounds.render(seeds, started, (System.nanoTime() - startNanos) / 1e9, quick);
            Files.writeString(out.resolve("rounds.md"), report, UTF_8);
            System.out.println();
            System.out.println(report);
            System.out.printf("report: %s%n", out.resolve("rounds.md"));
            return;
        }
        List<Run> runs = runAll(quick, seed);
        double wallSeconds = (System.nanoTime() - startNanos) / 1e9;
        List<Path> charts = PlacementCharts.write(out, runs);
        String report = PlacementReport.render(runs, started, wallSeconds, quick, seed);
        Files.writeString(out.resolve("report.md"), report, UTF_8);
        System.out.println();
        System.out.println(report);
        System.out.printf("report: %s%ncharts: %s%n", out.resolve("report.md"), charts);
    }

    /** The main run at {@code workers} workers, every policy, once per seed from {@code seed} on: one list of runs per seed. */
    static List<List<Run>> runSeeds(int rounds, int workers, boolean quick, long seed)
    {
        List<List<Run>> seeds = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            SimulationConfig config = scaled(SimulationConfig.standard(workers).withSeed(seed + round), quick ? 0.1 : 1.0);
            List<Run> runs = new ArrayList<>();
            for (String policy : Simulator.POLICIES) {
                runs.add(run(PlacementReport.MAIN, "seed %d".formatted(config.seed()), config, policy));
            }
            seeds.add(runs);
        }
        return seeds;
    }

    static List<Run> runAll(boolean quick, long seed)
    {
        List<Run> runs = new ArrayList<>();
        double time = quick ? 0.1 : 1.0;
        // the main grid: every policy at every scale
        for (int workers : SCALES) {
            if (quick && workers > 100) {
                continue;
            }
            SimulationConfig config = scaled(SimulationConfig.standard(workers).withSeed(seed), time);
            for (String policy : Simulator.POLICIES) {
                runs.add(run(PlacementReport.MAIN, policy, config, policy));
            }
        }
        // the largest load each policy keeps up with, at every scale
        for (int workers : SCALES) {
            if (quick && workers > 100) {
                continue;
            }
            SimulationConfig config = sustainablePeriod(SimulationConfig.standard(workers).withSeed(seed), time);
            for (String policy : Simulator.POLICIES) {
                runs.addAll(sustainable(config, policy));
            }
        }
        // sensitivity at 100 workers, a shorter run: load, skew, Trino's NODE balancing, smaller workers, one file per query
        SimulationConfig sensitivity = SimulationConfig.standard(100).withSeed(seed);
        sensitivity = scaled(sensitivity.withPeriod(300, 60), time);
        for (double utilisation : List.of(0.6, 0.9)) {
            for (String policy : Simulator.POLICIES) {
                runs.add(run(PlacementReport.SENSITIVITY, "utilisation %.2f".formatted(utilisation), sensitivity.withUtilisation(utilisation), policy));
            }
        }
        for (double exponent : List.of(0.9, 1.2)) {
            for (String policy : Simulator.POLICIES) {
                runs.add(run(PlacementReport.SENSITIVITY, "Zipf exponent %.1f".formatted(exponent), sensitivity.withZipfExponent(exponent), policy));
            }
        }
        for (String policy : List.of("trino", "none")) {
            runs.add(run(PlacementReport.SENSITIVITY, "splits-balancing-policy NODE", sensitivity.withSplitsBalancing(SplitsBalancing.NODE), policy));
        }
        for (String policy : Simulator.POLICIES) {
            runs.add(run(PlacementReport.SENSITIVITY, "4 slots per worker", sensitivity.withSlots(4), policy));
        }
        // the earlier model: each query one whole file, Zipf over single files
        for (String policy : Simulator.POLICIES) {
            runs.add(run(PlacementReport.SENSITIVITY, "one file (4 splits) per query, Zipf over files", sensitivity.withSingleFileQueries(), policy));
        }
        // Overdrive's own settings, through the real placer's configuration
        double epsilon = sensitivity.loadBalanceEpsilon();
        double halfLife = sensitivity.loadHalfLifeSeconds();
        AffinityGranularity granularity = sensitivity.granularity();
        AffinityGranularity otherGranularity = granularity == AffinityGranularity.FILE ? AffinityGranularity.SPLIT : AffinityGranularity.FILE;
        List<OverdriveSetting> settings = List.of(
                new OverdriveSetting("preferred-hosts-count 2", 2, epsilon, halfLife, granularity),
                new OverdriveSetting("preferred-hosts-count 8", 8, epsilon, halfLife, granularity),
                new OverdriveSetting("preferred-hosts-count 16", 16, epsilon, halfLife, granularity),
                new OverdriveSetting("affinity-granularity " + otherGranularity, sensitivity.preferredHostsCount(), epsilon, halfLife, otherGranularity),
                new OverdriveSetting("load-balance-epsilon 0.05", sensitivity.preferredHostsCount(), 0.05, halfLife, granularity),
                new OverdriveSetting("load-balance-epsilon 0.1", sensitivity.preferredHostsCount(), 0.1, halfLife, granularity),
                new OverdriveSetting("load-balance-epsilon 0.25", sensitivity.preferredHostsCount(), 0.25, halfLife, granularity),
                new OverdriveSetting("load-balance-epsilon 0.5", sensitivity.preferredHostsCount(), 0.5, halfLife, granularity),
                new OverdriveSetting("load-half-life 0.5s", sensitivity.preferredHostsCount(), epsilon, 0.5, granularity),
                new OverdriveSetting("load-half-life 1s", sensitivity.preferredHostsCount(), epsilon, 1, granularity),
                new OverdriveSetting("load-half-life 10s", sensitivity.preferredHostsCount(), epsilon, 10, granularity),
                new OverdriveSetting("load-half-life 60s", sensitivity.preferredHostsCount(), epsilon, 60, granularity));
        runs.add(run(PlacementReport.SETTINGS_100, "defaults (%d hosts, epsilon %.2f, floor 16, %.0fs, %s)".formatted(sensitivity.preferredHostsCount(), epsilon, halfLife, granularity), sensitivity, "overdrive"));
        for (OverdriveSetting setting : settings) {
            runs.add(run(PlacementReport.SETTINGS_100, setting.label(), setting.apply(sensitivity), "overdrive"));
        }
        // the bound at 10 workers, the full-length run: where a tighter bound would win on P95 and what it costs at 100
        SimulationConfig small = scaled(SimulationConfig.standard(10).withSeed(seed), time);
        for (double bound : List.of(0.05, 0.1)) {
            runs.add(run(PlacementReport.SETTINGS_10, "load-balance-epsilon %s".formatted(bound), small.withOverdrive(small.preferredHostsCount(), bound, small.loadHalfLifeSeconds(), small.granularity()), "overdrive"));
        }
        if (!quick) {
            SimulationConfig large = SimulationConfig.standard(1000).withSeed(seed);
            for (OverdriveSetting setting : List.of(settings.get(0))) {
                runs.add(run(PlacementReport.SETTINGS_1000, setting.label(), setting.apply(large), "overdrive"));
            }
        }
        return runs;
    }

    private record OverdriveSetting(String label, int hosts, double epsilon, double halfLifeSeconds, AffinityGranularity granularity)
    {
        SimulationConfig apply(SimulationConfig config)
        {
            return config.withOverdrive(hosts, epsilon, halfLifeSeconds, granularity);
        }
    }

    /** The utilisations the search for the largest sustainable load tries, in order from {@link #FIRST_LOAD}. */
    static final double LOAD_STEP = 0.1;
    static final double FIRST_LOAD = 1.0;
    static final double MIN_LOAD = 0.2;
    static final double MAX_LOAD = 1.9;

    /**
     * Runs of {@code policy} at rising offered load from {@link #FIRST_LOAD} while it keeps up (or falling until it
     * does): the last run that kept up gives the largest sustainable load, within one step.
     */
    static List<Run> sustainable(SimulationConfig config, String policy)
    {
        List<Run> tried = new ArrayList<>();
        Run first = run(PlacementReport.SUSTAINABLE, label(FIRST_LOAD), config.withUtilisation(FIRST_LOAD), policy);
        tried.add(first);
        double direction = first.result().keptUp() ? LOAD_STEP : -LOAD_STEP;
        for (double load = FIRST_LOAD + direction; load >= MIN_LOAD - 1e-9 && load <= MAX_LOAD + 1e-9; load += direction) {
            Run next = run(PlacementReport.SUSTAINABLE, label(load), config.withUtilisation(load), policy);
            tried.add(next);
            if (next.result().keptUp() != first.result().keptUp()) {
                break;
            }
        }
        return tried;
    }

    private static String label(double load)
    {
        return "utilisation %.2f".formatted(load);
    }

    // the search's runs: long enough that a load 5% over capacity leaves a queue that does not drain in time
    private static SimulationConfig sustainablePeriod(SimulationConfig config, double time)
    {
        double arrival = config.workers() <= 10 ? 300 : config.workers() <= 100 ? 120 : 30;
        return config.withPeriod(arrival * time, arrival * time / 4);
    }

    private static SimulationConfig scaled(SimulationConfig config, double time)
    {
        return config.withPeriod(config.arrivalSeconds() * time, config.warmupSeconds() * time);
    }

    private static Run run(String section, String variant, SimulationConfig config, String policy)
    {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        SimulationResult result = Simulator.run(config, policy);
        Run run = new Run(section, variant, config, result, (threads.getCurrentThreadCpuTime() - cpu) / 1e9, (System.nanoTime() - wall) / 1e9, loadAverage());
        System.out.printf("%-28s %-34s %5d workers %-18s %6.1f s (CPU %5.1f s): hit %.3f, query P95 %,.0f ms, max/avg splits %.2f%n",
                section, variant, config.workers(), policy, run.wallSeconds(), run.cpuSeconds(), result.hitRatio(), result.queryP95(), result.maxAvgSplits());
        return run;
    }

    private static int positive(String value, String option)
    {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= 1) {
                return parsed;
            }
        }
        catch (NumberFormatException _) {
            // reported below
        }
        throw new IllegalArgumentException("%s takes a whole number of at least 1, not '%s'".formatted(option, value));
    }

    private static String argument(String[] args, int index)
    {
        if (index >= args.length) {
            throw new IllegalArgumentException("missing value after " + args[index - 1]);
        }
        return args[index];
    }

    // the 1-minute load average, NaN where /proc/loadavg cannot be read
    private static double loadAverage()
    {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg"), UTF_8).split(" ")[0]);
        }
        catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
