package io.overdrive.it.placement;

import com.google.common.base.Ticker;
import io.overdrive.it.demo.RatioInterval.Estimate;
import io.overdrive.it.placement.PlacementSimulation.Run;
import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.LoadReport;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.PlacementStats;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A small simulation (40 workers, 4 slots each, a minute of arrivals, Zipf 1.1 over tables, queries of 8 to 40
 * splits; and queries of one file each) of every policy, checked for what the
 * model and the placers promise: every split runs exactly once even when its worker leaves, Overdrive's real placer
 * keeps the load within its bound where rendezvous placement (Trino) does not, remap on a join or leave is about 1/N
 * for the consistent policies and nearly everything for modular hashing, caches evict least recently used first (and
 * Overdrive's admit only repeated reads once full), the placer balances by the workers' polled reports where it has
 * them, and a seed gives the same run every time. About a second.
 */
@TestInstance(PER_CLASS)
final class TestPlacementSimulation
{
    private static final SimulationConfig SMALL = SimulationConfig.standard(40)
            .withLake(50, 40)
            .withQueryShape(10, 2, 10)
            .withSlots(4)
            .withPeriod(60, 15)
            .withSeed(7);
    // the single-file model: every query one hot file, where rendezvous placement piles up
    private static final SimulationConfig SINGLE_FILE = SMALL.withSingleFileQueries();
    // Overdrive with a file's splits under one key and a looser bound (an earlier default)
    private static final double FILE_KEYS_EPSILON = 0.25;
    private static final SimulationConfig FILE_KEYS = SMALL.withOverdrive(SMALL.preferredHostsCount(), FILE_KEYS_EPSILON, SMALL.loadHalfLifeSeconds(), AffinityGranularity.FILE);

    private final Map<String, SimulationResult> results = new LinkedHashMap<>();
    private final Map<String, SimulationResult> singleFile = new LinkedHashMap<>();
    private SimulationResult fileKeys;

    @BeforeAll
    void simulateEveryPolicy()
    {
        for (String policy : Simulator.POLICIES) {
            results.put(policy, Simulator.run(SMALL, policy));
        }
        for (String policy : List.of("overdrive", "overdrive-reported", "trino", "presto-consistent", "none")) {
            singleFile.put(policy, Simulator.run(SINGLE_FILE, policy));
        }
        fileKeys = Simulator.run(FILE_KEYS, "overdrive");
    }

    @Test
    void everySplitRunsExactlyOnce()
    {
        long aborted = 0;
        for (SimulationResult result : results.values()) {
            assertThat(result.splitsCreated()).as(result.policy()).isPositive();
            assertThat(result.splitsCompleted()).as(result.policy() + ": splits that finished").isEqualTo(result.splitsCreated());
            assertThat(result.splits()).as(result.policy() + ": measured splits are the measured queries' files' splits")
                    .isBetween(result.queries() * SMALL.minFilesPerQuery() * SMALL.splitsPerFile(), result.queries() * SMALL.maxFilesPerQuery() * SMALL.splitsPerFile());
            assertThat(result.splits() % SMALL.splitsPerFile()).as("whole files").isZero();
            assertThat(result.cacheHits() + result.cacheMisses()).as(result.policy() + ": every measured split is a hit or a miss").isEqualTo(result.splits());
            assertThat(result.hitRatio()).isEqualTo((double) result.cacheHits() / result.splits(), within(1e-12));
            aborted += result.abortedExecutions();
        }
        // the same arrivals for every policy
        assertThat(results.values()).extracting(SimulationResult::splitsCreated).containsOnly(results.get("overdrive").splitsCreated());
        assertThat(aborted).as("the leaving worker had running splits, which ran again elsewhere").isPositive();
    }

    @Test
    void overdriveBoundsTheLoadWhereRendezvousDoesNot()
    {
        // the placer bounds its decayed account at 1 + epsilon; the splits run over the window drift a little above it
        assertThat(results.get("overdrive").maxAvgSplits()).isLessThanOrEqualTo(1 + SMALL.loadBalanceEpsilon() + 0.05);
        assertThat(results.get("overdrive-lru").maxAvgSplits()).isLessThanOrEqualTo(1 + SMALL.loadBalanceEpsilon() + 0.05);
        assertThat(results.get("overdrive-earlier").maxAvgSplits()).isLessThanOrEqualTo(1 + SMALL.loadBalanceEpsilon() + 0.05);
        assertThat(fileKeys.maxAvgSplits()).isLessThanOrEqualTo(1 + FILE_KEYS_EPSILON + 0.05);
        assertThat(singleFile.get("overdrive").maxAvgSplits()).isLessThanOrEqualTo(1 + SMALL.loadBalanceEpsilon() + 0.05);
        // with one hot file per query, Trino's 2 preferred hosts per bucket take every split of their keys, however hot
        assertThat(singleFile.get("trino").maxAvgSplits()).isGreaterThan(1.5);
        assertThat(singleFile.get("trino").fallbackShare()).isZero();
        assertThat(results.get("trino").fallbackShare()).isZero();
        assertThat(singleFile.get("presto-consistent").maxAvgSplits()).isGreaterThan(1.5);
        assertThat(singleFile.get("none").maxAvgSplits()).isLessThan(1.15);
        assertThat(results.get("none").maxAvgSplits()).isLessThan(1.15);
    }

    @Test
    void onlyPreferredWorkersCache()
    {
        // with FILE granularity (an earlier default) each file is cached by about its preferred workers; with SPLIT (the default) each split
        // is, so a file's splits spread over up to as many workers; under NO_PREFERENCE by whoever read it
        assertThat(fileKeys.copiesPerCachedFile()).isBetween(1.0, 2.0);
        assertThat(results.get("overdrive").copiesPerCachedFile()).isBetween(1.0, SMALL.splitsPerFile() + 1.0);
        assertThat(results.get("overdrive-lru").copiesPerCachedFile()).isBetween(1.0, SMALL.splitsPerFile() + 1.0);
        assertThat(results.get("none").copiesPerCachedFile()).isGreaterThan(2 * fileKeys.copiesPerCachedFile());
        for (String policy : List.of("overdrive", "overdrive-reported", "overdrive-lru", "overdrive-earlier")) {
            assertThat(results.get(policy).hitRatio()).as(policy).isGreaterThan(results.get("none").hitRatio());
        }
        assertThat(fileKeys.hitRatio()).isGreaterThan(results.get("none").hitRatio());
    }

    @Test
    void remapOnJoinAndLeaveIsAboutOneOverN()
    {
        double ideal = 1.0 / (SMALL.workers() + 1);
        for (String policy : List.of("overdrive", "overdrive-reported", "overdrive-lru", "overdrive-earlier", "trino", "presto-consistent")) {
            SimulationResult result = results.get(policy);
            assertThat(result.idealRemap()).isEqualTo(ideal);
            assertThat(result.remapJoin()).as(policy + " join").isBetween(0.5 * ideal, 1.6 * ideal);
            assertThat(result.remapLeave()).as(policy + " leave").isBetween(0.5 * ideal, 1.6 * ideal);
        }
        // every key of this lake is counted (8,000, of which 1/41 is 195): rendezvous hashing moves only the keys of the
        // worker that joined or left, its share of the keys, within the binomial spread of about 7%
        assertThat(results.get("overdrive").remapJoin()).isBetween(0.8 * ideal, 1.2 * ideal);
        assertThat(results.get("overdrive").remapLeave()).isBetween(0.8 * ideal, 1.2 * ideal);
        // the placer's own PlacementStats figure, over its recently placed keys
        assertThat(results.get("overdrive").placerRemapJoin()).isBetween(0.5 * ideal, 1.6 * ideal);
        assertThat(results.get("overdrive").placerRemapLeave()).isBetween(0.5 * ideal, 1.6 * ideal);
        // modular hashing moves almost every file
        assertThat(results.get("presto-modular").remapJoin()).isGreaterThan(0.9);
        assertThat(results.get("presto-modular").remapLeave()).isGreaterThan(0.9);
        assertThat(results.get("none").hasPreferences()).isFalse();
    }

    @Test
    void affinityKeepsUpOnTheSmallClusterAndTrinosHostsAreASetting()
    {
        // 40 workers at 75% load (of the reference hit ratio): every policy with affinity but Trino with one host per key
        // drains its queues within seconds of the last arrival
        results.values().stream()
                .filter(result -> !result.policy().equals("trino-hosts-1") && !result.policy().equals("none"))
                .forEach(result -> assertThat(result.keptUp()).as(result.policy() + " drained after %.1f s", result.drainSeconds()).isTrue());
        // without affinity almost every split misses: the slower splits ask more than the cluster has
        assertThat(results.get("none").keptUp()).isFalse();
        assertThat(results.get("none").hitRatio()).isLessThan(0.2);
        // one host per key has nowhere to put a hot key's splits but that host
        assertThat(results.get("trino-hosts-1").maxAvgSplits()).isGreaterThan(results.get("trino").maxAvgSplits());
        // Trino's cache-preferred-hosts-count changes its placement: one host per bucket caches each split once, more
        // hosts cache more copies
        SimulationResult oneHost = results.get("trino-hosts-1");
        assertThat(oneHost.copiesPerCachedFile()).isLessThan(results.get("trino").copiesPerCachedFile());
        assertThat(results.get("trino-hosts-8").copiesPerCachedFile()).isGreaterThan(results.get("trino").copiesPerCachedFile());
        assertThat(oneHost.alternativeShare()).isZero();
    }

    @Test
    void aSeedGivesTheSameRun()
    {
        assertThat(Simulator.run(SMALL, "overdrive")).isEqualTo(results.get("overdrive"));
        assertThat(Simulator.run(SMALL, "trino")).isEqualTo(results.get("trino"));
        assertThat(Simulator.run(SMALL, "overdrive-reported")).isEqualTo(results.get("overdrive-reported"));
        SimulationResult otherSeed = Simulator.run(SMALL.withSeed(8), "overdrive");
        assertThat(otherSeed.checksum()).isNotEqualTo(results.get("overdrive").checksum());
    }

    @Test
    void reportedLoadsKeepUpWithAffinityAndShortQueues()
    {
        int floor = (int) new NodeSelectionConfig().getLoadFloor();
        for (Map<String, SimulationResult> scenario : List.of(results, singleFile)) {
            SimulationResult reported = scenario.get("overdrive-reported");
            SimulationResult overdrive = scenario.get("overdrive");
            SimulationResult trino = scenario.get("trino");
            String name = scenario == results ? "table ranges" : "one hot file per query";
            assertThat(reported.keptUp()).as("%s: drained after %.1f s", name, reported.drainSeconds()).isTrue();
            // balancing by the workers' counts keeps the affinity of balancing by the placer's own
            assertThat(reported.hitRatio()).as(name).isGreaterThan(overdrive.hitRatio() - 0.03);
            // the bound holds a worker's splits near the floor (16 standard splits) where rendezvous placement alone piles
            // up a hot key's splits on its hosts
            assertThat(reported.maxAssigned()).as(name + ": most splits on a worker").isLessThan(2 * floor).isLessThan(trino.maxAssigned());
            assertThat(reported.queryP95()).as(name + ": query P95").isLessThan(trino.queryP95());
        }
        // every placement but those of the moments after the join, before the joined worker's first answer, is by reports
        SimulationResult reported = results.get("overdrive-reported");
        assertThat(reported.placedByReportedLoads()).isGreaterThan(50 * reported.placedByPlacedLoads());
        assertThat(reported.placedByPlacedLoads()).isPositive();
        assertThat(results.get("overdrive").placedByReportedLoads()).isZero();
        assertThat(results.get("overdrive").placedByPlacedLoads()).isPositive();
    }

    @Test
    void pollerReportsEachWorkersOutstandingSplitsAndRate()
    {
        long[] now = {1_000_000_000L};
        Ticker ticker = ticker(now);
        PolledLoads loads = new PolledLoads(ticker);
        SimWorker worker = new SimWorker("worker-0000", 0, 10);
        SimWorker joiner = new SimWorker("worker-0001", 1, 10);
        assertThat(loads.report(worker.nodeId)).as("not polled yet").isNull();
        Query query = new Query(0, 0, true, 3);
        for (int index = 0; index < 3; index++) {
            query.splits[index] = new SplitTask(query, 0, index, index, index);
        }
        worker.running.add(query.splits[0]);
        worker.running.add(query.splits[1]);
        worker.queue.add(query.splits[2]);
        worker.completedSplits = 40;
        loads.poll(List.of(worker));
        // the first answer: no rate yet
        assertThat(loads.report(worker.nodeId)).isEqualTo(new LoadReport(3, 0, now[0]));
        assertThat(loads.report(joiner.nodeId)).isNull();

        now[0] += PolledLoads.POLL_INTERVAL_NANOS;
        worker.running.remove(query.splits[0]);
        worker.completedSplits = 50;
        loads.poll(List.of(worker, joiner));
        // 10 splits completed in half a second
        assertThat(loads.report(worker.nodeId)).isEqualTo(new LoadReport(2, 20, now[0]));
        assertThat(loads.report(joiner.nodeId)).isEqualTo(new LoadReport(0, 0, now[0]));
        // used up to three intervals old, not after
        now[0] += PolledLoads.MAX_AGE_NANOS;
        assertThat(loads.report(worker.nodeId)).isNotNull();
        now[0]++;
        assertThat(loads.report(worker.nodeId)).isNull();
        assertThat(loads.report(joiner.nodeId)).isNull();
    }

    @Test
    void placerUsesReportsWhileEveryWorkerHasAFreshOne()
    {
        long[] now = {0};
        Lake lake = Lake.of(SMALL);
        OverdrivePolicy policy = new OverdrivePolicy("overdrive-reported", SMALL, lake, ticker(now), true, true);
        assertThat(policy.loadPollIntervalNanos()).isEqualTo(PolledLoads.POLL_INTERVAL_NANOS);
        assertThat(new OverdrivePolicy("overdrive", SMALL, lake, ticker(now), true, false).loadPollIntervalNanos()).isZero();
        List<SimWorker> workers = new ArrayList<>();
        for (int number = 0; number < 3; number++) {
            workers.add(new SimWorker("worker-%04d".formatted(number), number, 10));
        }
        policy.setLive(workers);
        PlacementStats stats = policy.stats();
        Query query = new Query(0, 0, true, 100);

        // no worker has answered yet: the placer's own account
        placeSplits(policy, query, 0, 4);
        assertThat(stats.getPlacedByPlacedLoads().getTotalCount()).isEqualTo(4);
        assertThat(stats.getPlacedByReportedLoads().getTotalCount()).isZero();

        policy.pollLoads();
        placeSplits(policy, query, 4, 4);
        assertThat(stats.getPlacedByReportedLoads().getTotalCount()).isEqualTo(4);

        // a worker joins: until it answers, the placer falls back to its own account for every split
        workers.add(new SimWorker("worker-0003", 3, 10));
        policy.setLive(workers);
        now[0] += PolledLoads.POLL_INTERVAL_NANOS / 2;
        placeSplits(policy, query, 8, 4);
        assertThat(stats.getPlacedByPlacedLoads().getTotalCount()).isEqualTo(8);
        assertThat(stats.getPlacedByReportedLoads().getTotalCount()).isEqualTo(4);

        now[0] += PolledLoads.POLL_INTERVAL_NANOS / 2;
        policy.pollLoads();
        placeSplits(policy, query, 12, 4);
        assertThat(stats.getPlacedByReportedLoads().getTotalCount()).isEqualTo(8);

        // the poller stops: once the answers are more than three intervals old they are not used
        now[0] += PolledLoads.MAX_AGE_NANOS + 1;
        placeSplits(policy, query, 16, 4);
        assertThat(stats.getPlacedByPlacedLoads().getTotalCount()).isEqualTo(12);
        assertThat(stats.getPlacedByReportedLoads().getTotalCount()).isEqualTo(8);
    }

    private static void placeSplits(OverdrivePolicy policy, Query query, int first, int count)
    {
        for (int index = first; index < first + count; index++) {
            SplitTask split = new SplitTask(query, index, 0, index, index);
            query.splits[index] = split;
            assertThat(policy.place(split)).isNotNull();
        }
    }

    private static Ticker ticker(long[] now)
    {
        return new Ticker()
        {
            @Override
            public long read()
            {
                return now[0];
            }
        };
    }

    @Test
    void cacheEvictsTheLeastRecentlyUsed()
    {
        SimWorker worker = new SimWorker("worker-0000", 0, 2);
        worker.cache(1);
        worker.cache(2);
        assertThat(worker.readCached(1)).isTrue();
        worker.cache(3);
        assertThat(worker.readCached(2)).as("least recently used, evicted").isFalse();
        assertThat(worker.readCached(1)).isTrue();
        assertThat(worker.readCached(3)).isTrue();
        worker.loseCache();
        assertThat(worker.readCached(1)).isFalse();
    }

    @Test
    void overdrivesCacheAdmitsOnlyRepeatedReadsOnceFull()
    {
        SimWorker worker = new SimWorker("worker-0000", 0, 2, true);
        // while there is room every read is cached, as Overdrive's page cache does
        assertThat(worker.readCached(1)).isFalse();
        worker.cache(1);
        assertThat(worker.readCached(2)).isFalse();
        worker.cache(2);
        assertThat(worker.readCached(1)).isTrue();
        assertThat(worker.readCached(2)).isTrue();
        // full: data read once is turned away and evicts nothing
        assertThat(worker.readCached(3)).isFalse();
        worker.cache(3);
        assertThat(worker.admissionRejections).isEqualTo(1);
        assertThat(worker.cachedChunks()).containsExactly(1L, 2L);
        // read again (the default cache.admission.min-frequency is 2), it gets in and evicts the least recently used
        assertThat(worker.readCached(3)).isFalse();
        worker.cache(3);
        assertThat(worker.cachedChunks()).containsExactly(2L, 3L);
        assertThat(worker.admissionRejections).isEqualTo(1);

        // without admission (Trino's and Presto's caches) the first read gets in
        SimWorker lru = new SimWorker("worker-0001", 1, 2, false);
        lru.cache(1);
        lru.cache(2);
        assertThat(lru.readCached(3)).isFalse();
        lru.cache(3);
        assertThat(lru.cachedChunks()).containsExactly(2L, 3L);
        assertThat(lru.admissionRejections).isZero();
    }

    @Test
    void onlyOverdrivesWorkersAdmit()
    {
        // every Overdrive policy caches through admission, which turns data away once caches are full; the references never do
        for (String policy : List.of("overdrive", "overdrive-reported", "overdrive-earlier")) {
            assertThat(results.get(policy).admissionRejections()).as(policy).isPositive();
        }
        for (String policy : List.of("overdrive-lru", "trino", "presto-consistent", "none")) {
            assertThat(results.get(policy).admissionRejections()).as(policy).isZero();
        }
    }

    @Test
    void writesTheReportAndItsCharts(@TempDir Path directory)
            throws Exception
    {
        List<Run> runs = results.values().stream()
                .map(result -> new Run(PlacementReport.MAIN, result.policy(), SMALL, result, 0.1, 0.1, Double.NaN))
                .toList();
        String report = PlacementReport.render(runs, Instant.EPOCH, 1, true, SMALL.seed());
        assertThat(report)
                .contains("## Model", "## 40 workers", "| `overdrive` |", "| `overdrive-reported` |", "| `presto-modular` |", "| kept up |")
                .contains("- `overdrive-reported`: `overdrive` with its load signal")
                .contains("%.3f".formatted(results.get("trino").hitRatio()));
        List<Path> charts = PlacementCharts.write(directory, runs);
        assertThat(charts).hasSize(3);
        for (Path chart : charts) {
            BufferedImage image = ImageIO.read(chart.toFile());
            assertThat(image).as(chart.toString()).isNotNull();
            assertThat(image.getWidth()).isEqualTo(900);
        }
    }

    @Test
    void roundsCompareOverdriveWithEveryPolicyOverSeeds()
    {
        List<List<Run>> seeds = new ArrayList<>();
        for (long seed = 7; seed < 10; seed++) {
            SimulationConfig config = SMALL.withSeed(seed);
            String variant = "seed " + seed;
            seeds.add(List.of("overdrive", "trino", "none", "overdrive-reported").stream()
                    .map(policy -> new Run(PlacementReport.MAIN, variant, config, Simulator.run(config, policy), 0.1, 0.1, Double.NaN))
                    .toList());
        }
        // the ratio of the sums over the seeds, and an interval around it drawn from the seeds
        double overdrive = seeds.stream().mapToDouble(runs -> runs.get(0).result().queryP95()).sum();
        double trino = seeds.stream().mapToDouble(runs -> runs.get(1).result().queryP95()).sum();
        Estimate estimate = PlacementRounds.estimate(seeds, "trino", SimulationResult::queryP95);
        assertThat(estimate.ratio()).isCloseTo(overdrive / trino, within(1e-6));
        assertThat(estimate.rounds()).isEqualTo(3);
        assertThat(estimate.low()).isLessThanOrEqualTo(estimate.ratio());
        assertThat(estimate.high()).isGreaterThanOrEqualTo(estimate.ratio());
        assertThat(estimate.roundRatios()).hasSize(3);
        for (int seed = 0; seed < 3; seed++) {
            assertThat(estimate.roundRatios().get(seed)).isCloseTo(seeds.get(seed).get(0).result().queryP95() / seeds.get(seed).get(1).result().queryP95(), within(1e-6));
        }
        // the miss ratio: lower is better, as for time
        double overdriveMisses = seeds.stream().mapToDouble(runs -> 1 - runs.get(0).result().hitRatio()).sum();
        double noneMisses = seeds.stream().mapToDouble(runs -> 1 - runs.get(2).result().hitRatio()).sum();
        assertThat(PlacementRounds.estimate(seeds, "none", result -> 1 - result.hitRatio()).ratio()).isCloseTo(overdriveMisses / noneMisses, within(1e-5));

        String report = PlacementRounds.render(seeds, Instant.EPOCH, 1, true);
        assertThat(report)
                .contains("### Placement at 40 workers, 3 seeds", "seeds 7, 8, 9", "| `overdrive` |", "| `none` |")
                .contains("| `trino` | %.3f |".formatted(seeds.stream().mapToDouble(runs -> runs.get(1).result().hitRatio()).average().orElseThrow()))
                .contains(estimate.ratioText() + " | " + estimate.intervalText() + " | " + estimate.verdict().label());
        // overdrive-reported against each policy, in a table of its own
        Estimate reported = PlacementRounds.estimate(seeds, "overdrive-reported", "trino", SimulationResult::queryP95);
        double reportedP95 = seeds.stream().mapToDouble(runs -> runs.get(3).result().queryP95()).sum();
        assertThat(reported.ratio()).isCloseTo(reportedP95 / trino, within(1e-6));
        assertThat(report)
                .contains("#### `overdrive-reported` (with the load signal) against each policy", "| `overdrive-reported`'s P95 / its |")
                .contains(reported.ratioText() + " | " + reported.intervalText() + " | " + reported.verdict().label());
        assertThatThrownBy(() -> PlacementRounds.render(List.of(List.of(seeds.getFirst().get(1))), Instant.EPOCH, 1, true))
                .hasMessageContaining("no overdrive policy");
    }
}
