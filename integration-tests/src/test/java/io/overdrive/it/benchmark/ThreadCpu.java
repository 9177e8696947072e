package io.overdrive.it.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The CPU of this JVM by thread group, native threads included: the JIT compilers and the garbage collector's threads
 * are no Java threads, so {@code ThreadMXBean} does not see them, but {@code /proc/self/task/<tid>/stat} does
 * ({@code utime + stime}, in clock ticks of 10 ms: only sums over many queries are meaningful). Linux only; empty
 * elsewhere.
 */
final class ThreadCpu
{
    static final String JIT = "JIT compilers (C1, C2: Trino compiles each query's generated classes)";
    static final String GC = "garbage collector (G1's threads) and the VM thread";

    /** The groups, in report order; a thread belongs to the first whose name prefix it has (names as /proc gives them). */
    static final Map<String, List<String>> GROUPS = groups();

    private static final long NANOS_PER_TICK = TimeUnit.SECONDS.toNanos(1) / ProcessCpu.clockTicksPerSecond();
    private static final Path TASKS = Path.of("/proc/self/task");

    private ThreadCpu() {}

    private static Map<String, List<String>> groups()
    {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        groups.put("drivers (`SplitRunner`: operators, page sources, cache reads)", List.of("SplitRunner"));
        groups.put("analysis and planning (`dispatcher-query`)", List.of("dispatcher-quer"));
        groups.put(JIT, List.of("C1 CompilerThre", "C2 CompilerThre"));
        groups.put(GC, List.of("G1 ", "GC Thread", "VM Thread", "VM Periodic"));
        groups.put("HTTP, exchange and task status (`http-client`, `async-http`, `remote-task`, `exchange`, `task-`)", List.of("http-client", "async-http", "remote-task", "exchange-client", "task-", "page-buffer", "statement-resp"));
        groups.put("other threads (the client, split sources, the HDFS client, ...)", List.of(""));
        return groups;
    }

    /** CPU time so far per thread id, in nanoseconds. */
    static Map<Long, Long> snapshot()
    {
        Map<Long, Long> cpu = new HashMap<>();
        if (!Files.isDirectory(TASKS)) {
            return cpu;
        }
        try (Stream<Path> tasks = Files.list(TASKS)) {
            tasks.forEach(task -> {
                try {
                    String stat = Files.readString(task.resolve("stat"), UTF_8);
                    // the name (field 2) is in parentheses and may contain spaces: count fields after its ')'
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    cpu.put(Long.parseLong(task.getFileName().toString()), (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK);
                }
                catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            });
        }
        catch (IOException e) {
            // no /proc here
        }
        return cpu;
    }

    /** The CPU each group used between two snapshots, in nanoseconds, added to {@code groups}. */
    static void addDifference(Map<Long, Long> before, Map<Long, Long> after, Map<String, Long> groups)
    {
        after.forEach((thread, nanos) -> {
            long used = nanos - before.getOrDefault(thread, 0L);
            if (used > 0) {
                groups.merge(groupOf(name(thread)), used, Long::sum);
            }
        });
    }

    private static String groupOf(String name)
    {
        return GROUPS.entrySet().stream()
                .filter(group -> group.getValue().stream().anyMatch(name::startsWith))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow();
    }

    private static String name(long thread)
    {
        try {
            return Files.readString(TASKS.resolve(Long.toString(thread)).resolve("comm"), UTF_8).strip();
        }
        catch (IOException e) {
            return "";
        }
    }
}
