package io.overdrive.it.demo;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static io.overdrive.it.demo.PhaseResult.Phase.COLD;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * The main job: a data lake on this machine and the same workload through stock Trino and through Overdrive, side by
 * side. Real HDFS (3 DataNodes) made to answer like remote storage (a latency per block read request, one DataNode
 * slow), a real three-node Trino cluster (coordinator + 2 workers, separate JVMs) with the Overdrive plugins installed
 * from their zips, TPC-H in Parquet on HDFS. Several users, each with its own connection, run a TPC-H mix at the same
 * time through stock {@code hive}, then through {@code overdrive} ({@code overdrive_hive} with the page cache, soft
 * affinity, hedged reads and shared scans), cold then warm; every result is compared with stock {@code hive}'s. Prints a
 * table and writes a report with charts. {@code --serve} keeps the cluster up for {@code ./overdrive cli}.
 */
public final class Demo
{
    static final String STOCK = "hive";
    static final String OVERDRIVE = "overdrive";
    static final String SCHEMA = "lake";
    private static final List<String> TABLES = List.of("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem");

    private Demo() {}

    public static void main(String[] args)
            throws Exception
    {
        if (DemoOptions.wantsHelp(args)) {
            System.out.println(DemoOptions.USAGE);
            return;
        }
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        }
        catch (IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        DemoReport report = run(options);
        if (!report.allMatch()) {
            System.out.println("ERROR: some results differ from the stock hive catalog's (see the table above)");
            System.exit(1);
        }
    }

    /** Runs the whole demo; with {@code --serve} it does not return (Ctrl-C stops it). */
    static DemoReport run(DemoOptions options)
            throws InterruptedException
    {
        ProjectLayout layout = new ProjectLayout(options.repo());
        long demoStart = System.nanoTime();
        Instant startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        System.out.printf("""
                Overdrive demo: a data lake on this machine, stock Trino against Trino with Overdrive, side by side.
                  storage:  HDFS (1 NameNode, 3 DataNodes), %s
                  Trino:    %s, coordinator + 2 workers (3 JVMs), Overdrive plugins installed from their zips
                  data:     TPC-H %s in Parquet on HDFS
                  workload: %d concurrent users, each with its own connection, %d TPC-H queries each; cold, then %d warm pass(es)%s
                  catalogs: %s = stock Hive connector; %s = overdrive_hive with page cache, soft affinity, hedged reads, shared scans
                  work dir: %s

                """, options.storage(), ProjectLayout.TRINO_VERSION, options.scale(), options.users(), DemoQueries.ALL.size(), options.warmPasses(),
                options.repetitions() > 1 ? ", all %d times".formatted(options.repetitions()) : "", STOCK, OVERDRIVE, options.work());

        step("1/6", "starting HDFS");
        long start = System.nanoTime();
        try (HdfsCluster hdfs = HdfsCluster.start(layout, options.work().resolve("hdfs"), 3)) {
            done(start, "NameNode at " + hdfs.nameNodeUri());

            step("2/6", "starting Trino: coordinator + 2 workers");
            start = System.nanoTime();
            try (TrinoProcessCluster trino = TrinoProcessCluster.builder(layout, options.work().resolve("trino"))
                    .workers(2)
                    .catalog(STOCK, "hive", stockCatalog(hdfs))
                    .catalog(OVERDRIVE, "overdrive_hive", overdriveCatalog(hdfs, options))
                    .catalog("tpch", "tpch", Map.of())
                    .start()) {
                done(start, "coordinator at " + trino.coordinator().httpUri());

                step("3/6", "loading TPC-H %s into Parquet tables on HDFS".formatted(options.scale()));
                start = System.nanoTime();
                load(trino, options.scale());
                done(start, "%d tables in %s.%s (the same files are %s.%s)".formatted(TABLES.size(), STOCK, SCHEMA, OVERDRIVE, SCHEMA));

                step("4/6", "reference results from stock hive, one run of each query per catalog to warm the JVMs");
                start = System.nanoTime();
                Map<String, List<List<Object>>> reference = reference(trino);
                done(start, "%d reference results; Overdrive's cache flushed".formatted(reference.size()));

                step("5/6", "making storage behave like a data lake: " + options.storage());
                hdfs.setReadDelay(options.storageLatency());
                if (options.storageBandwidth() > 0) {
                    hdfs.setReadBandwidth(options.storageBandwidth());
                }
                else {
                    hdfs.clearReadBandwidth();
                }
                if (!options.slowDataNode().isZero()) {
                    hdfs.setSlowDataNode(0, Duration.ZERO, options.slowDataNode());
                }
                else {
                    hdfs.clearSlowDataNode();
                }

                step("6/6", "%d users run the mix through each catalog, cold then warm".formatted(options.users()));
                List<PhaseResult> results = runPhases(hdfs, trino, options, reference);

                DemoReport report = new DemoReport(results, STOCK, OVERDRIVE);
                String header = header(options, startedAt, seconds(demoStart));
                String subtitle = "%s vs %s: %d users, TPC-H %s; storage %s".formatted(STOCK, OVERDRIVE, options.users(), options.scale(), options.storage());
                Path file = report.write(options.report(), header, subtitle, DemoQueries.ALL);
                System.out.printf("%n%s%n%s%n", report.table(), report.verdict());
                System.out.printf("""
                        Storage bytes and requests: counted by the DataNodes as they serve them (metadata and footers included).
                        Cache, hedge, coalescing and placement figures: Overdrive's MBeans on the Trino nodes, over JMX.
                        Times are wall clock as each user's JDBC client saw them, on a shared 2-core machine: read them as
                        indications; ./overdrive bench all repeats this scenario (docs/benchmarks.md).
                        Report (charts and every run beside it): %s
                        Demo finished in %.0fs.
                        """, file, seconds(demoStart));
                if (options.serve()) {
                    serve(trino, hdfs, options);
                }
                return report;
            }
        }
    }

    private static Map<String, String> stockCatalog(HdfsCluster hdfs)
    {
        Map<String, String> properties = HiveCatalogs.hiveOnHdfs(hdfs, "/demo/metastore");
        // the demo's metastore is Trino's file metastore on the same slow storage; a lake's Hive metastore would not be
        // behind the DataNodes, so both catalogs keep its metadata in memory, as Trino can
        properties.put("hive.metastore-cache-ttl", "10m");
        return properties;
    }

    /** The stock catalog's properties plus every Overdrive feature, as an operator would set them for this storage. */
    static Map<String, String> overdriveCatalog(HdfsCluster hdfs, DemoOptions options)
    {
        // a read that takes twice the storage's usual latency is hedged (at least 20 ms); up to half of the reads may be
        // hedged, since one replica in three is slow here
        long threshold = Math.max(20, 2 * options.storageLatency().toMillis());
        return HiveCatalogs.withEveryFeature(stockCatalog(hdfs), threshold + "ms");
    }

    private static void load(TrinoProcessCluster trino, String scale)
    {
        trino.execute("DROP SCHEMA IF EXISTS %s.%s CASCADE".formatted(STOCK, SCHEMA));
        trino.execute("CREATE SCHEMA %s.%s".formatted(STOCK, SCHEMA));
        for (String table : TABLES) {
            long start = System.nanoTime();
            long rows = trino.execute("CREATE TABLE %s.%s.%s WITH (format = 'PARQUET') AS SELECT * FROM tpch.\"%s\".%s".formatted(STOCK, SCHEMA, table, scale, table));
            System.out.printf("      %-9s %,10d rows  %5.1fs%n", table, rows, seconds(start));
        }
    }

    // the reference rows come from stock hive; each query also runs once through Overdrive, so that both plugins'
    // code is compiled before anything is timed, then Overdrive's cache is emptied
    private static Map<String, List<List<Object>>> reference(TrinoProcessCluster trino)
    {
        Map<String, List<List<Object>>> reference = new LinkedHashMap<>();
        for (DemoQueries.Query query : DemoQueries.ALL) {
            List<List<Object>> rows = trino.query(query.sql(STOCK + "." + SCHEMA));
            reference.put(query.name(), rows);
            if (!ResultRows.same(trino.query(query.sql(OVERDRIVE + "." + SCHEMA)), rows)) {
                System.out.printf("      %s: overdrive's rows differ from stock hive's%n", query.name());
            }
        }
        flush(trino);
        return reference;
    }

    private static List<PhaseResult> runPhases(HdfsCluster hdfs, TrinoProcessCluster trino, DemoOptions options, Map<String, List<List<Object>>> reference)
            throws InterruptedException
    {
        ConcurrentUsers users = new ConcurrentUsers(trino, options.users(), DemoQueries.ALL, reference);
        List<PhaseResult> results = new ArrayList<>();
        for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
            // alternate which catalog goes first, so that neither always meets the other's leftovers
            List<String> order = repetition % 2 == 1 ? List.of(STOCK, OVERDRIVE) : List.of(OVERDRIVE, STOCK);
            String round = options.repetitions() > 1 ? " (repetition %d of %d)".formatted(repetition, options.repetitions()) : "";
            for (PhaseResult.Phase phase : PhaseResult.Phase.values()) {
                for (String catalog : order) {
                    if (phase == COLD && catalog.equals(OVERDRIVE)) {
                        flush(trino);
                    }
                    settle(trino);
                    String label = "%s %s%s".formatted(catalog, phase.label(), round);
                    ClusterCounters before = ClusterCounters.read(hdfs, trino, catalog);
                    long start = System.nanoTime();
                    List<ConcurrentUsers.QueryRun> runs = users.run(label, catalog + "." + SCHEMA, phase == COLD ? 1 : options.warmPasses());
                    long wallMillis = (System.nanoTime() - start) / 1_000_000;
                    settle(trino);
                    PhaseResult result = new PhaseResult(catalog, phase, repetition, runs, wallMillis, ClusterCounters.read(hdfs, trino, catalog).minus(before));
                    results.add(result);
                    PhaseSummary summary = PhaseSummary.of(List.of(result), List.of(catalog)).getFirst();
                    System.out.printf("      %-9s %-5s %3d queries in %5.1fs  P50 %,6d ms  P95 %,6d ms  storage %10s%s%n", catalog, phase.label(), runs.size(), wallMillis / 1000.0,
                            summary.p50(), summary.p95(), DemoReport.bytes(result.counters().remoteBytes()),
                            summary.mismatches() == 0 ? "" : "  %d RESULTS DIFFER FROM STOCK HIVE %s".formatted(summary.mismatches(), summary.errors()));
                }
            }
        }
        return results;
    }

    private static void flush(TrinoProcessCluster trino)
    {
        settle(trino);
        trino.query("SELECT * FROM TABLE(%s.system.flush_cache())".formatted(OVERDRIVE));
    }

    // read-ahead may still be fetching pages after the queries are done; they belong to no phase, so wait for them
    private static void settle(TrinoProcessCluster trino)
    {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (trino.sumOverWorkers("io.overdrive.cache.scan:type=SharedScanStats,name=%s,*".formatted(OVERDRIVE), "PagesInFlight") > 0 && System.nanoTime() < deadline) {
            sleepUninterruptibly(100, MILLISECONDS);
        }
    }

    private static String header(DemoOptions options, Instant startedAt, double seconds)
    {
        return """
                # Overdrive demo report

                Run %s, %.0f s, by `./overdrive demo` (or `bench all`) with: %s users, TPC-H %s (Parquet), %d warm pass(es), %d repetition(s).
                Storage: HDFS, 3 DataNodes on loopback, replication 3; %s.
                Trino %s: coordinator + 2 workers, separate JVMs on this machine. Machine: %d CPUs, load average at the end %.2f, JDK %s.

                Catalogs: `%s` = stock Hive connector (the anchor); `%s` = `overdrive_hive`, same metastore and files, with the page
                cache, soft affinity (one preferred worker per file), hedged reads and shared scans on. Both keep metastore metadata
                in memory (`hive.metastore-cache-ttl`). Cold: Overdrive's cache flushed on every worker, each user runs the mix once;
                warm: the passes after it. Every user's query is timed as its JDBC client sees it and its rows compared with stock hive's.
                """.formatted(startedAt, seconds, options.users(), options.scale(), options.warmPasses(), options.repetitions(), options.storage(),
                ProjectLayout.TRINO_VERSION, Runtime.getRuntime().availableProcessors(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                System.getProperty("java.runtime.version"), STOCK, OVERDRIVE);
    }

    private static void serve(TrinoProcessCluster trino, HdfsCluster hdfs, DemoOptions options)
            throws InterruptedException
    {
        int port = trino.coordinator().httpPort();
        Path connection = options.work().resolve("cluster.properties");
        try {
            Files.writeString(connection, "server=http://127.0.0.1:%d%ncatalog=%s%nschema=%s%n".formatted(port, OVERDRIVE, SCHEMA));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> connection.toFile().delete()));
        boolean defaultWork = options.work().equals(options.repo().resolve(".demo"));
        System.out.printf("""

                The cluster stays up, storage still slow (%s), until you press Ctrl-C.
                  Trino CLI: %s   (in another terminal; trino-cli 476 from Maven Central, same client protocol as 483)
                  Web UI:    http://127.0.0.1:%d/ui/  (any user name)
                  JDBC:      %s?user=demo
                  Catalogs:  %s (stock Hive), %s (overdrive_hive), tpch; tables in schema %s, e.g. SELECT count(*) FROM %s.%s.lineitem
                  JMX:       %s  (Overdrive's MBeans: io.overdrive.*, e.g. with jconsole)
                  HDFS:      %s  (NameNode)
                  Logs:      %s
                """, options.storage(), defaultWork ? "./overdrive cli" : "./overdrive cli --work " + options.work(), port, trino.jdbcUrl(), STOCK, OVERDRIVE, SCHEMA,
                OVERDRIVE, SCHEMA, jmxPorts(trino), hdfs.nameNodeUri(), trino.coordinator().home().getParent());
        // Ctrl-C runs the shutdown hooks that stop every process we started
        new CountDownLatch(1).await();
    }

    private static String jmxPorts(TrinoProcessCluster trino)
    {
        return String.join(", ", trino.nodes().stream().map(node -> "%s 127.0.0.1:%d".formatted(node.name(), node.jmxPort())).toList());
    }

    private static void step(String number, String text)
    {
        System.out.printf("[%s] %s ...%n", number, text);
    }

    private static void done(long start, String text)
    {
        System.out.printf("      done in %.1fs: %s%n", seconds(start), text);
    }

    private static double seconds(long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
