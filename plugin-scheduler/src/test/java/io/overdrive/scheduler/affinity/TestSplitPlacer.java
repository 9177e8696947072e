package io.overdrive.scheduler.affinity;

import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.HARD_AFFINITY;
import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.NO_PREFERENCE;
import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.SOFT_AFFINITY;
import static io.overdrive.scheduler.affinity.PlacementKind.ALTERNATIVE;
import static io.overdrive.scheduler.affinity.PlacementKind.FALLBACK;
import static io.overdrive.scheduler.affinity.PlacementKind.PREFERRED;
import static io.overdrive.scheduler.affinity.Workers.FROZEN;
import static io.overdrive.scheduler.affinity.Workers.fileKey;
import static io.overdrive.scheduler.affinity.Workers.workers;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

public class TestSplitPlacer
{
    private static final double EPSILON = 0.25;
    private static final int FILES = 10_000;
    private static final int SPLITS = 100_000;

    @Test
    public void testBoundedLoadUnderZipfSkew()
    {
        // 3 workers: the hottest file (about 15% of the splits) fits on its two preferred workers and stays there
        assertBoundedLoadUnderZipfSkew(3, false);
        // 10 workers: its two preferred workers fill up, and it overflows down its own rendezvous order
        assertBoundedLoadUnderZipfSkew(10, true);
    }

    private static void assertBoundedLoadUnderZipfSkew(int workerCount, boolean hotFileOverflows)
    {
        Membership membership = Membership.of(workers(workerCount));
        SplitPlacer placer = softPlacer(membership, new PlacementStats());
        ZipfKeys zipf = new ZipfKeys(FILES, 1.1, 7);
        Map<PlacementKind, Integer> kinds = new EnumMap<>(PlacementKind.class);
        int coldSplits = 0;
        int coldOnPreferredWorkers = 0;
        Set<Worker> hotFileWorkers = new HashSet<>();
        long[] unboundedLoads = new long[workerCount];
        for (int split = 0; split < SPLITS; split++) {
            int rank = zipf.nextRank();
            Placement placement = placer.place(fileKey(rank), 1).orElseThrow();
            kinds.merge(placement.kind(), 1, Integer::sum);
            if (rank > FILES / 100) {
                coldSplits++;
                if (placement.kind().isPreferredWorker()) {
                    coldOnPreferredWorkers++;
                }
            }
            if (rank == 1) {
                hotFileWorkers.add(placement.worker());
            }
            unboundedLoads[membership.workers().indexOf(membership.preferenceOrder(fileKey(rank), 1).getFirst())]++;
        }

        PlacementSummary summary = placer.summary();
        long capacity = (long) Math.ceil((1 + EPSILON) * SPLITS / workerCount);
        double coldFraction = (double) coldOnPreferredWorkers / coldSplits;
        double unboundedImbalance = (double) Arrays.stream(unboundedLoads).max().orElseThrow() / SPLITS * workerCount;
        System.out.printf("Zipf 1.1, %d workers: max %d, avg %.1f, max/avg %.4f (bound %d; plain rendezvous max/avg %.3f); %s; cold keys on preferred or alternative %.4f; hottest file on %d workers%n",
                workerCount, summary.maxSplits(), summary.averageSplits(), summary.imbalance(), capacity, unboundedImbalance, kinds, coldFraction, hotFileWorkers.size());

        assertThat(summary.totalSplits()).isEqualTo(SPLITS);
        assertThat(summary.maxSplits()).isLessThanOrEqualTo(capacity);
        assertThat(summary.imbalance()).isLessThanOrEqualTo(1 + EPSILON + (double) workerCount / SPLITS);
        // without the bound the skew would break it: the test above can fail
        assertThat(unboundedImbalance).isGreaterThan(1 + EPSILON);
        assertThat(coldFraction).isGreaterThan(0.95);
        if (hotFileOverflows) {
            assertThat(hotFileWorkers).hasSizeGreaterThan(2);
        }
        else {
            assertThat(hotFileWorkers).containsExactlyInAnyOrderElementsOf(membership.preferenceOrder(fileKey(1), 2));
        }
    }

    @Test
    public void testHotFileSpreadsOnceItsPreferredWorkersAreFull()
    {
        Membership membership = Membership.of(workers(5));
        SplitPlacer placer = softPlacer(membership, new PlacementStats());
        List<Worker> preferred = membership.preferenceOrder("hot", 2);
        // interleave a hot file with cold ones: the hot file's first splits go to its preferred pair
        assertThat(placer.place("hot", 1).orElseThrow()).isEqualTo(new Placement(preferred.get(0), PREFERRED));
        Map<Worker, Integer> hot = new HashMap<>();
        for (int split = 0; split < 10_000; split++) {
            Placement placement = placer.place(split % 2 == 0 ? "hot" : fileKey(split), 1).orElseThrow();
            if (split % 2 == 0) {
                hot.merge(placement.worker(), 1, Integer::sum);
                if (!preferred.contains(placement.worker())) {
                    assertThat(placement.kind()).isEqualTo(FALLBACK);
                }
            }
        }
        // half the splits are hot: its two preferred workers fill up to capacity, the rest walks on down its order
        long capacity = (long) Math.ceil((1 + EPSILON) * 10_001 / 5);
        assertThat(hot.keySet()).hasSizeGreaterThan(2).containsExactlyInAnyOrderElementsOf(membership.preferenceOrder("hot", hot.size()));
        assertThat(hot.get(preferred.get(0)) + hot.get(preferred.get(1))).isGreaterThan(hot.values().stream().mapToInt(Integer::intValue).sum() / 2);
        assertThat(placer.summary().maxSplits()).isLessThanOrEqualTo(capacity);
    }

    @Test
    public void testBusyWorkersAreSkipped()
    {
        Membership membership = Membership.of(workers(4));
        String key = fileKey(1);
        List<Worker> order = membership.preferenceOrder(key, 4);
        Map<Worker, WorkerLoad> loads = new HashMap<>();
        WorkerLoads engine = worker -> loads.getOrDefault(worker, WorkerLoad.IDLE);
        BusyLimits limits = new BusyLimits(10, 2);
        SplitPlacer placer = placer(() -> membership, false, 100, engine, limits, new PlacementStats());

        assertThat(placer.place(key, 1).orElseThrow()).isEqualTo(new Placement(order.get(0), PREFERRED));

        // over max-splits-per-node but with room in its task queue: the engine still takes splits there
        loads.put(order.get(0), new WorkerLoad(10, 1));
        assertThat(placer.place(key, 1).orElseThrow()).isEqualTo(new Placement(order.get(0), PREFERRED));

        loads.put(order.get(0), new WorkerLoad(10, 2));
        assertThat(placer.place(key, 1).orElseThrow()).isEqualTo(new Placement(order.get(1), ALTERNATIVE));

        loads.put(order.get(1), new WorkerLoad(50, 50));
        Placement fallback = placer.place(key, 1).orElseThrow();
        assertThat(fallback.kind()).isEqualTo(FALLBACK);
        assertThat(fallback.worker()).isIn(order.get(2), order.get(3));

        // every worker busy: placed as if none were, the engine queues it on the preferred worker
        for (Worker worker : order) {
            loads.put(worker, new WorkerLoad(10, 2));
        }
        assertThat(placer.place(key, 1).orElseThrow()).isEqualTo(new Placement(order.get(0), PREFERRED));
    }

    @Test
    public void testPeerIsTheFirstWorkerOfTheOrderOtherThanTheChosenOne()
    {
        Membership membership = Membership.of(workers(5));
        Map<Worker, WorkerLoad> loads = new HashMap<>();
        WorkerLoads engine = worker -> loads.getOrDefault(worker, WorkerLoad.IDLE);
        SplitPlacer placer = placer(() -> membership, false, 100, engine, new BusyLimits(10, 2), new PlacementStats());
        for (int file = 0; file < 200; file++) {
            String key = fileKey(file);
            List<Worker> order = membership.preferenceOrder(key, 5);
            loads.clear();
            Placement preferred = placer.place(key, 1).orElseThrow();
            assertThat(preferred.worker()).isEqualTo(order.get(0));
            // on its file's first worker: the next one, which held the file before the first one joined
            assertThat(placer.peer(key, preferred)).contains(order.get(1));
            // off it (the first one busy): the first one, which holds it
            loads.put(order.get(0), new WorkerLoad(10, 2));
            Placement moved = placer.place(key, 1).orElseThrow();
            assertThat(moved.worker()).isNotEqualTo(order.get(0));
            assertThat(placer.peer(key, moved)).contains(order.get(0));
        }
        SplitPlacer alone = placer(() -> Membership.of(workers(1)), false, 100, engine, new BusyLimits(10, 2), new PlacementStats());
        assertThat(alone.peer(fileKey(1), alone.place(fileKey(1), 1).orElseThrow())).as("a single worker has no peer").isEmpty();
    }

    @Test
    public void testRemovedWorkerGetsNoFurtherSplits()
    {
        List<Worker> all = workers(6);
        Worker leaving = all.get(3);
        AtomicReference<Membership> membership = new AtomicReference<>(Membership.of(all));
        PlacementStats stats = new PlacementStats();
        SplitPlacer placer = softPlacer(membership::get, stats);
        ZipfKeys zipf = new ZipfKeys(FILES, 1.1, 11);
        for (int split = 0; split < 20_000; split++) {
            assertThat(placer.place(fileKey(zipf.nextRank()), 1)).isPresent();
        }
        assertThat(placer.summary().splitsPerNode().get(leaving.nodeId())).isPositive();

        membership.set(Membership.of(all.stream().filter(worker -> !worker.equals(leaving)).toList()));
        for (int split = 0; split < 20_000; split++) {
            assertThat(placer.place(fileKey(zipf.nextRank()), 1).orElseThrow().worker()).isNotEqualTo(leaving);
        }
        PlacementSummary summary = placer.summary();
        assertThat(summary.splitsPerNode()).doesNotContainKey(leaving.nodeId()).hasSize(5);
        // the bound holds over the live workers, counting what they took before the leave
        long live = summary.totalSplits();
        assertThat(summary.maxSplits()).isLessThanOrEqualTo((long) Math.ceil((1 + EPSILON) * live / 5));

        // it joins again: it starts empty (its old load left with it), and takes splits again up to the bound
        long before = summary.totalSplits();
        membership.set(Membership.of(all));
        for (int split = 0; split < 20_000; split++) {
            assertThat(placer.place(fileKey(zipf.nextRank()), 1)).isPresent();
        }
        assertThat(placer.summary().splitsPerNode()).hasSize(6);
        Map<String, Double> loads = stats.loadsSnapshot();
        assertThat(loads.get(leaving.nodeId())).isPositive();
        assertThat(loads.values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(before + 20_000);
        assertThat(loads.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow()).isLessThanOrEqualTo((1 + EPSILON) * (before + 20_000) / 6 + 1);
    }

    @Test
    public void testHardAffinityPinsToTheFirstLivePreferredWorker()
    {
        List<Worker> all = workers(5);
        AtomicReference<Membership> membership = new AtomicReference<>(Membership.of(all));
        BusyLimits limits = new BusyLimits(1, 1);
        WorkerLoads allBusy = worker -> new WorkerLoad(100, 100);
        SplitPlacer placer = placer(membership::get, true, EPSILON, allBusy, limits, new PlacementStats());
        String key = fileKey(42);
        Worker first = membership.get().preferenceOrder(key, 1).getFirst();
        for (int split = 0; split < 1_000; split++) {
            assertThat(placer.place(key, 1).orElseThrow()).isEqualTo(new Placement(first, PREFERRED));
        }
        assertThat(placer.summary().maxSplits()).isEqualTo(1_000);

        Worker second = membership.get().preferenceOrder(key, 2).get(1);
        membership.set(Membership.of(all.stream().filter(worker -> !worker.equals(first)).toList()));
        assertThat(placer.place(key, 1).orElseThrow()).isEqualTo(new Placement(second, PREFERRED));
    }

    @Test
    public void testNoLiveWorkerLeavesTheSplitToTheEngine()
    {
        PlacementStats stats = new PlacementStats();
        SplitPlacer placer = softPlacer(Membership.empty(), stats);
        assertThat(placer.place(fileKey(1), 1)).isEmpty();
        assertThat(stats.getUnplaced().getTotalCount()).isEqualTo(1);
        assertThat(placer.summary().totalSplits()).isZero();
    }

    @Test
    public void testDeterministicForAGivenMembership()
    {
        Membership membership = Membership.of(workers(7));
        SplitPlacer first = softPlacer(membership, new PlacementStats());
        SplitPlacer second = softPlacer(Membership.of(workers(7).reversed()), new PlacementStats());
        ZipfKeys zipf = new ZipfKeys(FILES, 1.1, 3);
        for (int split = 0; split < 50_000; split++) {
            String key = fileKey(zipf.nextRank());
            assertThat(second.place(key, 1)).isEqualTo(first.place(key, 1));
        }
    }

    @Test
    public void testConcurrentPlacementKeepsTheBound()
            throws Exception
    {
        int threads = 8;
        int workerCount = 10;
        Membership membership = Membership.of(workers(workerCount));
        PlacementStats stats = new PlacementStats();
        SplitPlacer placer = softPlacer(membership, stats);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Map<String, Long>>> results = new ArrayList<>();
        try (ExecutorService executor = Executors.newFixedThreadPool(threads)) {
            for (int thread = 0; thread < threads; thread++) {
                ZipfKeys zipf = new ZipfKeys(FILES, 1.1, 100 + thread);
                results.add(executor.submit(() -> {
                    Map<String, Long> placed = new HashMap<>();
                    start.await();
                    for (int split = 0; split < SPLITS / threads; split++) {
                        placed.merge(placer.place(fileKey(zipf.nextRank()), 1).orElseThrow().worker().nodeId(), 1L, Long::sum);
                    }
                    return placed;
                }));
            }
            start.countDown();
        }
        Map<String, Long> placedByThreads = new HashMap<>();
        for (Future<Map<String, Long>> result : results) {
            result.get().forEach((nodeId, splits) -> placedByThreads.merge(nodeId, splits, Long::sum));
        }

        PlacementSummary summary = placer.summary();
        assertThat(summary.totalSplits()).isEqualTo(SPLITS);
        assertThat(summary.splitsPerNode()).isEqualTo(placedByThreads);
        assertThat(stats.splitsPerNodeSnapshot()).isEqualTo(placedByThreads);
        assertThat(stats.getPreferred().getTotalCount() + stats.getAlternative().getTotalCount() + stats.getFallback().getTotalCount())
                .isEqualTo(SPLITS);
        assertThat(summary.maxSplits()).isLessThanOrEqualTo((long) Math.ceil((1 + EPSILON) * SPLITS / workerCount));
    }

    @Test
    public void testFactory()
    {
        PlacementStats stats = new PlacementStats();
        Membership membership = Membership.of(workers(3));
        assertThat(factory(NO_PREFERENCE, membership, stats).createPlacer(WorkerLoads.UNKNOWN)).isEmpty();

        SplitPlacer soft = factory(SOFT_AFFINITY, membership, stats).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        SplitPlacer hard = factory(HARD_AFFINITY, membership, stats).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        Set<PlacementKind> softKinds = new HashSet<>();
        for (int split = 0; split < 300; split++) {
            softKinds.add(soft.place("one file", 1).orElseThrow().kind());
            assertThat(hard.place("one file", 1).orElseThrow().kind()).isEqualTo(PREFERRED);
        }
        assertThat(softKinds).containsExactlyInAnyOrder(PREFERRED, ALTERNATIVE, FALLBACK);
        assertThat(soft.summary().maxSplits()).isLessThanOrEqualTo((long) Math.ceil((1 + EPSILON) * 300 / 3));
        assertThat(hard.summary().maxSplits()).isEqualTo(300);

        soft.finish();
        assertThat(stats.getLastQueryImbalance()).isEqualTo(soft.summary().imbalance());
        assertThat(stats.getPreferred().getTotalCount() + stats.getAlternative().getTotalCount() + stats.getFallback().getTotalCount())
                .isEqualTo(600);
    }

    private static SplitPlacerFactory factory(NodeSelectionStrategy strategy, Membership membership, PlacementStats stats)
    {
        NodeSelectionConfig config = new NodeSelectionConfig()
                .setNodeSelectionStrategy(strategy)
                .setPreferredHostsCount(2)
                .setLoadBalanceEpsilon(EPSILON)
                .setLoadFloor(0);
        return new SplitPlacerFactory(config, () -> membership, BusyLimits.TRINO_DEFAULTS, stats, 1, FROZEN);
    }

    private static SplitPlacer softPlacer(Membership membership, PlacementStats stats)
    {
        return softPlacer(() -> membership, stats);
    }

    private static SplitPlacer softPlacer(Supplier<Membership> membership, PlacementStats stats)
    {
        return placer(membership, false, EPSILON, WorkerLoads.UNKNOWN, BusyLimits.TRINO_DEFAULTS, stats);
    }

    // a placer with a load account of its own that never decays (a frozen clock)
    private static SplitPlacer placer(Supplier<Membership> membership, boolean pinned, double epsilon, WorkerLoads engineLoads, BusyLimits limits, PlacementStats stats)
    {
        return new SplitPlacer(new PlacedLoad(membership, new Duration(10, SECONDS), FROZEN, stats), pinned, 2, epsilon, 0, engineLoads, limits, stats);
    }
}
