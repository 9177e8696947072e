package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static com.google.common.io.MoreFiles.deleteRecursively;
import static com.google.common.io.RecursiveDeleteOption.ALLOW_INSECURE;

/**
 * The cost of a cache hit, one thread, pages in the OS page cache (what a warm worker's hits read): wall time and the
 * thread's CPU time per read of 100 B, 4 KiB, 64 KiB and a whole page of 1 MiB at random offsets, through
 * {@link LocalPageCache#read}; the best round of each is the summary (the least disturbed by other load). Uses only
 * the cache's read and write, so the same main measures any build. Run from the repository:
 * <pre>
 * ./overdrive mvn -o -pl plugin-cache test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp plugin-cache/target/test-classes:plugin-cache/target/classes:$(cat plugin-cache/target/cp.txt) io.overdrive.cache.page.PageCacheHitCostMain
 * </pre>
 * Arguments: rounds (default 5), seconds per size and round (default 2).
 */
public final class PageCacheHitCostMain
{
    private static final int PAGE_SIZE = 1 << 20;
    private static final int PAGES = 64;
    private static final int[] READ_SIZES = {100, 4096, 64 * 1024, PAGE_SIZE};

    private PageCacheHitCostMain() {}

    public static void main(String[] args)
            throws Exception
    {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2;
        Path directory = Files.createTempDirectory("overdrive-hit-cost");
        try {
            PageCacheStats stats = new PageCacheStats();
            PageCacheConfig config = TestingPages.config(2L * PAGES * PAGE_SIZE, directory).setPageSize(DataSize.ofBytes(PAGE_SIZE));
            try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
                Random random = new Random(1);
                byte[] page = new byte[PAGE_SIZE];
                for (int index = 0; index < PAGES; index++) {
                    random.nextBytes(page);
                    cache.write("/file", new PageId("file", index), ByteBuffer.wrap(page), CacheReadContext.UNKNOWN);
                }
                byte[] target = new byte[PAGE_SIZE];
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                double[] bestWall = new double[READ_SIZES.length];
                double[] bestCpu = new double[READ_SIZES.length];
                Arrays.fill(bestWall, Double.MAX_VALUE);
                Arrays.fill(bestCpu, Double.MAX_VALUE);
                System.out.printf("page cache hit cost: %s pages of %s, %s rounds of %.1f s per read size, %s, %s%n",
                        PAGES, DataSize.ofBytes(PAGE_SIZE).succinct(), rounds, seconds, Runtime.version(), System.getProperty("os.arch"));
                for (int round = 0; round <= rounds; round++) {
                    StringBuilder line = new StringBuilder(round == 0 ? "warm-up" : "round " + round);
                    for (int sizeIndex = 0; sizeIndex < READ_SIZES.length; sizeIndex++) {
                        int size = READ_SIZES[sizeIndex];
                        long reads = 0;
                        long cpuStart = threads.getCurrentThreadCpuTime();
                        long bytes = 0;
                        long start = System.nanoTime();
                        long end = start + (long) (seconds * 1e9);
                        long now;
                        do {
                            for (int i = 0; i < 64; i++) {
                                int offset = size == PAGE_SIZE ? 0 : random.nextInt(PAGE_SIZE - size);
                                int read = cache.read(new PageId("file", random.nextInt(PAGES)), offset, size, target, 0);
                                if (read != size) {
                                    throw new IllegalStateException("a miss: " + read);
                                }
                                reads++;
                                bytes += read;
                            }
                            now = System.nanoTime();
                        }
                        while (now < end);
                        double nanosPerRead = (double) (now - start) / reads;
                        double cpuNanosPerRead = (double) (threads.getCurrentThreadCpuTime() - cpuStart) / reads;
                        if (round > 0) {
                            bestWall[sizeIndex] = Math.min(bestWall[sizeIndex], nanosPerRead);
                            bestCpu[sizeIndex] = Math.min(bestCpu[sizeIndex], cpuNanosPerRead);
                        }
                        line.append(String.format(" | %6s: %7.2f us wall %7.2f us CPU %6.0f MB/s", DataSize.ofBytes(size).succinct(), nanosPerRead / 1000, cpuNanosPerRead / 1000, bytes / ((now - start) / 1e9) / 1e6));
                    }
                    System.out.println(line);
                }
                StringBuilder best = new StringBuilder("best   ");
                for (int sizeIndex = 0; sizeIndex < READ_SIZES.length; sizeIndex++) {
                    best.append(String.format(" | %6s: %7.2f us wall %7.2f us CPU", DataSize.ofBytes(READ_SIZES[sizeIndex]).succinct(), bestWall[sizeIndex] / 1000, bestCpu[sizeIndex] / 1000));
                }
                System.out.println(best);
                System.out.printf("hits %s, misses %s%n", stats.getHits(), stats.getMisses());
            }
        }
        finally {
            deleteRecursively(directory, ALLOW_INSECURE);
        }
    }
}
