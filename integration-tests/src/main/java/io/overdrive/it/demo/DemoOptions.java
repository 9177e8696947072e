package io.overdrive.it.demo;

import com.google.common.collect.ImmutableMap;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * What {@code ./overdrive demo} (and {@code ./overdrive bench all}) run: the scenarios, the data-lake-like storage and its
 * table format, the users, the caches and where the report goes. Every option has a default chosen so that the demo
 * takes under 6 minutes on 2 cores.
 */
record DemoOptions(
        Path repo,
        Path work,
        Path report,
        DemoStorage.Kind storageKind,
        LakeFormat format,
        List<Scenario> scenarios,
        String scale,
        int users,
        Duration storageLatency,
        long storageBandwidth,
        Duration slowDataNode,
        int warmPasses,
        int rounds,
        long cacheSize,
        Duration hdfsHedgeThreshold,
        long seed,
        Map<String, String> overdriveProperties,
        boolean serve)
{
    /**
     * HDFS's hedged-read threshold in the {@code trino_cache} catalog's {@code hdfs-site.xml}: the best of the thresholds
     * from 10 ms to 2 s that {@code ./overdrive bench hedge} swept for stock Trino on the scoreboard's storage.
     */
    static final Duration BEST_HDFS_HEDGE_THRESHOLD = Duration.ofMillis(50);

    static final int MAX_ROUNDS = 100;

    // also printed by ./overdrive demo --help without building anything
    static final String USAGE = readUsage();

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)(mb|gb)");

    DemoOptions
    {
        requireNonNull(repo, "repo is null");
        requireNonNull(work, "work is null");
        requireNonNull(report, "report is null");
        requireNonNull(storageKind, "storageKind is null");
        requireNonNull(format, "format is null");
        requireNonNull(scale, "scale is null");
        requireNonNull(storageLatency, "storageLatency is null");
        requireNonNull(slowDataNode, "slowDataNode is null");
        scenarios = List.copyOf(scenarios);
        requireNonNull(hdfsHedgeThreshold, "hdfsHedgeThreshold is null");
        overdriveProperties = ImmutableMap.copyOf(overdriveProperties);
        if (scenarios.isEmpty()) {
            throw new IllegalArgumentException("--scenario needs at least one scenario");
        }
        if (cacheSize < (4L << 20)) {
            throw new IllegalArgumentException("--cache-size must be at least 4MB");
        }
        if (hdfsHedgeThreshold.isZero()) {
            throw new IllegalArgumentException("--hdfs-hedge-threshold must be above 0");
        }
        if (!List.of("tiny", "sf0.1", "sf1").contains(scale)) {
            throw new IllegalArgumentException("--scale must be tiny, sf0.1 or sf1, not " + scale);
        }
        if (users < 1 || users > 64) {
            throw new IllegalArgumentException("--users must be between 1 and 64, not " + users);
        }
        if (storageBandwidth < 0) {
            throw new IllegalArgumentException("--storage-bandwidth must not be negative");
        }
        if (warmPasses < 1) {
            throw new IllegalArgumentException("--warm-passes must be at least 1");
        }
        if (rounds < 1 || rounds > MAX_ROUNDS) {
            throw new IllegalArgumentException("--rounds must be between 1 and %d, not %d".formatted(MAX_ROUNDS, rounds));
        }
    }

    private static String readUsage()
    {
        try (InputStream in = DemoOptions.class.getResourceAsStream("usage.txt")) {
            if (in == null) {
                throw new IllegalStateException("io/overdrive/it/demo/usage.txt is missing from the class path");
            }
            return new String(in.readAllBytes(), UTF_8).stripTrailing();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static DemoOptions parse(String... args)
    {
        Path repo = Path.of(".");
        Path work = null;
        Path report = null;
        DemoStorage.Kind storageKind = DemoStorage.Kind.HDFS;
        LakeFormat format = LakeFormat.HIVE;
        List<Scenario> scenarios = List.of(Scenario.SLOW_NODE);
        String scale = "sf0.1";
        int users = 1;
        Duration storageLatency = Duration.ofMillis(15);
        long storageBandwidth = 64L << 20;
        Duration slowDataNode = Duration.ofMillis(1000);
        int warmPasses = 2;
        int rounds = 1;
        long cacheSize = 64L << 20;
        Duration hdfsHedgeThreshold = BEST_HDFS_HEDGE_THRESHOLD;
        long seed = 1;
        boolean serve = false;
        Map<String, String> overdriveProperties = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--repo" -> repo = Path.of(value(args, ++i, option));
                case "--work" -> work = Path.of(value(args, ++i, option));
                case "--report" -> report = Path.of(value(args, ++i, option));
                case "--storage" -> storageKind = DemoStorage.Kind.parse(value(args, ++i, option));
                case "--format" -> format = LakeFormat.parse(value(args, ++i, option));
                case "--scenario" -> scenarios = Scenario.parse(value(args, ++i, option));
                case "--scale" -> scale = value(args, ++i, option);
                case "--users" -> users = integer(value(args, ++i, option), option);
                case "--storage-latency" -> storageLatency = duration(value(args, ++i, option), option);
                case "--storage-bandwidth" -> storageBandwidth = bandwidth(value(args, ++i, option), option);
                case "--slow-datanode" -> slowDataNode = duration(value(args, ++i, option), option);
                case "--warm-passes" -> warmPasses = integer(value(args, ++i, option), option);
                case "--rounds" -> rounds = integer(value(args, ++i, option), option);
                case "--cache-size" -> cacheSize = size(value(args, ++i, option), option);
                case "--hdfs-hedge-threshold" -> hdfsHedgeThreshold = duration(value(args, ++i, option), option);
                case "--seed" -> seed = integer(value(args, ++i, option), option);
                case "--serve" -> serve = true;
                case "--overdrive-property" -> {
                    String property = value(args, ++i, option);
                    int equals = property.indexOf('=');
                    if (equals <= 0) {
                        throw new IllegalArgumentException("--overdrive-property needs NAME=VALUE, e.g. node-selection.preferred-hosts-count=1: '%s'".formatted(property));
                    }
                    overdriveProperties.put(property.substring(0, equals).strip(), property.substring(equals + 1).strip());
                }
                default -> throw new IllegalArgumentException("unknown option '%s'\n%s".formatted(option, USAGE));
            }
        }
        repo = repo.toAbsolutePath().normalize();
        work = work == null ? repo.resolve(".demo") : work.toAbsolutePath().normalize();
        report = report == null ? work.resolve("report") : report.toAbsolutePath().normalize();
        return new DemoOptions(repo, work, report, storageKind, format, scenarios, scale, users, storageLatency, storageBandwidth, slowDataNode, warmPasses, rounds, cacheSize, hdfsHedgeThreshold, seed, overdriveProperties, serve);
    }

    static boolean wantsHelp(String... args)
    {
        return List.of(args).contains("--help") || List.of(args).contains("-h");
    }

    /** The healthy storage in a line: "15 ms per block read request, 64 MB/s in all". */
    String storage()
    {
        String bandwidth = storageBandwidth == 0 ? "unlimited bandwidth" : "%d MB/s in all".formatted(storageBandwidth >> 20);
        return switch (storageKind) {
            case HDFS -> (storageLatency.isZero() ? "no added latency" : storageLatency.toMillis() + " ms per block read request") + ", " + bandwidth;
            case S3 -> storageLatency.isZero()
                    ? "no added latency, " + bandwidth
                    : "%d ms before each GET's first byte, %.0f%% of the GETs a further random 0-%d ms, %s"
                            .formatted(storageLatency.toMillis(), DemoStorage.S3_TAIL_SHARE * 100, DemoStorage.S3_TAIL.toMillis(), bandwidth);
        };
    }

    /** The slow-node scenario's fault in a line: "DataNode 0 a further random 0-1000 ms per request". */
    String slowNode()
    {
        return switch (storageKind) {
            case HDFS -> slowDataNode.isZero() ? "no slow DataNode" : "DataNode 0 a further random 0-%d ms per request".formatted(slowDataNode.toMillis());
            case S3 -> slowDataNode.isZero() ? "no slow endpoint" : "a slow endpoint: a third of the GETs a further random 0-%d ms".formatted(slowDataNode.toMillis());
        };
    }

    /** The cache size as a catalog property value: {@code 64MB}. */
    String cacheSizeProperty()
    {
        return (cacheSize >> 20) + "MB";
    }

    /** The scenarios in a line: "healthy, slow-node". */
    String scenarioList()
    {
        return String.join(", ", scenarios.stream().map(Scenario::id).toList());
    }

    private static String value(String[] args, int index, String option)
    {
        if (index >= args.length) {
            throw new IllegalArgumentException("%s needs a value\n%s".formatted(option, USAGE));
        }
        return args[index];
    }

    private static int integer(String value, String option)
    {
        try {
            return Integer.parseInt(value);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("%s must be a whole number, not '%s'".formatted(option, value));
        }
    }

    // a size in bytes; MB and GB are binary (as Airlift's DataSize)
    static long size(String value, String option)
    {
        Matcher matcher = SIZE.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches() || Long.parseLong(matcher.group(1)) == 0) {
            throw new IllegalArgumentException("%s must be a size such as 64MB or 1GB, not '%s'".formatted(option, value));
        }
        return Long.parseLong(matcher.group(1)) << (matcher.group(2).equals("mb") ? 20 : 30);
    }

    // bytes per second, 0 for off; MB and GB are binary (as Airlift's DataSize)
    static long bandwidth(String value, String option)
    {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("off") || text.equals("0")) {
            return 0;
        }
        Matcher matcher = SIZE.matcher(text);
        if (!matcher.matches() || Long.parseLong(matcher.group(1)) == 0) {
            throw new IllegalArgumentException("%s must be a size per second such as 64MB or 1GB, or off, not '%s'".formatted(option, value));
        }
        return Long.parseLong(matcher.group(1)) << (matcher.group(2).equals("mb") ? 20 : 30);
    }

    static Duration duration(String value, String option)
    {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("off") || text.equals("0")) {
            return Duration.ZERO;
        }
        Matcher matcher = DURATION.matcher(text);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("%s must be a duration such as 15ms or 2s, or off, not '%s'".formatted(option, value));
        }
        long amount = Long.parseLong(matcher.group(1));
        Duration duration = matcher.group(2).equals("ms") ? Duration.ofMillis(amount) : Duration.ofSeconds(amount);
        if (duration.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("%s must be at most 10s, not '%s'".formatted(option, value));
        }
        return duration;
    }
}
