package io.overdrive.merge.benchmark;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.trino.spi.Page;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * Runs one benchmark shape in a loop, for profiling (e.g. with JFR): {@code k combining parallelism seconds [rows]}.
 */
public final class ProfileMain
{
    private ProfileMain() {}

    public static void main(String[] args)
            throws Exception
    {
        int inputs = Integer.parseInt(args[0]);
        BenchmarkData.Combining combining = BenchmarkData.Combining.valueOf(args[1]);
        String parallelism = args[2];
        long seconds = Long.parseLong(args[3]);
        int rowsPerInput = args.length > 4 ? Integer.parseInt(args[4]) : 75_000;
        List<List<Page>> data = BenchmarkData.generate(inputs, rowsPerInput, combining, 42);
        SerialPriorityQueueMerge serial = new SerialPriorityQueueMerge(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS, BenchmarkData.COMBINE, 4096);
        try (MergeEngine engine = new MergeEngine(new MergeConfig())) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            int runs = 0;
            long start = System.nanoTime();
            long rows = 0;
            while (System.nanoTime() < end) {
                if (parallelism.equals("serial")) {
                    long[] count = new long[1];
                    serial.merge(data, page -> count[0] += page.getPositionCount());
                    rows += count[0];
                }
                else {
                    rows += MergeBenchmark.runEngine(engine, data, MergeParallelism.parse(parallelism).orElseThrow());
                }
                runs++;
            }
            long wall = System.nanoTime() - start;
            System.out.printf("%d runs, %.2f ms per run, %d rows per run, yields %d%n", runs, wall / 1e6 / runs, rows / runs, engine.getStats().getYields().getTotalCount());
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
                long cpu = threads.getThreadCpuTime(info.getThreadId());
                if (cpu > wall / 100) {
                    System.out.printf("  %-20s cpu %.2f ms per run (%.0f%% of wall)%n", info.getThreadName(), cpu / 1e6 / runs, 100.0 * cpu / wall);
                }
            }
        }
    }
}
