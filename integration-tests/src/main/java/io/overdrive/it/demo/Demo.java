package io.overdrive.it.demo;

import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.joining;


/**
 * The main job: a data lake on this machine and the same workload through three catalogs on the same files, side by
 * side: {@code hive} (stock Trino, no cache), {@code trino_cache} (the best a Trino user can configure without Overdrive:
 * Trino's own file system cache with its affinity, plus, on HDFS, HDFS's own hedged reads in an {@code hdfs-site.xml}) and
 * {@code overdrive} ({@code overdrive_hive} with its shipped defaults, only its features switched on). With
 * {@code --format iceberg} ({@link LakeFormat}) the tables are Iceberg tables and the catalogs {@code iceberg},
 * {@code trino_cache} (stock Iceberg with the same cache) and {@code overdrive} ({@code overdrive_iceberg}, the same
 * defaults).
 * Real HDFS (3 DataNodes) or a real S3 server ({@link DemoStorage}) made to answer like remote storage, a real three-node
 * Trino cluster (coordinator + 2 workers, separate JVMs) with the Overdrive plugins installed from their zips, TPC-H in
 * Parquet on that storage. Several users, each with its own
 * connection, run a TPC-H mix at the same time through each catalog in turn, in the {@link Scenario}s asked for; every
 * result is compared with the stock catalog's. Prints a table and writes a report with charts. {@code --serve} keeps
 * the cluster up for {@code ./overdrive cli}.
 */
public final class Demo
{
    // the catalogs after the stock one, whose name is its connector's (LakeFormat)
    static final String TRINO_CACHE = "trino_cache";
    static final String OVERDRIVE = "overdrive";
    static final String SCHEMA = "lake";
    // a small copy of the tables (TPC-H tiny) through which every catalog's code is warmed after a (re)start, without
    // putting the measured tables into any cache
    static final String WARMUP_SCHEMA = "warmup";
    // the scan-pollution scenario's one-off table: a TPC-H lineitem larger than the cache
    static final String SCAN_TABLE = "lineitem_history";
    // each worker's cache directories, relative to its working directory
    static final String TRINO_CACHE_DIRECTORY = "fs-cache";
    static final String OVERDRIVE_CACHE_DIRECTORY = "cache";
    // one random secret per run, as an operator sets one per cluster
    private static final String PEER_SECRET = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
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
            System.out.printf("ERROR: some results differ from the stock %s catalog's (see the table above)%n", options.format().stockCatalog());
            System.exit(1);
        }
    }

    /** Runs the whole demo; with {@code --serve} it does not return (Ctrl-C stops it). */
    static DemoReport run(DemoOptions options)
            throws InterruptedException
    {
        ProjectLayout layout = new ProjectLayout(options.repo());
        LakeFormat format = options.format();
        long demoStart = System.nanoTime();
        Instant startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        System.out.printf("""
                Overdrive demo: a data lake on this machine; stock Trino, Trino with its own cache, and Trino with Overdrive, side by side.
                  storage:   %s, %s
                  Trino:     %s, coordinator + 2 workers (3 JVMs), Overdrive plugins installed from their zips
                  data:      TPC-H %s in %s tables (Parquet) on %s
                  workload:  %d concurrent users, each with its own connection, %d TPC-H queries each; %s
                  scenarios: %s
                  catalogs:  %s = stock %s connector; %s = stock %s connector + Trino's fs.cache (%s per worker)%s;
                             %s = %s, shipped defaults, cache %s per worker
                  work dir:  %s

                """, storageName(options), options.storage(), ProjectLayout.TRINO_VERSION, options.scale(), format.displayName(), storageName(options), options.users(),
                DemoQueries.ALL.size(), rounds(options), options.scenarioList(), format.stockCatalog(), format.displayName(), TRINO_CACHE, format.displayName(), options.cacheSizeProperty(),
                options.storageKind() == DemoStorage.Kind.HDFS ? " + HDFS's own hedged reads (%d ms)".formatted(options.hdfsHedgeThreshold().toMillis()) : "",
                OVERDRIVE, format.overdriveConnector(), options.cacheSizeProperty(), options.work());

        step("1/6", "starting " + storageName(options));
        long start = System.nanoTime();
        try (DemoStorage storage = DemoStorage.start(layout, options)) {
            done(start, storage.address());

            boolean standby = options.scenarios().stream().anyMatch(Scenario::joinsAWorker);
            step("2/6", "starting Trino: coordinator + 2 workers" + (standby ? " (a third joins in the scale-out and overflow scenarios)" : ""));
            start = System.nanoTime();
            Catalogs catalogs = new Catalogs(storage, options);
            TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(layout, options.work().resolve("trino"))
                    .workers(2)
                    .standbyWorkers(standby ? 1 : 0)
                    // Trino's fs.cache wants its directory to exist, as an operator creates it
                    .nodeDirectory(TRINO_CACHE_DIRECTORY)
                    // the stock Iceberg plugin only where its tables are read: other runs need not load its 450 MB of jars
                    .icebergPlugin(format == LakeFormat.ICEBERG);
            for (String catalog : catalogs.names()) {
                builder.catalog(catalog, catalogs.connector(catalog), catalogs.properties(catalog, options.cacheSizeProperty()));
            }
            try (TrinoProcessCluster trino = builder.catalog("tpch", "tpch", Map.of()).start()) {
                done(start, "coordinator at " + trino.coordinator().httpUri());

                step("3/6", "loading TPC-H %s into %s tables (Parquet) on %s".formatted(options.scale(), format.displayName(), storageName(options)));
                start = System.nanoTime();
                Lake lake = load(trino, options);
                done(start, "%d tables, %s in %s.%s (the same files are %s.%s and %s.%s)".formatted(TABLES.size(), DemoReport.bytes(lake.bytes()), format.stockCatalog(), SCHEMA,
                        TRINO_CACHE, SCHEMA, OVERDRIVE, SCHEMA));

                step("4/6", "reference results from stock %s; every catalog's code warmed on the %s schema".formatted(format.stockCatalog(), WARMUP_SCHEMA));
                start = System.nanoTime();
                Map<String, List<List<Object>>> reference = reference(trino, format.stockCatalog());
                warmUp(trino, catalogs);
                done(start, "%d reference results".formatted(reference.size()));

                step("5/6", "making storage behave like a data lake: " + options.storage());
                storage.healthy(options);

                step("6/6", "%s the mix through each catalog, scenario by scenario".formatted(options.users() == 1 ? "1 user runs" : options.users() + " users run"));
                Scenarios scenarios = new Scenarios(storage, trino, options, catalogs, lake, reference);
                List<PhaseResult> results = scenarios.run();

                DemoReport report = new DemoReport(results, catalogs.names());
                String header = header(options, storage, lake, startedAt, seconds(demoStart)) + notes(scenarios.notes());
                String subtitle = "%s: %s, TPC-H %s in %s tables; %s: %s".formatted(String.join(" vs ", catalogs.names()), usersText(options.users()), options.scale(),
                        format.displayName(), storageName(options), options.storage());
                Path file = report.write(options.report(), header, subtitle, DemoQueries.ALL);
                System.out.printf("%n%s%n%s%n%s%n%n", report.table(), report.scoreboard(), report.cpuBound());
                System.out.printf("""
                        Storage bytes and requests: counted by %s as it serves them (metadata and footers included).
                        CPU time: Trino's own count per query over every node (the JDBC driver's query stats). Host CPU: this
                        machine's CPUs busy over each phase; a phase at 90%% or more is CPU-bound.
                        Cache figures: Overdrive's MBeans and Trino's AlluxioCacheStats on the Trino nodes, over JMX.
                        Times are wall clock as each user's JDBC client saw them, on a shared 2-core machine: read them as
                        indications; ./overdrive bench all runs every scenario (docs/benchmarks.md).
                        Report (charts; every run, phase and ratio as CSV beside it): %s
                        Demo finished in %.0fs.
                        """, storage.counter(), file, seconds(demoStart));
                if (options.serve()) {
                    serve(trino, storage, options);
                }
                return report;
            }
        }
    }

    /** The three catalogs of the lake's table format: their names, connectors and properties, over the same metastore and files. */
    static final class Catalogs
    {
        private final DemoStorage storage;
        private final LakeFormat format;
        private final Map<String, String> overdriveProperties;

        Catalogs(DemoStorage storage, DemoOptions options)
        {
            this.storage = requireNonNull(storage, "storage is null");
            this.format = options.format();
            this.overdriveProperties = options.overdriveProperties();
        }

        /** Stock, Trino's cache, Overdrive: the report's order. */
        List<String> names()
        {
            return format.catalogs();
        }

        /** The stock catalog, whose rows every other catalog's must equal. */
        String stock()
        {
            return format.stockCatalog();
        }

        String connector(String catalog)
        {
            return format.connector(catalog);
        }

        Map<String, String> properties(String catalog, String cacheSize)
        {
            Map<String, String> stock = storage.catalog(format, "/demo/metastore");
            // the demo's metastore is Trino's file metastore on the same slow storage; a lake's Hive metastore would not
            // be behind the storage's latency, so every catalog keeps its metadata in memory, as Trino can (Iceberg's
            // catalogs too: they find each table's current metadata file through the same metastore)
            stock.put("hive.metastore-cache-ttl", "10m");
            if (catalog.equals(stock())) {
                return stock;
            }
            return switch (catalog) {
                case TRINO_CACHE -> storage.withTrinoCache(stock, TRINO_CACHE_DIRECTORY, cacheSize);
                case OVERDRIVE -> {
                    Map<String, String> overdrive = HiveCatalogs.withShippedDefaults(stock, OVERDRIVE_CACHE_DIRECTORY, cacheSize);
                    // the one setting without a default: the secret that turns peer reads and the load signal on
                    overdrive.put("cache.peer.shared-secret", PEER_SECRET);
                    overdrive.putAll(overdriveProperties);
                    yield overdrive;
                }
                default -> throw new IllegalArgumentException("unknown catalog " + catalog);
            };
        }
    }

    /** The measured tables' total size and the scan-pollution table's (bytes of their files). */
    record Lake(long bytes, long scanBytes) {}

    private static double scaleFactor(String scale)
    {
        return scale.equals("tiny") ? 0.01 : Double.parseDouble(scale.substring("sf".length()));
    }

    // every table written once, through the stock catalog; the other catalogs read the same files
    private static Lake load(TrinoProcessCluster trino, DemoOptions options)
    {
        LakeFormat format = options.format();
        String stock = format.stockCatalog();
        trino.execute("DROP SCHEMA IF EXISTS %s.%s CASCADE".formatted(stock, SCHEMA));
        trino.execute("DROP SCHEMA IF EXISTS %s.%s CASCADE".formatted(stock, WARMUP_SCHEMA));
        trino.execute("CREATE SCHEMA %s.%s".formatted(stock, SCHEMA));
        trino.execute("CREATE SCHEMA %s.%s".formatted(stock, WARMUP_SCHEMA));
        long total = 0;
        for (String table : TABLES) {
            long start = System.nanoTime();
            long rows = trino.execute("CREATE TABLE %s.%s.%s WITH (%s) AS SELECT * FROM tpch.\"%s\".%s".formatted(stock, SCHEMA, table, format.tableProperties(), options.scale(), table));
            trino.execute("CREATE TABLE %s.%s.%s WITH (%s) AS SELECT * FROM tpch.tiny.%s".formatted(stock, WARMUP_SCHEMA, table, format.tableProperties(), table));
            long bytes = tableBytes(trino, format, SCHEMA, table);
            total += bytes;
            System.out.printf("      %-9s %,10d rows %10s  %5.1fs%n", table, rows, DemoReport.bytes(bytes), seconds(start));
        }
        long lineitem = tableBytes(trino, format, SCHEMA, "lineitem");
        long scanBytes = 0;
        if (options.scenarios().contains(Scenario.SCAN_POLLUTION)) {
            // TPC-H lineitem at the scale that makes it 1.5 times the cache, so that a cache that admits it all loses
            // everything it held (copies of the lake's own lineitem would not do: Parquet compresses repeated rows away)
            BigDecimal scanScale = BigDecimal.valueOf(scaleFactor(options.scale()) * 1.5 * options.cacheSize() / lineitem).setScale(2, RoundingMode.UP);
            long start = System.nanoTime();
            trino.execute("CREATE TABLE %s.%s.%s WITH (%s) AS SELECT * FROM tpch.\"sf%s\".lineitem".formatted(stock, SCHEMA, SCAN_TABLE, format.tableProperties(),
                    scanScale.stripTrailingZeros().toPlainString()));
            scanBytes = tableBytes(trino, format, SCHEMA, SCAN_TABLE);
            System.out.printf("      %s: TPC-H lineitem at scale factor %s, %s  %5.1fs%n", SCAN_TABLE, scanScale.stripTrailingZeros().toPlainString(), DemoReport.bytes(scanBytes), seconds(start));
        }
        return new Lake(total, scanBytes);
    }

    private static long tableBytes(TrinoProcessCluster trino, LakeFormat format, String schema, String table)
    {
        Object bytes = trino.query(format.tableBytesQuery(format.stockCatalog(), schema, table)).getFirst().getFirst();
        return bytes == null ? 0 : ((Number) bytes).longValue();
    }

    // the reference rows come from the stock catalog, which has no cache to fill
    private static Map<String, List<List<Object>>> reference(TrinoProcessCluster trino, String stock)
    {
        Map<String, List<List<Object>>> reference = new LinkedHashMap<>();
        for (DemoQueries.Query query : DemoQueries.ALL) {
            reference.put(query.name(), trino.query(query.sql(stock + "." + SCHEMA)));
        }
        return reference;
    }

    // every catalog runs the mix on the small warm-up tables, so that its code is compiled before anything is timed,
    // after the cluster or its workers start; the stock catalog's rows there are the reference for the others
    static void warmUp(TrinoProcessCluster trino, Catalogs catalogs)
    {
        for (DemoQueries.Query query : DemoQueries.ALL) {
            List<List<Object>> expected = trino.query(query.sql(catalogs.stock() + "." + WARMUP_SCHEMA));
            for (String catalog : catalogs.names().subList(1, catalogs.names().size())) {
                if (!ResultRows.same(trino.query(query.sql(catalog + "." + WARMUP_SCHEMA)), expected)) {
                    throw new IllegalStateException("%s: %s's rows differ from stock %s's on the %s tables".formatted(query.name(), catalog, catalogs.stock(), WARMUP_SCHEMA));
                }
            }
        }
    }

    private static String rounds(DemoOptions options)
    {
        return options.rounds() == 1
                ? "1 round (--rounds 1: no interval over rounds; --rounds 5 gives one)"
                : "%d rounds (every measured phase %d times)".formatted(options.rounds(), options.rounds());
    }

    private static String storageName(DemoOptions options)
    {
        return switch (options.storageKind()) {
            case HDFS -> "HDFS";
            case S3 -> "S3";
        };
    }

    private static String notes(List<String> notes)
    {
        if (notes.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("\nUnmeasured steps between the phases:\n");
        notes.forEach(note -> out.append("- ").append(note).append('\n'));
        return out.toString();
    }

    private static String usersText(int users)
    {
        return users == 1 ? "1 user" : users + " users";
    }

    private static String header(DemoOptions options, DemoStorage storage, Lake lake, Instant startedAt, double seconds)
    {
        LakeFormat format = options.format();
        return """
                # Overdrive demo report

                Run %s, %.0f s, by `./overdrive demo` (or `bench all`) with: scenarios %s; %s, TPC-H %s (%s tables, Parquet, %s in %d tables), %d warm pass(es) per catalog, %s.
                Table format: **%s** (`--format %s`): %s.
                Storage: %s on loopback%s; %s; in the slow-node scenario %s.
                Trino %s: coordinator + 2 workers (+ a third that joins in the scale-out and overflow scenarios), separate JVMs on this machine. Machine: %d CPUs, load average at the end %.2f, JDK %s.

                Catalogs, on the same metastore and files:
                - `%s`: stock %s connector, no cache (the anchor of "without anything").
                - `%s`: stock %s connector with Trino's own file system cache (`fs.cache.enabled=true`, %s per worker, 1 MB pages,
                  Trino's cache affinity at its defaults); %s: what a Trino user runs without Overdrive.
                - `%s`: `%s` with its shipped defaults; only the switches that turn each feature on (`cache.enabled`, the
                  same cache size, `node-selection-strategy=SOFT_AFFINITY`, `hedged-read.threadpool-size=32`, and a random
                  `cache.peer.shared-secret`, which turns peer reads and the workers' load reports on).
                All keep metastore metadata in memory (`hive.metastore-cache-ttl`). Cold: every cache empty (workers restarted with
                empty cache directories when a scenario before left them full), then every catalog's code warmed on a small copy of
                the tables. The catalogs take turns, never together: cold passes in a seeded shuffled order (`--seed %d`), warm passes in
                the order A B C, then C B A; round after round that order rotates and reverses, so that each catalog runs first and
                last equally often, and every cold phase's round starts on empty caches. Every user's query is timed as its JDBC client sees it and its rows compared with stock %s's.
                %s""".formatted(startedAt, seconds, options.scenarioList(), usersText(options.users()), options.scale(), format.displayName(), DemoReport.bytes(lake.bytes()), TABLES.size(),
                options.warmPasses(), rounds(options), format.displayName(), format.id(), format.description(), storage.description(),
                options.storageKind() == DemoStorage.Kind.HDFS ? ", replication 3" : "", options.storage(), options.slowNode(),
                ProjectLayout.TRINO_VERSION, Runtime.getRuntime().availableProcessors(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                System.getProperty("java.runtime.version"), format.stockCatalog(), format.displayName(), TRINO_CACHE, format.displayName(), options.cacheSizeProperty(),
                storage.trinoCacheExtras(options), OVERDRIVE, format.overdriveConnector(), options.seed(), format.stockCatalog(),
                options.overdriveProperties().isEmpty()
                        ? ""
                        : "**Not the shipped defaults:** `%s` also sets %s (`--overdrive-property`).\n".formatted(OVERDRIVE, options.overdriveProperties().entrySet().stream()
                                .map(entry -> "`%s=%s`".formatted(entry.getKey(), entry.getValue()))
                                .collect(joining(", "))));
    }

    private static void serve(TrinoProcessCluster trino, DemoStorage storage, DemoOptions options)
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

                The cluster stays up, storage still like a lake (%s), until you press Ctrl-C.
                  Trino CLI: %s   (in another terminal; trino-cli 476 from Maven Central, same client protocol as 483)
                  Web UI:    http://127.0.0.1:%d/ui/  (any user name)
                  JDBC:      %s?user=demo
                  Catalogs:  %s (stock %s), %s (%s + Trino's fs.cache), %s (%s), tpch; tables in schema %s,
                             e.g. SELECT count(*) FROM %s.%s.lineitem
                  JMX:       %s  (Overdrive's MBeans: io.overdrive.*, e.g. with jconsole)
                  Storage:   %s
                  Logs:      %s
                  Try, in the CLI:
                    SELECT node_id, count(*) AS splits, sum(bytes_from_storage) AS from_storage, sum(bytes_from_cache) AS from_cache
                      FROM TABLE(%s.system.warm_cache(schema_name => '%s', table_name => 'orders')) GROUP BY 1;
                    SELECT node_id, attribute, value FROM %s.system.cache_metrics
                      WHERE mbean = 'PageCacheStats' AND attribute IN ('Hits', 'Misses', 'BytesCached') ORDER BY 1, 2;
                    SELECT node_id, table_name, cached_files, cached_bytes, hits, last_access FROM %s.system.cached_tables
                      ORDER BY cached_bytes DESC;
                    SET SESSION %s.cache_populate = 'NEVER';  -- this session's queries read the cache but do not fill it
                """, options.storage(), defaultWork ? "./overdrive cli" : "./overdrive cli --work " + options.work(), port, trino.jdbcUrl(),
                options.format().stockCatalog(), options.format().displayName(), TRINO_CACHE, options.format().displayName(), OVERDRIVE, options.format().overdriveConnector(), SCHEMA,
                OVERDRIVE, SCHEMA, jmxPorts(trino), storage.address(), trino.coordinator().home().getParent(), OVERDRIVE, SCHEMA, OVERDRIVE, OVERDRIVE, OVERDRIVE);
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
