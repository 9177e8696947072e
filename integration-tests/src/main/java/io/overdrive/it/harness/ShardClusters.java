package io.overdrive.it.harness;

import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.IntStream;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Independent single-node Trino clusters ("shards") on loopback, for the {@code overdrive_shards} connector's tests and
 * benchmark: each is its own {@link TrinoProcessCluster} (one JVM, the coordinator schedules work on itself), with the
 * catalogs {@code tpch} and {@code memory} (plus any added), started in parallel. Shards are numbered from 1.
 * <p>
 * {@link #loadSplit} spreads a table (typically TPC-H) over the shards by contiguous, disjoint ranges of an integer key
 * covering all its values, into a {@code memory} table on every shard (or on some of them), so that the union of the
 * shards' tables is the source table.
 */
public final class ShardClusters
        implements AutoCloseable
{
    public static final String DEFAULT_HEAP = "1g";

    private final List<TrinoProcessCluster> shards;

    private ShardClusters(List<TrinoProcessCluster> shards)
    {
        this.shards = List.copyOf(shards);
    }

    /** Starts {@code count} shards with the default heap ({@value #DEFAULT_HEAP}), under {@code workDirectory/shard-<n>}. */
    public static ShardClusters start(ProjectLayout layout, Path workDirectory, int count)
    {
        return builder(layout, workDirectory).shards(count).start();
    }

    public static Builder builder(ProjectLayout layout, Path workDirectory)
    {
        return new Builder(layout, workDirectory);
    }

    public static final class Builder
    {
        private final ProjectLayout layout;
        private final Path workDirectory;
        private int shards = 3;
        private String heapSize = DEFAULT_HEAP;
        private final Map<String, Map.Entry<String, Map<String, String>>> catalogs = new LinkedHashMap<>();
        private final Map<String, String> properties = new LinkedHashMap<>();

        private Builder(ProjectLayout layout, Path workDirectory)
        {
            this.layout = requireNonNull(layout, "layout is null");
            this.workDirectory = requireNonNull(workDirectory, "workDirectory is null").toAbsolutePath();
            catalog("tpch", "tpch", Map.of());
            // the memory connector keeps its tables on the heap, 128MB per node by default
            catalog("memory", "memory", Map.of("memory.max-data-per-node", "384MB"));
        }

        public Builder shards(int shards)
        {
            checkArgument(shards >= 1, "shards must be at least 1: %s", shards);
            this.shards = shards;
            return this;
        }

        /** The heap of every shard JVM ({@value #DEFAULT_HEAP} by default: 8 shards fit next to a coordinator in 24 GB). */
        public Builder heapSize(String heapSize)
        {
            this.heapSize = requireNonNull(heapSize, "heapSize is null");
            return this;
        }

        /** Adds a catalog on every shard, or replaces one ({@code tpch} and {@code memory} are there by default). */
        public Builder catalog(String name, String connector, Map<String, String> properties)
        {
            catalogs.put(name, Map.entry(connector, Map.copyOf(properties)));
            return this;
        }

        /** A {@code config.properties} entry of every shard. */
        public Builder property(String key, String value)
        {
            properties.put(key, value);
            return this;
        }

        /** Starts the shards in parallel, printing progress; if any fails to start, stops the others and throws. */
        public ShardClusters start()
        {
            long start = System.nanoTime();
            log("starting %d shard(s), -Xmx%s each".formatted(shards, heapSize));
            List<Future<TrinoProcessCluster>> futures = new ArrayList<>();
            try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int shard = 1; shard <= shards; shard++) {
                    int number = shard;
                    futures.add(executor.submit(() -> startShard(number, start)));
                }
            }
            List<TrinoProcessCluster> started = new ArrayList<>();
            RuntimeException failure = null;
            for (Future<TrinoProcessCluster> future : futures) {
                try {
                    started.add(future.get());
                }
                catch (ExecutionException e) {
                    RuntimeException cause = e.getCause() instanceof RuntimeException runtime ? runtime : new RuntimeException(e.getCause());
                    if (failure == null) {
                        failure = cause;
                    }
                    else {
                        failure.addSuppressed(cause);
                    }
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failure = new RuntimeException("interrupted while starting the shards", e);
                }
            }
            if (failure != null) {
                started.forEach(TrinoProcessCluster::close);
                throw failure;
            }
            log("%d shard(s) up in %.1f s".formatted(shards, seconds(start)));
            return new ShardClusters(started);
        }

        private TrinoProcessCluster startShard(int shard, long start)
        {
            TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(layout, workDirectory.resolve("shard-" + shard))
                    .workers(0)
                    .heapSize(heapSize)
                    // a single-node cluster: the coordinator runs the tasks (and holds the memory tables) itself
                    .coordinatorProperty("node-scheduler.include-coordinator", "true");
            properties.forEach(builder::coordinatorProperty);
            catalogs.forEach((name, catalog) -> builder.catalog(name, catalog.getKey(), catalog.getValue()));
            TrinoProcessCluster cluster = builder.start();
            log("shard %d up at %s after %.1f s".formatted(shard, cluster.coordinator().httpUri(), seconds(start)));
            return cluster;
        }
    }

    /** One shard's part of a split table: keys in {@code [lowerInclusive, upperExclusive)}, and how many rows it got. */
    public record ShardRange(int shard, long lowerInclusive, long upperExclusive, long rows)
    {
        /** The SQL predicate selecting this shard's rows. */
        public String predicate(String keyColumn)
        {
            return ShardClusters.predicate(keyColumn, lowerInclusive, upperExclusive);
        }
    }

    public int size()
    {
        return shards.size();
    }

    /** Shard numbers, 1 to {@link #size()}. */
    public List<Integer> numbers()
    {
        return IntStream.rangeClosed(1, size()).boxed().toList();
    }

    /** The shard's cluster (one node), numbered from 1. */
    public TrinoProcessCluster shard(int shard)
    {
        checkArgument(shard >= 1 && shard <= shards.size(), "no shard %s: shards are numbered 1 to %s", shard, shards.size());
        return shards.get(shard - 1);
    }

    public URI httpUri(int shard)
    {
        return shard(shard).coordinator().httpUri();
    }

    public String jdbcUrl(int shard)
    {
        return shard(shard).jdbcUrl();
    }

    /** {@code http://127.0.0.1:<port>/<catalog>/<schema>}: how the connector's {@code shards.uris} names a shard. */
    public String uri(int shard, String catalog, String schema)
    {
        return "%s/%s/%s".formatted(httpUri(shard), catalog, schema);
    }

    /** {@link #uri} of each of the given shards, comma separated: a {@code shards.uris} value. */
    public String uris(List<Integer> shardNumbers, String catalog, String schema)
    {
        return String.join(",", shardNumbers.stream().map(shard -> uri(shard, catalog, schema)).toList());
    }

    public List<List<Object>> query(int shard, String sql)
    {
        return shard(shard).query(sql);
    }

    public long execute(int shard, String sql)
    {
        return shard(shard).execute(sql);
    }

    /** Runs a statement on every shard in parallel. */
    public void executeOnAll(String sql)
    {
        onEach(numbers(), shard -> execute(shard, sql));
    }

    /** Splits {@code sourceTable} over all shards: see {@link #loadSplit(String, String, String, List)}. */
    public List<ShardRange> loadSplit(String sourceTable, String keyColumn, String targetTable)
    {
        return loadSplit(sourceTable, keyColumn, targetTable, numbers());
    }

    /**
     * Creates {@code targetTable} (e.g. {@code memory.shard.orders}; its schema is created if missing) on each of the
     * given shards with the rows of {@code sourceTable} (a table every shard can read, e.g. {@code tpch.tiny.orders})
     * whose integer {@code keyColumn} falls in that shard's range: the range from the key's minimum to its maximum cut
     * into as many contiguous, disjoint pieces of (nearly) equal width as there are shards, in the order given. Loads in
     * parallel; returns the ranges with their row counts, and fails if they do not add up to the source's row count.
     */
    public List<ShardRange> loadSplit(String sourceTable, String keyColumn, String targetTable, List<Integer> shardNumbers)
    {
        checkArgument(!shardNumbers.isEmpty(), "no shards to load %s into", targetTable);
        checkArgument(shardNumbers.stream().distinct().count() == shardNumbers.size(), "a shard is named twice: %s", shardNumbers);
        String[] target = targetTable.split("\\.");
        checkArgument(target.length == 3, "target table must be catalog.schema.table: %s", targetTable);
        long start = System.nanoTime();
        int first = shardNumbers.getFirst();
        List<Object> bounds = query(first, "SELECT min(%s), max(%1$s), count(*) FROM %s".formatted(keyColumn, sourceTable)).getFirst();
        checkArgument(bounds.get(0) != null, "%s is empty", sourceTable);
        long min = ((Number) bounds.get(0)).longValue();
        long max = ((Number) bounds.get(1)).longValue();
        long sourceRows = ((Number) bounds.get(2)).longValue();
        List<Long> lowers = splitPoints(min, max, shardNumbers.size());

        log("loading %s into %s on shards %s, split by %s in [%d, %d]".formatted(sourceTable, targetTable, shardNumbers, keyColumn, min, max));
        List<Long> rows = onEach(shardNumbers, shard -> {
            int index = shardNumbers.indexOf(shard);
            execute(shard, "CREATE SCHEMA IF NOT EXISTS %s.%s".formatted(target[0], target[1]));
            long loaded = execute(shard, "CREATE TABLE %s AS SELECT * FROM %s WHERE %s".formatted(targetTable, sourceTable,
                    predicate(keyColumn, lowers.get(index), lowers.get(index + 1))));
            log("shard %d: %,d rows of %s loaded into %s".formatted(shard, loaded, sourceTable, targetTable));
            return loaded;
        });
        List<ShardRange> ranges = new ArrayList<>();
        for (int index = 0; index < shardNumbers.size(); index++) {
            ranges.add(new ShardRange(shardNumbers.get(index), lowers.get(index), lowers.get(index + 1), rows.get(index)));
        }
        long total = rows.stream().mapToLong(Long::longValue).sum();
        if (total != sourceRows) {
            throw new IllegalStateException("the shards' parts of %s hold %d rows, the source %d: %s".formatted(targetTable, total, sourceRows, ranges));
        }
        log("%s: %,d rows over %d shard(s) in %.1f s".formatted(targetTable, total, shardNumbers.size(), seconds(start)));
        return List.copyOf(ranges);
    }

    /**
     * The lower bounds of {@code parts} contiguous ranges covering {@code [min, max]}, then {@code max + 1}: range
     * {@code i} is {@code [points[i], points[i + 1])}. Widths differ by at most one.
     */
    static List<Long> splitPoints(long min, long max, int parts)
    {
        checkArgument(min <= max, "min %s > max %s", min, max);
        checkArgument(parts >= 1, "parts must be at least 1: %s", parts);
        BigInteger low = BigInteger.valueOf(min);
        BigInteger width = BigInteger.valueOf(max).subtract(low).add(BigInteger.ONE);
        List<Long> points = new ArrayList<>();
        for (int part = 0; part <= parts; part++) {
            points.add(low.add(width.multiply(BigInteger.valueOf(part)).divide(BigInteger.valueOf(parts))).longValueExact());
        }
        return points;
    }

    private static String predicate(String keyColumn, long lowerInclusive, long upperExclusive)
    {
        return "%s >= %d AND %1$s < %d".formatted(keyColumn, lowerInclusive, upperExclusive);
    }

    /** Runs the function for each shard in parallel; results in the order of the shards given. */
    public static <T> List<T> onEach(List<Integer> shardNumbers, Function<Integer, T> function)
    {
        List<Future<T>> futures = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int shard : shardNumbers) {
                futures.add(executor.submit(() -> function.apply(shard)));
            }
        }
        List<T> results = new ArrayList<>();
        for (Future<T> future : futures) {
            try {
                results.add(future.get());
            }
            catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException runtime ? runtime : new RuntimeException(e.getCause());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
        return results;
    }

    @Override
    public void close()
    {
        // in parallel: each waits up to 20 s for its JVM to exit after its stdin closes
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (TrinoProcessCluster shard : shards) {
                executor.execute(shard::close);
            }
        }
    }

    private static double seconds(long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static void log(String message)
    {
        System.out.println("[overdrive-shards] " + message);
    }
}
