package io.overdrive.it.benchmark;

import alluxio.client.file.CacheContext;
import alluxio.client.file.cache.CacheManager;
import alluxio.client.file.cache.PageId;
import alluxio.conf.AlluxioConfiguration;
import alluxio.file.ByteArrayTargetBuffer;
import io.airlift.units.DataSize;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.trino.filesystem.alluxio.AlluxioConfigurationFactory;
import io.trino.filesystem.alluxio.AlluxioFileSystemCacheConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;

import static io.overdrive.it.benchmark.BenchmarkStats.formatMillis;
import static io.overdrive.it.benchmark.BenchmarkStats.median;
import static io.overdrive.it.benchmark.BenchmarkStats.writeReport;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue #16's restart benchmark: a worker restarts over a cache of 100,000 pages. Measured from the moment the cache is
 * opened: how long opening blocks, the first hit of a reader asking for random cached pages, and the end of the
 * restore. Overdrive's page cache ({@code PageCache.create}, as the connector opens it) against Alluxio's cache manager
 * as Trino's {@code fs.cache} opens it ({@code AlluxioConfigurationFactory} and {@code CacheManager.Factory.create},
 * Alluxio's defaults: asynchronous restore, during which it serves restored pages and caches nothing new). Each system
 * is filled once with the same pages, then restarted several times, with the operating system's page cache warm (a
 * process restart) and, when this process may drop it (root on Linux), cold (a reboot).
 * <p>
 * Not part of the test run: {@code ./overdrive bench restart} ({@code -Doverdrive.benchmark=true}) writes the report to
 * {@code integration-tests/target/benchmarks/page-cache-restart.md}. Settings (prefix
 * {@code overdrive.benchmark.restart.}): {@code pages} (default 100000), {@code page-size} (default 16kB, so that two
 * caches of 100,000 pages fit 4 GB of disk), {@code rounds} (default 3).
 */
public class PageCacheRestartBenchmark
{
    private static final int PAGES_PER_FILE = 10;

    private final int pages = Integer.getInteger("overdrive.benchmark.restart.pages", 100_000);
    private final DataSize pageSize = DataSize.valueOf(System.getProperty("overdrive.benchmark.restart.page-size", "16kB"));
    private final int rounds = Integer.getInteger("overdrive.benchmark.restart.rounds", 3);

    private record Restart(double openMillis, double firstHitMillis, double restoredMillis, long hitsBeforeRestored, long readsBeforeRestored) {}

    /** One cache under test, opened again for each restart. */
    private interface CacheUnderTest
            extends AutoCloseable
    {
        /** Reads the page into {@code buffer}: whether it was a hit. */
        boolean read(PageId pageId, byte[] buffer);

        boolean restored();

        @Override
        void close()
                throws Exception;
    }

    @Test
    void restartBenchmark()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.benchmark"), "the restart benchmark runs only with -Doverdrive.benchmark=true: ./overdrive bench restart");
        Instant started = Instant.now();
        Path work = Path.of(System.getProperty("java.io.tmpdir"), "overdrive-restart-benchmark");
        deleteRecursively(work);
        int size = Math.toIntExact(pageSize.toBytes());
        List<PageId> pageIds = new ArrayList<>();
        for (int index = 0; index < pages; index++) {
            pageIds.add(new PageId("file-%08d".formatted(index / PAGES_PER_FILE), index % PAGES_PER_FILE));
        }
        DataSize maxSize = DataSize.ofBytes(2L * pages * (size + 64));
        boolean canDropCaches = dropCaches();

        log("filling Overdrive's cache with %,d pages of %s".formatted(pages, pageSize));
        long fillStart = System.nanoTime();
        Path overdriveDirectory = work.resolve("overdrive");
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(overdriveDirectory.toString())
                .setMaxSizes(maxSize.toBytesValueString())
                .setPageSize(pageSize)
                .setAdmissionEnabled(false);
        try (PageCache cache = PageCache.create("lake", config, new PageCacheStats())) {
            for (PageId pageId : pageIds) {
                cache.write("hdfs://namenode/warehouse/s/t/" + pageId.getFileId(), pageId, ByteBuffer.wrap(content(pageId, size)), CacheReadContext.forTable("s", "t", true));
            }
        }
        double overdriveFill = (System.nanoTime() - fillStart) / 1e6;

        log("filling Alluxio's cache (Trino's fs.cache) with the same pages");
        fillStart = System.nanoTime();
        AlluxioConfiguration alluxio = AlluxioConfigurationFactory.create(new AlluxioFileSystemCacheConfig()
                .setCacheDirectories(List.of(work.resolve("alluxio").toString()))
                .setMaxCacheSizes(List.of(maxSize))
                .setCachePageSize(pageSize));
        try (CacheManager manager = CacheManager.Factory.create(alluxio)) {
            awaitTrue(() -> manager.state() == CacheManager.State.READ_WRITE);
            for (PageId pageId : pageIds) {
                if (!manager.put(pageId, ByteBuffer.wrap(content(pageId, size)), CacheContext.defaults())) {
                    throw new IllegalStateException("Alluxio refused page " + pageId);
                }
            }
        }
        double alluxioFill = (System.nanoTime() - fillStart) / 1e6;

        List<Restart> overdriveWarm = new ArrayList<>();
        List<Restart> alluxioWarm = new ArrayList<>();
        List<Restart> overdriveCold = new ArrayList<>();
        List<Restart> alluxioCold = new ArrayList<>();
        List<Double> load = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            for (boolean cold : canDropCaches ? List.of(false, true) : List.of(false)) {
                // alternate which system restarts first, so that drift hits both
                boolean overdriveFirst = round % 2 == 0;
                for (int turn = 0; turn < 2; turn++) {
                    boolean overdrive = (turn == 0) == overdriveFirst;
                    if (cold) {
                        dropCaches();
                    }
                    Restart restart = overdrive
                            ? restart(() -> new OverdriveSystem(config), pageIds, size, round)
                            : restart(() -> new AlluxioSystem(alluxio), pageIds, size, round);
                    load.add(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
                    log("round %d %s %s: %s".formatted(round + 1, cold ? "cold" : "warm", overdrive ? "overdrive" : "alluxio", restart));
                    (overdrive ? (cold ? overdriveCold : overdriveWarm) : (cold ? alluxioCold : alluxioWarm)).add(restart);
                }
            }
        }

        StringBuilder report = new StringBuilder();
        report.append("# Page cache restart benchmark\n\n");
        report.append("%s, %d CPUs, %s; %,d pages of %s (%,d files of %d pages) per cache; %d rounds; load average %.1f-%.1f; %s.\n\n".formatted(
                started, Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), pages, pageSize, pages / PAGES_PER_FILE, PAGES_PER_FILE, rounds,
                load.stream().mapToDouble(Double::doubleValue).min().orElse(0), load.stream().mapToDouble(Double::doubleValue).max().orElse(0),
                canDropCaches ? "warm = the OS page cache kept (a process restart), cold = dropped before each restart (a reboot)" : "the OS page cache could not be dropped here, so only warm restarts"));
        report.append("Filling (write every page once): Overdrive %s ms, Alluxio %s ms.\n\n".formatted(formatMillis(overdriveFill), formatMillis(alluxioFill)));
        report.append("Medians over rounds, milliseconds from opening the cache. Opening: until the constructor returns (the worker's catalog is up). First hit: a reader asking for random cached pages, one after another, gets its first hit. Restored: every page is served (Overdrive: `RestoresRunning` is 0; Alluxio: its state is `READ_WRITE`, before which it caches nothing new). Hits before restored: that reader's hits until then, and what share of its reads they were (Overdrive restores a page a read asks for ahead of its turn; Alluxio's reads of pages it has not listed yet are misses).\n\n");
        report.append("| OS cache | system | opening | first hit | restored | hits before restored | of the reads meanwhile |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
        appendRows(report, "warm", overdriveWarm, alluxioWarm);
        if (canDropCaches) {
            appendRows(report, "cold", overdriveCold, alluxioCold);
        }
        report.append("\nOverdrive reads and checks every page's checksum while it restores (Alluxio only lists the files), restores a page a read asks for at once, and registers each page with its file's path, table and write time; Alluxio's restored pages have no table (no quota applies to them) and no path (no flush by table finds them).\n");
        writeReport("page-cache-restart.md", report.toString());
        log("took " + Duration.between(started, Instant.now()));
        deleteRecursively(work);
        assertTrue(overdriveWarm.stream().allMatch(restart -> restart.restoredMillis() >= 0), "every restart must finish its restore");
    }

    private static void appendRows(StringBuilder report, String cache, List<Restart> overdrive, List<Restart> alluxio)
    {
        for (var entry : List.of(java.util.Map.entry("Overdrive", overdrive), java.util.Map.entry("Alluxio (Trino's fs.cache)", alluxio))) {
            List<Restart> restarts = entry.getValue();
            report.append("| %s | %s | %s | %s | %s | %,.0f | %.1f%% |\n".formatted(cache, entry.getKey(),
                    formatMillis(median(restarts.stream().map(Restart::openMillis).toList())),
                    formatMillis(median(restarts.stream().map(Restart::firstHitMillis).toList())),
                    formatMillis(median(restarts.stream().map(Restart::restoredMillis).toList())),
                    median(restarts.stream().map(restart -> (double) restart.hitsBeforeRestored()).toList()),
                    100 * median(restarts.stream().map(restart -> restart.readsBeforeRestored() == 0 ? 0 : (double) restart.hitsBeforeRestored() / restart.readsBeforeRestored()).toList())));
        }
    }

    private interface Opener
    {
        CacheUnderTest open()
                throws Exception;
    }

    private static Restart restart(Opener opener, List<PageId> pageIds, int size, int round)
            throws Exception
    {
        List<PageId> order = new ArrayList<>(pageIds);
        Collections.shuffle(order, new Random(round));
        byte[] buffer = new byte[size];
        long start = System.nanoTime();
        try (CacheUnderTest system = opener.open()) {
            double open = millisSince(start);
            double firstHit = -1;
            long hits = 0;
            long reads = 0;
            int next = 0;
            while (!system.restored()) {
                PageId pageId = order.get(next++ % order.size());
                reads++;
                if (system.read(pageId, buffer)) {
                    if (firstHit < 0) {
                        firstHit = millisSince(start);
                        if (!java.util.Arrays.equals(buffer, content(pageId, size))) {
                            throw new IllegalStateException("wrong bytes for " + pageId);
                        }
                    }
                    hits++;
                }
            }
            double restored = millisSince(start);
            if (firstHit < 0) {
                // restored before the first read hit: the first read after it does
                firstHit = restored;
            }
            return new Restart(open, firstHit, restored, hits, reads);
        }
    }

    private static final class OverdriveSystem
            implements CacheUnderTest
    {
        private final PageCacheStats stats = new PageCacheStats();
        private final PageCache cache;

        OverdriveSystem(PageCacheConfig config)
        {
            this.cache = PageCache.create("lake", config, stats);
        }

        @Override
        public boolean read(PageId pageId, byte[] buffer)
        {
            return cache.read(pageId, 0, buffer.length, buffer, 0) > 0;
        }

        @Override
        public boolean restored()
        {
            return stats.getRestoresRunning() == 0;
        }

        @Override
        public void close()
        {
            cache.close();
        }
    }

    private static final class AlluxioSystem
            implements CacheUnderTest
    {
        private final CacheManager manager;

        AlluxioSystem(AlluxioConfiguration configuration)
                throws IOException
        {
            this.manager = CacheManager.Factory.create(configuration);
        }

        @Override
        public boolean read(PageId pageId, byte[] buffer)
        {
            return manager.get(pageId, 0, buffer.length, new ByteArrayTargetBuffer(buffer, 0), CacheContext.defaults()) > 0;
        }

        @Override
        public boolean restored()
        {
            return manager.state() == CacheManager.State.READ_WRITE;
        }

        @Override
        public void close()
                throws Exception
        {
            manager.close();
        }
    }

    private static byte[] content(PageId pageId, int size)
    {
        byte[] bytes = new byte[size];
        new Random(pageId.getFileId().hashCode() * 31L + pageId.getPageIndex()).nextBytes(bytes);
        return bytes;
    }

    // root on Linux may drop the OS page cache, so that a restart reads the cache's files from disk, as after a reboot
    private static boolean dropCaches()
    {
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3", UTF_8);
            return true;
        }
        catch (IOException | RuntimeException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitTrue(BooleanSupplier condition)
            throws InterruptedException
    {
        while (!condition.getAsBoolean()) {
            Thread.sleep(1);
        }
    }

    private static double millisSince(long start)
    {
        return (System.nanoTime() - start) / 1e6;
    }

    private static void deleteRecursively(Path path)
            throws IOException
    {
        if (Files.exists(path)) {
            try (var files = Files.walk(path)) {
                for (Path file : files.sorted(Collections.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    static void log(String message)
    {
        System.out.printf("%s [restart benchmark] %s%n", Instant.now(), message);
    }
}
