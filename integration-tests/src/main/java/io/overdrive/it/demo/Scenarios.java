package io.overdrive.it.demo;

import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static io.overdrive.it.demo.Demo.OVERDRIVE;
import static io.overdrive.it.demo.Demo.OVERDRIVE_CACHE_DIRECTORY;
import static io.overdrive.it.demo.Demo.SCAN_TABLE;
import static io.overdrive.it.demo.Demo.SCHEMA;
import static io.overdrive.it.demo.Demo.TRINO_CACHE;
import static io.overdrive.it.demo.Demo.TRINO_CACHE_DIRECTORY;
import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static io.overdrive.it.demo.PhaseResult.Phase.WARM;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Runs the chosen {@link Scenario}s one after another on one cluster: prepares each (storage, caches emptied by
 * restarting the workers with empty cache directories, caches filled, a scan, a restart), then runs the users through
 * every catalog in turn, phase by phase, and keeps what each catalog's measured passes did.
 */
final class Scenarios
{
    // Trino 483's default task executor: one pool task per split run (leaf and intermediate)
    private static final String TASK_EXECUTOR = "trino.execution.executor.dedicated:name=ThreadPerDriverTaskExecutor";
    // Overdrive's node-selection.membership-refresh-interval, with a margin: placement sees a join or a leave by then
    private static final Duration MEMBERSHIP_REFRESH = Duration.ofSeconds(6);
    // the skewed mix: Zipf weights 1/k^1.2 over the queries, so that the two most popular queries are half the runs
    private static final double SKEW = 1.2;

    private final DemoStorage storage;
    private final TrinoProcessCluster trino;
    private final DemoOptions options;
    private final Demo.Catalogs catalogs;
    private final Demo.Lake lake;
    private final Map<String, List<List<Object>>> reference;
    private final ConcurrentUsers users;
    private final List<PhaseResult> results = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    // whether the caches hold the measured tables (a pass has run over them since the caches were last emptied)
    private boolean cachesFilled;

    Scenarios(DemoStorage storage, TrinoProcessCluster trino, DemoOptions options, Demo.Catalogs catalogs, Demo.Lake lake, Map<String, List<List<Object>>> reference)
    {
        this.storage = requireNonNull(storage, "storage is null");
        this.trino = requireNonNull(trino, "trino is null");
        this.options = requireNonNull(options, "options is null");
        this.catalogs = requireNonNull(catalogs, "catalogs is null");
        this.lake = requireNonNull(lake, "lake is null");
        this.reference = Map.copyOf(reference);
        this.users = new ConcurrentUsers(trino, options.users(), DemoQueries.ALL, reference);
    }

    /** What the unmeasured steps did (scans, restarts), one line each, for the report. */
    List<String> notes()
    {
        return List.copyOf(notes);
    }

    List<PhaseResult> run()
            throws InterruptedException
    {
        for (Scenario scenario : options.scenarios()) {
            System.out.printf("    scenario %s: %s%n", scenario.id(), scenario.description(options.storageKind()));
            for (int round = 0; round < options.rounds(); round++) {
                if (options.rounds() > 1) {
                    System.out.printf("    %s round %d/%d%n", scenario.id(), round + 1, options.rounds());
                }
                run(scenario, round);
            }
        }
        return List.copyOf(results);
    }

    // one round of a scenario: whatever the scenario does before its measured phases (caches emptied before every cold
    // phase, a scan or a restart before every warm pass after it), then its phases
    private void run(Scenario scenario, int round)
            throws InterruptedException
    {
        switch (scenario) {
            case HEALTHY -> {
                emptyCaches(scenario);
                phase(scenario, COLD, round, ConcurrentUsers.Mix.STAGGERED);
                phase(scenario, WARM, round, ConcurrentUsers.Mix.STAGGERED);
            }
            case SLOW_NODE -> {
                emptyCaches(scenario);
                storage.slowNode(options);
                try {
                    phase(scenario, COLD, round, ConcurrentUsers.Mix.STAGGERED);
                    phase(scenario, WARM, round, ConcurrentUsers.Mix.STAGGERED);
                }
                finally {
                    storage.healthy(options);
                }
            }
            case CONCURRENT_COLD -> {
                emptyCaches(scenario);
                phase(scenario, COLD, round, ConcurrentUsers.Mix.SAME_START);
            }
            case SCAN_POLLUTION -> {
                fillCaches(scenario);
                scans(scenario, round);
                phase(scenario, WARM, round, ConcurrentUsers.Mix.STAGGERED);
            }
            case RESTART -> {
                fillCaches(scenario);
                long start = System.nanoTime();
                trino.restartWorkers(_ -> {});
                Demo.warmUp(trino, catalogs);
                note(scenario, "both workers restarted, caches kept on disk, every catalog's code warmed again: %.0f s".formatted(seconds(start)));
                phase(scenario, WARM, round, ConcurrentUsers.Mix.STAGGERED);
            }
            case SCALE_OUT -> {
                emptyCaches(scenario);
                phase(scenario, COLD, round, ConcurrentUsers.Mix.STAGGERED);
                TrinoProcessCluster.TrinoNode joined = join(scenario);
                try {
                    phase(scenario, WARM, round, ConcurrentUsers.Mix.STAGGERED, joined);
                }
                finally {
                    leave(scenario, joined);
                }
            }
            case OVERFLOW -> {
                emptyCaches(scenario);
                TrinoProcessCluster.TrinoNode joined = join(scenario);
                try {
                    ConcurrentUsers.Mix skewed = ConcurrentUsers.Mix.skewed(options.seed(), SKEW);
                    phase(scenario, COLD, round, skewed, joined);
                    phase(scenario, WARM, round, skewed, joined);
                }
                finally {
                    leave(scenario, joined);
                }
            }
            case BIG_WORKING_SET -> {
                if (round == 0) {
                    long size = Math.max(2L << 20, (lake.bytes() / 2) >> 20 << 20);
                    String property = (size >> 20) + "MB";
                    long start = System.nanoTime();
                    trino.restartWorkers(worker -> {
                        for (String catalog : List.of(TRINO_CACHE, OVERDRIVE)) {
                            TrinoProcessCluster.writeCatalog(worker, catalog, catalogs.connector(catalog), catalogs.properties(catalog, property));
                        }
                        deleteCaches(worker);
                    });
                    Demo.warmUp(trino, catalogs);
                    cachesFilled = false;
                    note(scenario, "both workers restarted with empty caches of %s each (the tables: %s): %.0f s".formatted(property, DemoReport.bytes(lake.bytes()), seconds(start)));
                }
                else {
                    // the smaller caches' catalog files stay: only the caches are emptied
                    emptyCaches(scenario);
                }
                ConcurrentUsers.Mix skewed = ConcurrentUsers.Mix.skewed(options.seed(), SKEW);
                phase(scenario, COLD, round, skewed);
                phase(scenario, WARM, round, skewed);
            }
        }
    }

    // the workers restart with empty cache directories (Trino's cache has no flush), then every catalog's code is warmed
    // again on the small tables
    private void emptyCaches(Scenario scenario)
    {
        if (!cachesFilled) {
            return;
        }
        long start = System.nanoTime();
        trino.restartWorkers(Scenarios::deleteCaches);
        Demo.warmUp(trino, catalogs);
        cachesFilled = false;
        note(scenario, "caches emptied: both workers restarted with empty cache directories, every catalog's code warmed again: %.0f s".formatted(seconds(start)));
    }

    // a third worker, its caches empty, joins the two; the catalogs' code is warmed on it (on the small tables), and the
    // coordinator's placement has seen it (node-selection.membership-refresh-interval) before anything is measured
    private TrinoProcessCluster.TrinoNode join(Scenario scenario)
    {
        long start = System.nanoTime();
        TrinoProcessCluster.TrinoNode joined = trino.joinWorker();
        Demo.warmUp(trino, catalogs);
        sleepUninterruptibly(MEMBERSHIP_REFRESH.toMillis(), MILLISECONDS);
        note(scenario, "%s joined with empty caches, every catalog's code warmed on it: %.0f s".formatted(joined.name(), seconds(start)));
        return joined;
    }

    private void leave(Scenario scenario, TrinoProcessCluster.TrinoNode joined)
    {
        long start = System.nanoTime();
        trino.removeWorker(joined, Scenarios::deleteCaches);
        sleepUninterruptibly(MEMBERSHIP_REFRESH.toMillis(), MILLISECONDS);
        note(scenario, "%s stopped and its caches deleted; two workers again: %.0f s".formatted(joined.name(), seconds(start)));
    }

    // each worker's splits finished so far, every query and catalog (Trino's task executor)
    // reads, hits, hit bytes, misses, failures, skipped, waits for a peer's storage read: the catalog's PeerStats summed
    // over the workers
    private long[] peerReads(String catalog)
    {
        String pattern = "io.overdrive.cache.peer:type=PeerStats,name=%s,*".formatted(catalog);
        long failed = 0;
        for (String failure : List.of("Timeouts", "ConnectionFailures", "ChecksumFailures", "Refused", "Busy")) {
            failed += trino.sumOverWorkers(pattern, failure);
        }
        return new long[] {
                trino.sumOverWorkers(pattern, "Reads"),
                trino.sumOverWorkers(pattern, "Hits"),
                trino.sumOverWorkers(pattern, "HitBytes"),
                trino.sumOverWorkers(pattern, "Misses"),
                failed,
                trino.sumOverWorkers(pattern, "SkippedPeerDown"),
                trino.sumOverWorkers(pattern, "FetchWaits")};
    }

    private static Map<String, Long> finishedSplits(List<TrinoProcessCluster.TrinoNode> workers)
    {
        Map<String, Long> splits = new LinkedHashMap<>();
        for (TrinoProcessCluster.TrinoNode worker : workers) {
            splits.put(worker.name(), JmxAttributes.sum(worker.jmxPort(), TASK_EXECUTOR, "TaskExecutor.CompletedTaskCount"));
        }
        return splits;
    }

    private static void deleteCaches(TrinoProcessCluster.TrinoNode worker)
    {
        try {
            TrinoProcessCluster.deleteRecursively(worker.home().resolve(TRINO_CACHE_DIRECTORY));
            TrinoProcessCluster.deleteRecursively(worker.home().resolve(OVERDRIVE_CACHE_DIRECTORY));
            Files.createDirectories(worker.home().resolve(TRINO_CACHE_DIRECTORY));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // one unmeasured pass of the mix through each catalog with a cache
    private void fillCaches(Scenario scenario)
            throws InterruptedException
    {
        if (cachesFilled) {
            return;
        }
        long start = System.nanoTime();
        for (String catalog : List.of(TRINO_CACHE, OVERDRIVE)) {
            users.run("%s: %s filling its cache".formatted(scenario.id(), catalog), catalog + "." + SCHEMA, 1, ConcurrentUsers.Mix.STAGGERED);
            settle();
        }
        cachesFilled = true;
        note(scenario, "caches filled: one unmeasured pass of the mix through %s and %s: %.0f s".formatted(TRINO_CACHE, OVERDRIVE, seconds(start)));
    }

    // the one-off scan: every column of a table larger than the cache, once through each catalog; the rows must agree
    private void scans(Scenario scenario, int round)
    {
        String sql = """
                SELECT count(*), max(orderkey), max(partkey), max(suppkey), max(linenumber), sum(quantity), sum(extendedprice), sum(discount), sum(tax),
                       max(returnflag), max(linestatus), max(shipdate), max(commitdate), max(receiptdate), max(shipinstruct), max(shipmode), max(comment)
                FROM %s.%s.%s""";
        List<List<Object>> expected = null;
        for (String catalog : RoundOrder.of(order(scenario, COLD), round)) {
            ClusterCounters before = ClusterCounters.read(storage, trino, catalog);
            long start = System.nanoTime();
            List<List<Object>> rows = trino.query(sql.formatted(catalog, SCHEMA, SCAN_TABLE));
            double seconds = seconds(start);
            settle();
            ClusterCounters counters = ClusterCounters.read(storage, trino, catalog).minus(before);
            if (expected == null) {
                expected = rows;
            }
            else if (!ResultRows.same(rows, expected)) {
                throw new IllegalStateException("the scan of %s through %s returned other rows than through the other catalogs".formatted(SCAN_TABLE, catalog));
            }
            note(scenario, "%s scanned %s (%s, every column) in %.1f s, %s from storage".formatted(catalog, SCAN_TABLE, DemoReport.bytes(lake.scanBytes()), seconds,
                    DemoReport.bytes(counters.remoteBytes())));
        }
    }

    // the catalogs take turns: a cold phase in a seeded shuffled order, a warm phase's passes in the order A B C, C B A,
    // ...; from round to round the order rotates and reverses (RoundOrder), so that each catalog is first and last
    // equally often
    private void phase(Scenario scenario, PhaseResult.Phase phase, int round, ConcurrentUsers.Mix mix)
            throws InterruptedException
    {
        phase(scenario, phase, round, mix, null);
    }

    // with a joined worker: the share of each pass's splits it ran is noted
    private void phase(Scenario scenario, PhaseResult.Phase phase, int round, ConcurrentUsers.Mix mix, TrinoProcessCluster.TrinoNode joined)
            throws InterruptedException
    {
        Map<String, PhaseResult> byCatalog = new LinkedHashMap<>();
        int passes = phase == COLD ? 1 : options.warmPasses();
        List<String> roundOrder = RoundOrder.of(phase == COLD ? order(scenario, phase) : catalogs.names(), round);
        for (int pass = 0; pass < passes; pass++) {
            List<String> order = pass % 2 == 0 ? roundOrder : roundOrder.reversed();
            for (String catalog : order) {
                settle();
                String label = "%s %s %s%s%s".formatted(scenario.id(), catalog, phase.label(), options.rounds() > 1 ? " round %d".formatted(round + 1) : "",
                        passes > 1 ? " pass %d".formatted(pass + 1) : "");
                ClusterCounters before = ClusterCounters.read(storage, trino, catalog);
                if (phase == COLD) {
                    storage.resetDistinctBytes();
                }
                long[] peersBefore = peerReads(catalog);
                Map<String, WorkerReads> workerReadsBefore = WorkerReads.read(trino, catalog);
                Map<String, Long> splitsBefore = joined == null ? Map.of() : finishedSplits(trino.workers());
                HostLoad.Snapshot hostBefore = HostLoad.read();
                long start = System.nanoTime();
                // every catalog gets the same passes: the cold pass is pass 0, the warm passes 1, 2, ...
                List<ConcurrentUsers.QueryRun> runs = users.run(label, catalog + "." + SCHEMA, 1, mix, phase == COLD ? 0 : 1 + pass);
                long wallMillis = (System.nanoTime() - start) / 1_000_000;
                HostLoad.Window host = HostLoad.Window.between(hostBefore, HostLoad.read());
                settle();
                PhaseResult result = new PhaseResult(scenario, catalog, phase, round, runs, wallMillis, ClusterCounters.read(storage, trino, catalog).minus(before), host);
                if (joined != null) {
                    Map<String, Long> splitsAfter = finishedSplits(trino.workers());
                    long all = 0;
                    for (Map.Entry<String, Long> worker : splitsAfter.entrySet()) {
                        all += worker.getValue() - splitsBefore.getOrDefault(worker.getKey(), 0L);
                    }
                    long joinedSplits = splitsAfter.get(joined.name()) - splitsBefore.getOrDefault(joined.name(), 0L);
                    note(scenario, "%s: %s ran %d of the %d splits (%.0f%%; an even share is %.0f%%)".formatted(label, joined.name(), joinedSplits, all,
                            all == 0 ? 0 : 100.0 * joinedSplits / all, 100.0 / splitsAfter.size()));
                }
                long[] peers = peerReads(catalog);
                if (peers[0] > peersBefore[0]) {
                    // the catalog's peer reads over the pass (a catalog without them has none)
                    note(scenario, "%s: peer reads %,d: %,d hits (%s), %,d not cached, %,d failed, %,d skipped (peer down); %,d waited for the peer's storage read".formatted(label,
                            peers[0] - peersBefore[0], peers[1] - peersBefore[1], DemoReport.bytes(peers[2] - peersBefore[2]), peers[3] - peersBefore[3],
                            peers[4] - peersBefore[4], peers[5] - peersBefore[5], peers[6] - peersBefore[6]));
                }
                String workerReads = WorkerReads.describe(workerReadsBefore, WorkerReads.read(trino, catalog));
                if (!workerReads.isEmpty()) {
                    // where the storage reads of a catalog with shared scans were made, and what may have made a reader fetch again
                    note(scenario, "%s: storage fetches by worker: %s".formatted(label, workerReads));
                }
                if (phase == COLD) {
                    OptionalLong distinct = storage.distinctBytes();
                    if (distinct.isPresent()) {
                        // what storage sent more than once over the cold pass (to two workers, or twice to one)
                        long sent = result.counters().remoteBytes();
                        note(scenario, "%s: storage sent %,d bytes, %,d of them distinct (%.3fx)".formatted(label, sent, distinct.getAsLong(),
                                distinct.getAsLong() == 0 ? Double.NaN : (double) sent / distinct.getAsLong()));
                    }
                }
                byCatalog.merge(catalog, result, PhaseResult::plus);
                PhaseSummary summary = PhaseSummary.of(List.of(result), List.of(catalog)).getFirst();
                System.out.printf("      %-16s %-11s %-4s%s %3d queries in %5.1fs  P50 %,6d ms  P95 %,6d ms  CPU %,6d ms/query  storage %10s  host CPU %s, load %s%s%n",
                        scenario.id(), catalog, phase.label(), options.rounds() > 1 ? " r%d".formatted(round + 1) : "", runs.size(), wallMillis / 1000.0, summary.p50(), summary.p95(), summary.cpuMedian(),
                        DemoReport.bytes(result.counters().remoteBytes()), DemoReport.utilisation(host), DemoReport.load(host),
                        summary.mismatches() == 0 ? "" : "  %d RESULTS DIFFER FROM STOCK %s %s".formatted(summary.mismatches(), catalogs.stock().toUpperCase(Locale.ROOT), summary.errors()));
            }
        }
        cachesFilled = true;
        catalogs.names().forEach(catalog -> results.add(byCatalog.get(catalog)));
    }

    private List<String> order(Scenario scenario, PhaseResult.Phase phase)
    {
        List<String> order = new ArrayList<>(catalogs.names());
        Collections.shuffle(order, new Random(options.seed() * 31 + scenario.ordinal() * 2L + phase.ordinal()));
        return order;
    }

    // read-ahead may still be fetching pages after the queries are done; they belong to no phase, so wait for them
    private void settle()
    {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (trino.sumOverWorkers("io.overdrive.cache.scan:type=SharedScanStats,name=%s,*".formatted(OVERDRIVE), "PagesInFlight") > 0 && System.nanoTime() < deadline) {
            sleepUninterruptibly(100, MILLISECONDS);
        }
    }

    private void note(Scenario scenario, String text)
    {
        String line = "%s: %s".formatted(scenario.id(), text);
        notes.add(line);
        System.out.println("      " + line);
    }

    private static double seconds(long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
