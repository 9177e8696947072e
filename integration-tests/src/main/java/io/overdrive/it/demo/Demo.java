package io.overdrive.it.demo;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The main job: a real HDFS and a real three-node Trino cluster (coordinator + 2 workers, separate JVMs) with the
 * Overdrive plugins installed from their zips; TPC-H loaded into Parquet and ORC tables on HDFS through
 * {@code overdrive_hive} with Overdrive's page cache on; a fixed query set run cold, then warm, through
 * {@code overdrive_hive}, then through the stock {@code hive} catalog over the same files, every result compared; a
 * table of times and of the bytes served from the cache. {@code --serve} keeps the cluster up.
 */
public final class Demo
{
    private static final List<String> TABLES = List.of("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem");
    private static final List<String> FORMATS = List.of("PARQUET", "ORC");

    private Demo() {}

    private record Options(Path repo, boolean serve, String scale, Path work)
    {
        static Options parse(String[] args)
        {
            Path repo = Path.of(".");
            boolean serve = false;
            String scale = "sf0.1";
            Path work = null;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--repo" -> repo = Path.of(args[++i]);
                    case "--serve" -> serve = true;
                    case "--scale" -> scale = args[++i];
                    case "--work" -> work = Path.of(args[++i]);
                    case "--help", "-h" -> {
                        System.out.println("usage: ./overdrive demo [--serve] [--scale tiny|sf0.1|sf1] [--work DIR]");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("Unknown option %s (try --help)".formatted(args[i]));
                }
            }
            if (!List.of("tiny", "sf0.1", "sf1").contains(scale)) {
                throw new IllegalArgumentException("--scale must be tiny, sf0.1 or sf1, not " + scale);
            }
            repo = repo.toAbsolutePath().normalize();
            return new Options(repo, serve, scale, work == null ? repo.resolve(".demo") : work.toAbsolutePath());
        }

        String tpchSchema()
        {
            // the tpch connector names scale factor 0.1 "sf0.1" and 0.01 "tiny"
            return scale;
        }
    }

    public static void main(String[] args)
            throws Exception
    {
        Options options = Options.parse(args);
        ProjectLayout layout = new ProjectLayout(options.repo());
        long demoStart = System.nanoTime();
        System.out.printf("Overdrive demo: HDFS (1 NameNode, 3 DataNodes) + Trino %s (coordinator + 2 workers), TPC-H %s, work dir %s%n" +
                "Catalogs: overdrive = overdrive_hive with the page cache and soft affinity; hive = stock Hive over the same files%n%n",
                ProjectLayout.TRINO_VERSION, options.scale(), options.work());

        step("1/4", "starting HDFS");
        long start = System.nanoTime();
        try (HdfsCluster hdfs = HdfsCluster.start(layout, options.work().resolve("hdfs"), 3)) {
            done(start, "HDFS at " + hdfs.nameNodeUri());

            step("2/4", "starting Trino: coordinator + 2 workers, plugins installed from the packaged zips");
            start = System.nanoTime();
            Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/demo/metastore");
            Map<String, String> overdrive = new LinkedHashMap<>(hive);
            overdrive.put("cache.enabled", "true");
            // relative to each server's working directory, so every worker has its own
            overdrive.put("cache.base-directory", "cache");
            overdrive.put("cache.max-size", "4GB");
            // each file goes to (and is cached by) the same worker every time
            overdrive.put("node-selection-strategy", "SOFT_AFFINITY");
            try (TrinoProcessCluster trino = TrinoProcessCluster.builder(layout, options.work().resolve("trino"))
                    .workers(2)
                    .catalog("overdrive", "overdrive_hive", overdrive)
                    .catalog("hive", "hive", hive)
                    .catalog("tpch", "tpch", Map.of())
                    .start()) {
                done(start, "coordinator at " + trino.coordinator().httpUri());

                step("3/4", "loading TPC-H %s into Parquet and ORC tables on HDFS through overdrive_hive".formatted(options.scale()));
                start = System.nanoTime();
                load(trino, options.tpchSchema());
                done(start, "loaded %s tables in %s formats".formatted(TABLES.size(), FORMATS.size()));

                step("4/4", "running %s queries per format, cold then warm, each checked against the stock hive catalog".formatted(DemoQueries.ALL.size()));
                List<Result> results = runQueries(trino);
                printTable(results);
                System.out.printf("%nDemo finished in %.0fs.%n", seconds(demoStart));
                boolean allMatch = results.stream().allMatch(Result::matchesHive);
                if (!allMatch) {
                    System.out.println("ERROR: some results differ from the stock hive catalog (see the table above)");
                }

                if (options.serve()) {
                    serve(trino, hdfs);
                }
                if (!allMatch) {
                    System.exit(1);
                }
            }
        }
    }

    private static void load(TrinoProcessCluster trino, String tpchSchema)
    {
        for (String format : FORMATS) {
            String schema = "overdrive.tpch_" + format.toLowerCase(Locale.ROOT);
            trino.execute("DROP SCHEMA IF EXISTS %s CASCADE".formatted(schema));
            trino.execute("CREATE SCHEMA %s".formatted(schema));
            for (String table : TABLES) {
                long start = System.nanoTime();
                long rows = trino.execute("CREATE TABLE %s.%s WITH (format = '%s') AS SELECT * FROM tpch.\"%s\".%s".formatted(schema, table, format, tpchSchema, table));
                System.out.printf("      %-8s %-9s %,10d rows  %5.1fs%n", format, table, rows, seconds(start));
            }
        }
    }

    record Result(String query, String format, long rows, double hiveSeconds, double coldSeconds, double warmSeconds, CacheBytes cold, CacheBytes warm, boolean matchesHive) {}

    /** Bytes Overdrive's readers got from the workers' caches and from HDFS during one run, summed over the workers. */
    record CacheBytes(long fromCache, long fromRemote)
    {
        static final String MBEANS = "io.overdrive.cache.stats:type=PageCacheStats,*";

        static CacheBytes read(TrinoProcessCluster trino)
        {
            return new CacheBytes(trino.sumOverWorkers(MBEANS, "BytesFromCache"), trino.sumOverWorkers(MBEANS, "BytesFromRemote"));
        }

        CacheBytes minus(CacheBytes earlier)
        {
            return new CacheBytes(fromCache - earlier.fromCache, fromRemote - earlier.fromRemote);
        }

        double cacheShare()
        {
            long total = fromCache + fromRemote;
            return total == 0 ? 0 : 100.0 * fromCache / total;
        }
    }

    private static List<Result> runQueries(TrinoProcessCluster trino)
    {
        List<Result> results = new ArrayList<>();
        for (String format : FORMATS) {
            String schema = "tpch_" + format.toLowerCase(Locale.ROOT);
            for (DemoQueries.Query query : DemoQueries.ALL) {
                String overdriveSql = query.sql("overdrive." + schema);
                CacheBytes start = CacheBytes.read(trino);
                long startNanos = System.nanoTime();
                List<List<Object>> cold = trino.query(overdriveSql);
                double coldSeconds = seconds(startNanos);
                CacheBytes afterCold = CacheBytes.read(trino);
                startNanos = System.nanoTime();
                List<List<Object>> warm = trino.query(overdriveSql);
                double warmSeconds = seconds(startNanos);
                CacheBytes afterWarm = CacheBytes.read(trino);
                // the stock connector last, so that it meets the same warm OS and HDFS as Overdrive's warm run
                startNanos = System.nanoTime();
                List<List<Object>> stock = trino.query(query.sql("hive." + schema));
                double hiveSeconds = seconds(startNanos);
                boolean matches = ResultRows.same(cold, stock) && ResultRows.same(warm, stock);
                Result result = new Result(query.name(), format, cold.size(), hiveSeconds, coldSeconds, warmSeconds, afterCold.minus(start), afterWarm.minus(afterCold), matches);
                System.out.printf("      %-5s %-8s %,6d rows  hive %5.2fs  overdrive cold %5.2fs  warm %5.2fs (%3.0f%% of bytes from cache)  %s%n",
                        query.name(), format, cold.size(), hiveSeconds, coldSeconds, warmSeconds, result.warm().cacheShare(), matches ? "same as hive" : "DIFFERS FROM HIVE");
                results.add(result);
            }
        }
        return results;
    }

    private static void printTable(List<Result> results)
    {
        System.out.println();
        System.out.println("| query | format  |   rows | hive (s) | overdrive cold (s) | overdrive warm (s) | warm bytes from cache | same rows as hive |");
        System.out.println("|-------|---------|-------:|---------:|-------------------:|-------------------:|----------------------:|-------------------|");
        for (Result result : results) {
            System.out.printf("| %-5s | %-7s | %,6d | %8.2f | %18.2f | %18.2f | %20.0f%% | %-17s |%n", result.query(), result.format(), result.rows(),
                    result.hiveSeconds(), result.coldSeconds(), result.warmSeconds(), result.warm().cacheShare(), result.matchesHive() ? "yes" : "NO");
        }
        for (String format : FORMATS) {
            List<Result> rows = results.stream().filter(result -> result.format().equals(format)).toList();
            CacheBytes warm = rows.stream().map(Result::warm).reduce(new CacheBytes(0, 0), (a, b) -> new CacheBytes(a.fromCache() + b.fromCache(), a.fromRemote() + b.fromRemote()));
            System.out.printf("| total | %-7s |        | %8.2f | %18.2f | %18.2f | %20.0f%% |                   |%n", format,
                    rows.stream().mapToDouble(Result::hiveSeconds).sum(), rows.stream().mapToDouble(Result::coldSeconds).sum(), rows.stream().mapToDouble(Result::warmSeconds).sum(), warm.cacheShare());
        }
        long coldRemote = results.stream().mapToLong(result -> result.cold().fromRemote()).sum();
        long warmRemote = results.stream().mapToLong(result -> result.warm().fromRemote()).sum();
        System.out.printf("%nRemote (HDFS) bytes read by overdrive_hive: cold %,d, warm %,d (%.0f%% less). Read from the workers' PageCacheStats MBeans over JMX.%n",
                coldRemote, warmRemote, coldRemote == 0 ? 0 : 100.0 * (coldRemote - warmRemote) / coldRemote);
        System.out.println("Times are single runs on a shared 2-core machine: read them as indications; docs/benchmarks.md has repeated measurements.");
    }

    private static void serve(TrinoProcessCluster trino, HdfsCluster hdfs)
            throws InterruptedException
    {
        int port = trino.coordinator().httpPort();
        System.out.printf("""

                The cluster stays up until you press Ctrl-C.
                  Web UI:   http://127.0.0.1:%1$d/ui/  (any user name)
                  JDBC:     %2$s?user=demo
                  CLI:      trino --server http://127.0.0.1:%1$d --catalog overdrive --schema tpch_parquet
                  HDFS:     %3$s  (NameNode)
                  Catalogs: overdrive (overdrive_hive), hive (stock), tpch
                  Logs:     %4$s
                """, port, trino.jdbcUrl(), hdfs.nameNodeUri(), trino.coordinator().home().getParent());
        // Ctrl-C runs the shutdown hooks that stop every process we started
        new CountDownLatch(1).await();
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
