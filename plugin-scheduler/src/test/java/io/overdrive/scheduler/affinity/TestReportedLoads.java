package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.SOFT_AFFINITY;
import static io.overdrive.scheduler.affinity.PlacementKind.ALTERNATIVE;
import static io.overdrive.scheduler.affinity.PlacementKind.PREFERRED;
import static io.overdrive.scheduler.affinity.Workers.fileKey;
import static io.overdrive.scheduler.affinity.Workers.workers;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The load signal in the placer: the workers' own reports replace the decayed account while every live worker has one,
 * estimated forward by what was placed since and what the worker finishes at its last rate; checked on known cases and
 * against a model of the rule over random reports, placements and clock advances.
 */
public class TestReportedLoads
{
    private static final double EPSILON = 0.15;
    // the unit of place()'s weights, as the connector's SplitWeight raw values: reports count standard splits
    private static final long STANDARD = 100;

    @Test
    public void testAReportedQueueMovesASplitTheDecayedAccountWouldKeep()
    {
        ManualTicker ticker = new ManualTicker();
        Membership membership = Membership.of(workers(4));
        Map<String, LoadReport> reports = new ConcurrentHashMap<>();
        PlacementStats stats = new PlacementStats();
        SplitPlacer placer = factory(membership, stats, ticker, reports, 2).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        List<Worker> order = membership.preferenceOrder("hot", 4);
        for (Worker worker : membership.workers()) {
            reports.put(worker.nodeId(), new LoadReport(worker.equals(order.getFirst()) ? 50 : 0, 0, ticker.read()));
        }
        // the decayed account is empty, so without reports the split would stay on its first worker
        assertThat(placer.place("hot", STANDARD).orElseThrow()).isEqualTo(new Placement(order.get(1), ALTERNATIVE));
        assertThat(stats.getPlacedByReportedLoads().getTotalCount()).isEqualTo(1);

        // one worker without a fresh report: the placer falls back to its decayed account, where the first worker is idle
        reports.remove(order.get(3).nodeId());
        assertThat(placer.place("hot", STANDARD).orElseThrow()).isEqualTo(new Placement(order.getFirst(), PREFERRED));
        assertThat(stats.getPlacedByPlacedLoads().getTotalCount()).isEqualTo(1);
    }

    @Test
    public void testPlacementsSinceAReportCountUntilANewerReport()
    {
        ManualTicker ticker = new ManualTicker();
        Membership membership = Membership.of(workers(3));
        Map<String, LoadReport> reports = new ConcurrentHashMap<>();
        SplitPlacer placer = factory(membership, new PlacementStats(), ticker, reports, 3).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        List<Worker> order = membership.preferenceOrder("hot", 3);
        membership.workers().forEach(worker -> reports.put(worker.nodeId(), new LoadReport(0, 0, ticker.read())));
        // below the floor of 3 splits the first worker takes every split; the fourth finds it at the floor
        for (int split = 0; split < 3; split++) {
            assertThat(placer.place("hot", STANDARD).orElseThrow().worker()).isEqualTo(order.getFirst());
        }
        assertThat(placer.place("hot", STANDARD).orElseThrow().worker()).isEqualTo(order.get(1));
        // the first worker reports again, having started and finished them all: its account starts again from the report
        ticker.advance(MILLISECONDS.toNanos(500));
        reports.put(order.getFirst().nodeId(), new LoadReport(0, 6, ticker.read()));
        assertThat(placer.place("hot", STANDARD).orElseThrow().worker()).isEqualTo(order.getFirst());
    }

    @Test
    public void testEstimateAddsPlacementsAndSubtractsExpectedCompletions()
    {
        LoadReport report = new LoadReport(10, 8, 0);
        assertThat(report.estimate(0, 0)).isEqualTo(10);
        assertThat(report.estimate(SECONDS.toNanos(1), 5)).isCloseTo(7, within(1e-9));
        assertThat(report.estimate(SECONDS.toNanos(10), 5)).isEqualTo(0);
        // a report from the future (another clock) counts as one of now
        assertThat(report.estimate(-SECONDS.toNanos(1), 0)).isEqualTo(10);
        assertThatThrownBy(() -> new LoadReport(-1, 0, 0)).hasMessageContaining("outstandingSplits");
        assertThatThrownBy(() -> new LoadReport(1, Double.NaN, 0)).hasMessageContaining("completedSplitsPerSecond");
    }

    @Test
    public void testMatchesAModelOfTheRule()
    {
        for (int seed = 0; seed < 30; seed++) {
            runAgainstModel(seed);
        }
    }

    private static void runAgainstModel(long seed)
    {
        Random random = new Random(seed);
        ManualTicker ticker = new ManualTicker();
        Membership membership = Membership.of(workers(2 + random.nextInt(12)));
        Map<String, LoadReport> reports = new ConcurrentHashMap<>();
        double floorSplits = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(20);
        PlacementStats stats = new PlacementStats();
        SplitPlacer placer = factory(membership, stats, ticker, reports, floorSplits).createPlacer(WorkerLoads.UNKNOWN).orElseThrow();
        // the model: per worker, the report in use and the standard splits placed since it
        Map<String, LoadReport> used = new HashMap<>();
        Map<String, Double> placedSince = new HashMap<>();
        for (Worker worker : membership.workers()) {
            reports.put(worker.nodeId(), randomReport(random, ticker.read(), null));
        }
        for (int step = 0; step < 2_000; step++) {
            int operation = random.nextInt(100);
            if (operation < 10) {
                ticker.advance(MILLISECONDS.toNanos(random.nextInt(400)));
            }
            else if (operation < 20) {
                Worker worker = membership.workers().get(random.nextInt(membership.size()));
                reports.put(worker.nodeId(), randomReport(random, ticker.read(), reports.get(worker.nodeId())));
            }
            else {
                String key = fileKey(random.nextInt(300));
                long weight = STANDARD * (1 + random.nextInt(3));
                double total = 0;
                Map<String, Double> estimates = new HashMap<>();
                for (Worker worker : membership.workers()) {
                    LoadReport report = reports.get(worker.nodeId());
                    if (!report.equals(used.get(worker.nodeId()))) {
                        used.put(worker.nodeId(), report);
                        placedSince.put(worker.nodeId(), 0.0);
                    }
                    double estimate = report.estimate(ticker.read() - report.receivedNanos(), placedSince.get(worker.nodeId())) * STANDARD;
                    estimates.put(worker.nodeId(), estimate);
                    total += estimate;
                }
                double capacity = Math.max(floorSplits * STANDARD, (1 + EPSILON) * (total + weight) / membership.size());
                Worker expected = membership.preferenceOrder(key, membership.size()).stream()
                        .filter(worker -> estimates.get(worker.nodeId()) < capacity)
                        .findFirst()
                        .orElseThrow();
                Placement actual = placer.place(key, weight).orElseThrow();
                assertThat(actual.worker()).as("seed %s, step %s", seed, step).isEqualTo(expected);
                placedSince.merge(expected.nodeId(), (double) weight / STANDARD, Double::sum);
            }
        }
        assertThat(stats.getPlacedByPlacedLoads().getTotalCount()).isZero();
    }

    // received a little before now, and after the worker's previous report, as the poller's answers are
    private static LoadReport randomReport(Random random, long nowNanos, LoadReport previous)
    {
        long received = nowNanos - MILLISECONDS.toNanos(random.nextInt(200));
        if (previous != null && received <= previous.receivedNanos()) {
            received = previous.receivedNanos() + 1;
        }
        return new LoadReport(random.nextInt(60), random.nextDouble() * 50, received);
    }

    private static SplitPlacerFactory factory(Membership membership, PlacementStats stats, Ticker ticker, Map<String, LoadReport> reports, double floorSplits)
    {
        NodeSelectionConfig config = new NodeSelectionConfig()
                .setNodeSelectionStrategy(SOFT_AFFINITY)
                .setLoadBalanceEpsilon(EPSILON)
                .setLoadFloor(floorSplits)
                .setLoadHalfLife(new Duration(2, SECONDS));
        AtomicReference<Membership> live = new AtomicReference<>(membership);
        return new SplitPlacerFactory(config, live::get, BusyLimits.TRINO_DEFAULTS, stats, STANDARD, ticker, reports::get);
    }
}
