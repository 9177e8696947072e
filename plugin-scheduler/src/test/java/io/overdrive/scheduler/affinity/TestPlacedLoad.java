package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.SOFT_AFFINITY;
import static io.overdrive.scheduler.affinity.PlacementKind.ALTERNATIVE;
import static io.overdrive.scheduler.affinity.PlacementKind.FALLBACK;
import static io.overdrive.scheduler.affinity.PlacementKind.PREFERRED;
import static io.overdrive.scheduler.affinity.Workers.fileKey;
import static io.overdrive.scheduler.affinity.Workers.worker;
import static io.overdrive.scheduler.affinity.Workers.workers;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The catalog's shared, decaying load account: checked against a plain model of the algorithm over random operation
 * sequences (placements by several concurrent scans, clock advances, joins and leaves), and for the properties issue
 * #12 asks of it: the bound over all queries of the catalog, decay, and remap on membership changes.
 */
public class TestPlacedLoad
{
    private static final double EPSILON = 0.25;
    private static final Duration HALF_LIFE = new Duration(10, SECONDS);

    @Test
    public void testMatchesAModelOfTheAlgorithm()
    {
        for (int seed = 0; seed < 40; seed++) {
            runAgainstModel(seed);
        }
    }

    private static void runAgainstModel(long seed)
    {
        Random random = new Random(seed);
        ManualTicker ticker = new ManualTicker();
        List<Worker> pool = workers(3 + random.nextInt(10));
        List<Worker> live = new ArrayList<>(pool.subList(0, 2 + random.nextInt(pool.size() - 1)));
        AtomicReference<Membership> membership = new AtomicReference<>(Membership.of(live));
        PlacementStats stats = new PlacementStats();
        // no floor, or one of a few splits' weight, or one most workers stay below
        double floor = switch (random.nextInt(3)) {
            case 0 -> 0;
            case 1 -> 1 + random.nextInt(300);
            default -> 1 + random.nextInt(5_000);
        };
        SplitPlacerFactory factory = factory(membership, stats, ticker, floor);
        List<SplitPlacer> scans = new ArrayList<>();
        for (int scan = 0; scan < 1 + random.nextInt(5); scan++) {
            scans.add(factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow());
        }
        Model model = new Model(floor);
        ZipfKeys zipf = new ZipfKeys(200, 1.1, seed);
        for (int step = 0; step < 3_000; step++) {
            int operation = random.nextInt(100);
            if (operation < 10) {
                long nanos = (long) (random.nextDouble() * 4 * HALF_LIFE.roundTo(NANOSECONDS));
                ticker.advance(nanos);
                model.decay(nanos);
            }
            else if (operation < 12) {
                // a join or a leave, keeping at least one worker
                Worker changed = pool.get(random.nextInt(pool.size()));
                if (live.contains(changed) && live.size() > 1) {
                    live.remove(changed);
                }
                else if (!live.contains(changed)) {
                    live.add(changed);
                }
                // the placer sees it at its next placement, and so does the model
                membership.set(Membership.of(live));
            }
            else {
                String key = fileKey(zipf.nextRank());
                long weight = 1 + random.nextInt(random.nextBoolean() ? 5 : 200);
                Placement actual = scans.get(random.nextInt(scans.size())).place(key, weight).orElseThrow();
                model.adopt(membership.get());
                model.check(key, weight, actual);
            }
        }
        // and the account the MBean shows is the model's
        Map<String, Double> loads = stats.loadsSnapshot();
        assertThat(loads.keySet()).containsExactlyInAnyOrderElementsOf(model.loads.keySet());
        model.loads.forEach((nodeId, load) -> assertThat(loads.get(nodeId)).isCloseTo(load, within(1e-6 * Math.max(1, load))));
    }

    @Test
    public void testBoundHoldsOverAllConcurrentScans()
    {
        for (int seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            int workerCount = 3 + random.nextInt(30);
            ManualTicker ticker = new ManualTicker();
            PlacementStats stats = new PlacementStats();
            Membership membership = Membership.of(workers(workerCount));
            SplitPlacerFactory factory = factory(new AtomicReference<>(membership), stats, ticker);
            // concurrent queries over a few hot files: each scan alone would put its preferred share on the same workers
            List<SplitPlacer> scans = new ArrayList<>();
            for (int scan = 0; scan < 6; scan++) {
                scans.add(factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow());
            }
            ZipfKeys zipf = new ZipfKeys(20, 1.2, seed);
            long maxWeight = 0;
            for (int split = 0; split < 5_000; split++) {
                long weight = 1 + random.nextInt(100);
                maxWeight = Math.max(maxWeight, weight);
                assertThat(scans.get(split % scans.size()).place(fileKey(zipf.nextRank()), weight)).isPresent();
                ticker.advance(random.nextInt(20_000_000));
                Map<String, Double> loads = stats.loadsSnapshot();
                double total = loads.values().stream().mapToDouble(Double::doubleValue).sum();
                double max = loads.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                // one split's weight of slack: a worker just below capacity may take one more split
                assertThat(max).as("seed %s, split %s, loads %s", seed, split, loads)
                        .isLessThanOrEqualTo((1 + EPSILON) * total / workerCount + maxWeight + 1e-6);
            }
            // the sum is balanced; and no single scan's share matters any more
            assertThat(stats.getLoadImbalance()).isLessThanOrEqualTo(1 + EPSILON + (double) maxWeight * workerCount / 5_000);
        }
    }

    @Test
    public void testConcurrentScansOfAHotFileSpreadToAlternativesThenFallbacks()
    {
        ManualTicker ticker = new ManualTicker();
        PlacementStats stats = new PlacementStats();
        Membership membership = Membership.of(workers(6));
        SplitPlacerFactory factory = factory(new AtomicReference<>(membership), stats, ticker);
        List<Worker> order = membership.preferenceOrder("hot", 6);
        List<Worker> preferred = order.subList(0, 2);
        Map<PlacementKind, Integer> kinds = new HashMap<>();
        Map<Worker, Integer> perWorker = new HashMap<>();
        // six queries, each a scan of the same hot file, interleaved as concurrent split sources are
        List<SplitPlacer> scans = new ArrayList<>();
        for (int scan = 0; scan < 6; scan++) {
            scans.add(factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow());
        }
        for (int split = 0; split < 600; split++) {
            Placement placement = scans.get(split % 6).place("hot", 100).orElseThrow();
            kinds.merge(placement.kind(), 1, Integer::sum);
            perWorker.merge(placement.worker(), 1, Integer::sum);
        }
        // the preferred worker takes its bounded share, the alternative its share, the rest walks on down the file's
        // own order: four workers at the bound (1.25 / 6 of the weight each), the fifth the remaining sixth, the last none
        assertThat(perWorker.get(preferred.get(0))).isBetween(120, 126);
        assertThat(perWorker.get(preferred.get(1))).isBetween(120, 126);
        assertThat(kinds.get(PREFERRED) + kinds.get(ALTERNATIVE) + kinds.get(FALLBACK)).isEqualTo(600);
        assertThat(kinds.get(FALLBACK)).isGreaterThan(300);
        assertThat(perWorker.keySet()).containsExactlyInAnyOrderElementsOf(order.subList(0, 5));
        assertThat(perWorker.get(order.get(2))).isBetween(120, 126);
        assertThat(perWorker.get(order.get(3))).isBetween(120, 126);
        // each scan alone saw only a sixth of these splits: its own per-scan spread is no longer what bounds the load
        assertThat(stats.getLoadImbalance()).isLessThanOrEqualTo(1 + EPSILON + 6.0 / 600);
    }

    @Test
    public void testFloorKeepsADominantFileOnItsWorkerUntilItsLoadReachesTheFloor()
    {
        // two workers, sequential queries: one file takes most of the splits. Below the floor its worker keeps all of
        // them, however unequal the two loads; from the floor on, the relative bound applies
        for (double floor : new double[] {0, 16}) {
            ManualTicker ticker = new ManualTicker();
            PlacementStats stats = new PlacementStats();
            Membership membership = Membership.of(workers(2));
            SplitPlacerFactory factory = factory(new AtomicReference<>(membership), stats, ticker, floor);
            Worker dominantWorker = membership.preferenceOrder("lineitem", 1).getFirst();
            int moved = 0;
            for (int query = 0; query < 20; query++) {
                SplitPlacer scan = factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
                // 5 splits of the dominant file, 1 of another; each query's weight is gone before the next starts
                for (int split = 0; split < 5; split++) {
                    Placement placement = scan.place("lineitem", 1).orElseThrow();
                    if (!placement.worker().equals(dominantWorker)) {
                        moved++;
                        assertThat(placement.kind()).isEqualTo(ALTERNATIVE);
                    }
                }
                assertThat(scan.place(fileKey(query), 1)).isPresent();
                ticker.advance(HALF_LIFE.roundTo(NANOSECONDS) * 20);
            }
            if (floor == 0) {
                // the relative bound alone moves a dominant file's splits even though nothing is queued anywhere
                assertThat(moved).as("splits moved off the dominant file's worker without a floor").isPositive();
            }
            else {
                assertThat(moved).as("splits moved off the dominant file's worker below the floor").isZero();
            }
        }

        // a busy cluster: far above the floor, the bound holds as before, within one split of the floor or the bound
        ManualTicker ticker = new ManualTicker();
        PlacementStats stats = new PlacementStats();
        SplitPlacer scan = factory(new AtomicReference<>(Membership.of(workers(2))), stats, ticker, 16).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        for (int split = 0; split < 1_000; split++) {
            assertThat(scan.place(split % 6 == 5 ? fileKey(split) : "lineitem", 1)).isPresent();
            Map<String, Double> loads = stats.loadsSnapshot();
            double total = loads.values().stream().mapToDouble(Double::doubleValue).sum();
            double max = loads.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            assertThat(max).as("split %s, loads %s", split, loads).isLessThanOrEqualTo(Math.max(16, (1 + EPSILON) * total / 2) + 1 + 1e-9);
        }
        assertThat(stats.getLoadImbalance()).isLessThanOrEqualTo(1 + EPSILON + 2.0 / 1_000);
    }

    @Test
    public void testOverflowOfAHotFileStaysOnItsOwnStableWorkers()
    {
        // 20 workers, two hot files among cold ones that differ on every pass: each hot file's overflow walks its own
        // rendezvous order, so nearly the same few workers take it on every pass (the least loaded worker would differ)
        Membership membership = Membership.of(workers(20));
        Map<String, List<Worker>> firstPass = new HashMap<>();
        for (int pass = 0; pass < 3; pass++) {
            ManualTicker ticker = new ManualTicker();
            SplitPlacerFactory factory = factory(new AtomicReference<>(membership), new PlacementStats(), ticker, 4);
            List<SplitPlacer> scans = List.of(factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow(), factory.createPlacer(WorkerLoads.UNKNOWN).orElseThrow());
            Map<String, List<Worker>> used = new HashMap<>();
            for (int split = 0; split < 4_000; split++) {
                String key = switch (split % 4) {
                    case 0 -> "hot-a";
                    case 1 -> "hot-b";
                    default -> fileKey(pass * 1_000_000 + split);
                };
                Worker worker = scans.get(split % 2).place(key, 1).orElseThrow().worker();
                List<Worker> workers = used.computeIfAbsent(key, _ -> new ArrayList<>());
                if (!workers.contains(worker)) {
                    workers.add(worker);
                }
            }
            for (String hot : List.of("hot-a", "hot-b")) {
                List<Worker> workers = used.get(hot);
                // the head of the file's own order, but for a worker or two that other files had filled
                assertThat(membership.preferenceOrder(hot, workers.size() + 2)).as("%s, pass %s", hot, pass).containsAll(workers);
                assertThat(workers).as("%s spreads beyond its two preferred workers", hot).hasSizeGreaterThan(2).hasSizeLessThan(10);
                if (pass == 0) {
                    firstPass.put(hot, workers);
                }
                else {
                    List<Worker> common = new ArrayList<>(workers);
                    common.retainAll(firstPass.get(hot));
                    assertThat(common).as("%s: workers of pass %s also used on the first pass %s", hot, workers, firstPass.get(hot))
                            .hasSizeGreaterThanOrEqualTo(Math.min(workers.size(), firstPass.get(hot).size()) - 2);
                }
            }
        }
    }

    @Test
    public void testLoadDecaysWithTheHalfLife()
    {
        ManualTicker ticker = new ManualTicker();
        PlacementStats stats = new PlacementStats();
        Membership membership = Membership.of(workers(4));
        SplitPlacer placer = factory(new AtomicReference<>(membership), stats, ticker).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        Worker first = placer.place("old", 1_000).orElseThrow().worker();
        assertThat(stats.loadsSnapshot().get(first.nodeId())).isCloseTo(1_000, within(1e-9));
        ticker.advance(SECONDS.toNanos(10));
        assertThat(stats.loadsSnapshot().get(first.nodeId())).isCloseTo(500, within(1e-6));
        ticker.advance(SECONDS.toNanos(20));
        assertThat(stats.loadsSnapshot().get(first.nodeId())).isCloseTo(125, within(1e-6));
        // far beyond the landmark's rescaling point: still exact, and a split of "old" is back on its first choice
        ticker.advance(SECONDS.toNanos(3_600));
        assertThat(stats.loadsSnapshot().get(first.nodeId())).isCloseTo(0, within(1e-9));
        assertThat(placer.place("old", 1).orElseThrow()).isEqualTo(new Placement(first, PREFERRED));
        assertThat(stats.loadsSnapshot().get(first.nodeId())).isCloseTo(1, within(1e-9));
    }

    @Test
    public void testRemapOnJoinAndLeaveIsAboutOneNth()
    {
        for (int workerCount : new int[] {3, 10, 30, 100}) {
            List<Worker> all = workers(workerCount + 1);
            AtomicReference<Membership> membership = new AtomicReference<>(Membership.of(all.subList(0, workerCount)));
            PlacementStats stats = new PlacementStats();
            SplitPlacer placer = factory(membership, stats, new ManualTicker()).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
            Map<String, Worker> before = new HashMap<>();
            for (int file = 0; file < 20_000; file++) {
                assertThat(placer.place(fileKey(file), 1)).isPresent();
                before.put(fileKey(file), membership.get().preferenceOrder(fileKey(file), 1).getFirst());
            }

            Worker joining = all.get(workerCount);
            membership.set(Membership.of(all));
            assertThat(placer.place(fileKey(0), 1)).isPresent();
            double join = stats.getLastRemapFraction();
            assertThat(stats.getLastRemapJoined()).isEqualTo(1);
            assertThat(stats.getLastRemapSampledKeys()).isEqualTo(PlacedLoad.REMAP_SAMPLE_KEYS);
            assertThat(stats.getLastRemapIdealFraction()).isCloseTo(1.0 / (workerCount + 1), within(1e-12));
            assertThat(join).as("join to %s workers", workerCount + 1).isLessThanOrEqualTo(1.1 / (workerCount + 1) + 0.01).isGreaterThan(0);
            // over every file, not just the sample: only keys the new worker wins move, all to it
            int moved = 0;
            for (Map.Entry<String, Worker> entry : before.entrySet()) {
                Worker now = membership.get().preferenceOrder(entry.getKey(), 1).getFirst();
                if (!now.equals(entry.getValue())) {
                    assertThat(now).isEqualTo(joining);
                    moved++;
                }
            }
            assertThat((double) moved / before.size()).isLessThanOrEqualTo(1.1 / (workerCount + 1));

            Worker leaving = all.getFirst();
            membership.set(Membership.of(all.subList(1, all.size())));
            assertThat(placer.place(fileKey(1), 1)).isPresent();
            assertThat(stats.getLastRemapLeft()).isEqualTo(1);
            assertThat(stats.getLastRemapFraction()).as("leave from %s workers", workerCount + 1).isLessThanOrEqualTo(1.1 / (workerCount + 1) + 0.01).isGreaterThan(0);
            assertThat(stats.getMembershipChanges().getTotalCount()).isEqualTo(2);
            assertThat(stats.loadsSnapshot()).doesNotContainKey(leaving.nodeId()).containsKey(joining.nodeId());
        }
    }

    @Test
    public void testNoRemapIsReportedForTheFirstMembership()
    {
        PlacementStats stats = new PlacementStats();
        SplitPlacer placer = factory(new AtomicReference<>(Membership.of(List.of(worker(1), worker(2)))), stats, new ManualTicker())
                .createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        assertThat(placer.place("a", 1)).isPresent();
        assertThat(stats.getMembershipChanges().getTotalCount()).isZero();
        assertThat(stats.getLastRemapFraction()).isZero();
    }

    private static SplitPlacerFactory factory(AtomicReference<Membership> membership, PlacementStats stats, Ticker ticker)
    {
        return factory(membership, stats, ticker, 0);
    }

    // weights in units of one standard split: the floor is in the same unit as place()'s weights
    private static SplitPlacerFactory factory(AtomicReference<Membership> membership, PlacementStats stats, Ticker ticker, double floor)
    {
        NodeSelectionConfig config = new NodeSelectionConfig()
                .setNodeSelectionStrategy(SOFT_AFFINITY)
                .setPreferredHostsCount(2)
                .setLoadBalanceEpsilon(EPSILON)
                .setLoadFloor(floor)
                .setLoadHalfLife(HALF_LIFE);
        return new SplitPlacerFactory(config, membership::get, BusyLimits.TRINO_DEFAULTS, stats, 1, ticker);
    }

    /**
     * The algorithm written the obvious way: loads by node id, decayed one by one, preference order from
     * {@link Membership#preferenceOrder}. Decisions within a rounding error of a limit are not compared (the placer
     * scales to a landmark, the model decays directly): there the model follows the placer.
     */
    private static final class Model
    {
        private final Map<String, Double> loads = new HashMap<>();
        private final double floor;
        private Membership membership = Membership.empty();

        Model(double floor)
        {
            this.floor = floor;
        }

        void decay(long nanos)
        {
            double factor = Math.pow(0.5, nanos / (double) HALF_LIFE.roundTo(NANOSECONDS));
            loads.replaceAll((_, load) -> load * factor);
        }

        void adopt(Membership live)
        {
            if (live.equals(membership)) {
                return;
            }
            membership = live;
            loads.keySet().retainAll(live.workers().stream().map(Worker::nodeId).toList());
            live.workers().forEach(worker -> loads.putIfAbsent(worker.nodeId(), 0.0));
        }

        void check(String key, long weight, Placement actual)
        {
            double total = loads.values().stream().mapToDouble(Double::doubleValue).sum();
            double capacity = Math.max(floor, (1 + EPSILON) * (total + weight) / membership.size());
            // walk the whole preference order to the first worker below capacity; the first two cache, the rest fall back
            List<Worker> order = membership.preferenceOrder(key, membership.size());
            Placement expected = null;
            boolean close = false;
            for (int rank = 0; rank < order.size() && expected == null; rank++) {
                double load = loads.get(order.get(rank).nodeId());
                close |= nearlyEqual(load, capacity);
                if (load < capacity) {
                    expected = new Placement(order.get(rank), rank == 0 ? PREFERRED : rank == 1 ? ALTERNATIVE : FALLBACK);
                }
            }
            assertThat(expected).as("some worker is below capacity").isNotNull();
            if (!close) {
                assertThat(actual).as("key %s weight %s loads %s capacity %s", key, weight, loads, capacity).isEqualTo(expected);
            }
            loads.merge(actual.worker().nodeId(), (double) weight, Double::sum);
        }

        private static boolean nearlyEqual(double a, double b)
        {
            return a != b && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.max(Math.abs(a), Math.abs(b)));
        }
    }
}
