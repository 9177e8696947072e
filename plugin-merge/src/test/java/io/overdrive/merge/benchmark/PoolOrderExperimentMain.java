package io.overdrive.merge.benchmark;

import io.overdrive.merge.MergeEngine;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.MergedPageStream;
import io.overdrive.merge.PageListSource;
import io.overdrive.merge.SortedPageSource;
import io.overdrive.merge.config.MergeConfig;
import io.trino.spi.Page;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The admission experiment (seed 001): equal-priority merges arrive faster than the pool can serve them for a while,
 * so a backlog builds; FIFO admission ({@code merge.fifo=true}) against unordered admission. Reports completion
 * time (arrival to last output page) percentiles.
 *
 * <p>Two scenarios. Backlog: {@code merges} merges arrive as a Poisson stream at {@code load} times the measured
 * capacity (over 1, so the backlog grows while they arrive), then the pool drains it. Burst: {@code burst} merges
 * submitted at once. Each merge: 8 inputs x 10,000 rows, heavy combining, parallelism auto. Rounds alternate which
 * mode goes first. Arguments (all optional): {@code merges=2000 load=1.25 burst=200 rounds=3}.
 */
public final class PoolOrderExperimentMain
{
    private static final int INPUTS = 8;
    private static final int ROWS_PER_INPUT = 10_000;

    private PoolOrderExperimentMain() {}

    public static void main(String[] args)
            throws Exception
    {
        int merges = intArg(args, "merges", 2000);
        double load = doubleArg(args, "load", 1.25);
        int burst = intArg(args, "burst", 200);
        int rounds = intArg(args, "rounds", 3);
        int poolSize = Runtime.getRuntime().availableProcessors();

        List<List<Page>> data = BenchmarkData.generate(INPUTS, ROWS_PER_INPUT, BenchmarkData.Combining.HEAVY, 7);
        ExecutorService consumer = Executors.newSingleThreadExecutor();
        try {
            // warm up the JIT, then measure capacity (merges per second with a full backlog)
            try (MergeEngine engine = engine(poolSize, true)) {
                runBurst(engine, data, 300, consumer);
            }
            double capacity;
            try (MergeEngine engine = engine(poolSize, true)) {
                long start = System.nanoTime();
                runBurst(engine, data, 200, consumer);
                capacity = 200 / ((System.nanoTime() - start) / 1e9);
            }
            System.out.printf(Locale.ROOT, "machine: %d processors, JDK %s; pool size %d; capacity %.1f merges/s (%.2f ms per merge)%n",
                    Runtime.getRuntime().availableProcessors(), Runtime.version(), poolSize, capacity, 1000 / capacity);
            System.out.printf(Locale.ROOT, "backlog: %d merges arriving as a Poisson stream at %.2f x capacity, then drained; burst: %d merges at once; %d rounds%n", merges, load, burst, rounds);
            System.out.println();
            System.out.println("| scenario | admission | round | P50 ms | P90 ms | P99 ms | max ms | mean ms |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            List<long[]> openFifo = new ArrayList<>();
            List<long[]> openUnordered = new ArrayList<>();
            List<long[]> burstFifo = new ArrayList<>();
            List<long[]> burstUnordered = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                // alternate which mode goes first, so drift on the machine does not favour one
                boolean[] modes = round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true};
                for (boolean fifo : modes) {
                    long[] open;
                    try (MergeEngine engine = engine(poolSize, fifo)) {
                        open = runOpen(engine, data, merges, load * capacity, new Random(round), consumer);
                    }
                    print("backlog", fifo, round, open);
                    (fifo ? openFifo : openUnordered).add(open);
                    long[] bursty;
                    try (MergeEngine engine = engine(poolSize, fifo)) {
                        bursty = runBurst(engine, data, burst, consumer);
                    }
                    print("burst", fifo, round, bursty);
                    (fifo ? burstFifo : burstUnordered).add(bursty);
                }
            }
            print("backlog", true, 0, concat(openFifo));
            print("backlog", false, 0, concat(openUnordered));
            print("burst", true, 0, concat(burstFifo));
            print("burst", false, 0, concat(burstUnordered));
            double fifoP99 = percentile(concat(openFifo), 0.99);
            double unorderedP99 = percentile(concat(openUnordered), 0.99);
            double fifoP50 = percentile(concat(openFifo), 0.50);
            double unorderedP50 = percentile(concat(openUnordered), 0.50);
            System.out.printf(Locale.ROOT, "%nbacklog, all rounds: FIFO P99 %.1f ms vs unordered %.1f ms (%.1f%% lower); P50 %.1f ms vs %.1f ms%n",
                    fifoP99, unorderedP99, 100 * (1 - fifoP99 / unorderedP99), fifoP50, unorderedP50);
        }
        finally {
            consumer.shutdownNow();
        }
    }

    private static MergeEngine engine(int poolSize, boolean fifo)
    {
        return new MergeEngine(new MergeConfig().setPoolSize(poolSize).setFifo(fifo));
    }

    /**
     * Submits merges at exponentially distributed intervals; returns each merge's completion time in nanoseconds.
     */
    private static long[] runOpen(MergeEngine engine, List<List<Page>> data, int merges, double ratePerSecond, Random random, ExecutorService consumer)
            throws InterruptedException
    {
        long[] latencies = new long[merges];
        CountDownLatch done = new CountDownLatch(merges);
        long next = System.nanoTime();
        for (int i = 0; i < merges; i++) {
            next += (long) (-Math.log(1 - random.nextDouble()) / ratePerSecond * 1e9);
            long wait;
            while ((wait = next - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            submit(engine, data, latencies, i, done, consumer);
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("merges did not complete");
        }
        return latencies;
    }

    private static long[] runBurst(MergeEngine engine, List<List<Page>> data, int merges, ExecutorService consumer)
            throws InterruptedException
    {
        long[] latencies = new long[merges];
        CountDownLatch done = new CountDownLatch(merges);
        for (int i = 0; i < merges; i++) {
            submit(engine, data, latencies, i, done, consumer);
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("merges did not complete");
        }
        return latencies;
    }

    private static void submit(MergeEngine engine, List<List<Page>> data, long[] latencies, int index, CountDownLatch done, ExecutorService consumer)
    {
        long arrival = System.nanoTime();
        List<SortedPageSource> sources = new ArrayList<>(data.size());
        for (List<Page> pages : data) {
            sources.add(new PageListSource(pages));
        }
        MergedPageStream stream = engine.merge(MergeRequest.builder(BenchmarkData.TYPES, BenchmarkData.SORT_KEYS)
                .sources(sources)
                .combine(BenchmarkData.COMBINE)
                .build());
        drain(stream, () -> {
            latencies[index] = System.nanoTime() - arrival;
            stream.close();
            done.countDown();
        }, consumer);
    }

    // reads the stream without holding a thread while it waits
    private static void drain(MergedPageStream stream, Runnable onFinished, ExecutorService consumer)
    {
        while (true) {
            Page page = stream.getNextPage();
            if (page != null) {
                continue;
            }
            if (stream.isFinished()) {
                onFinished.run();
                return;
            }
            CompletableFuture<?> blocked = stream.isBlocked();
            if (!blocked.isDone()) {
                blocked.whenCompleteAsync((_, _) -> drain(stream, onFinished, consumer), consumer);
                return;
            }
        }
    }

    private static void print(String scenario, boolean fifo, int round, long[] latencies)
    {
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
                scenario,
                fifo ? "FIFO" : "unordered",
                round == 0 ? "all" : Integer.toString(round),
                percentile(latencies, 0.50),
                percentile(latencies, 0.90),
                percentile(latencies, 0.99),
                percentile(latencies, 1.0),
                Arrays.stream(latencies).average().orElse(0) / 1e6);
    }

    private static double percentile(long[] latencies, double fraction)
    {
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(fraction * sorted.length) - 1;
        return sorted[Math.clamp(index, 0, sorted.length - 1)] / 1e6;
    }

    private static long[] concat(List<long[]> parts)
    {
        return parts.stream().flatMapToLong(Arrays::stream).toArray();
    }

    private static int intArg(String[] args, String name, int defaultValue)
    {
        for (String arg : args) {
            if (arg.startsWith(name + "=")) {
                return Integer.parseInt(arg.substring(name.length() + 1));
            }
        }
        return defaultValue;
    }

    private static double doubleArg(String[] args, String name, double defaultValue)
    {
        for (String arg : args) {
            if (arg.startsWith(name + "=")) {
                return Double.parseDouble(arg.substring(name.length() + 1));
            }
        }
        return defaultValue;
    }
}
