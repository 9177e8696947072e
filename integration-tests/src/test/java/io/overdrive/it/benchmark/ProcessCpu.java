package io.overdrive.it.benchmark;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * CPU time (user + system, every thread) of this JVM and of another process, for differences over a measured interval.
 * This JVM's comes from {@link OperatingSystemMXBean#getProcessCpuTime()} (nanoseconds); another process's from
 * {@code /proc/<pid>/stat} ({@code utime + stime}, in clock ticks: 10 ms each where {@code CLK_TCK} is 100, so a single
 * query's figure is coarse and only an average over many is meaningful).
 */
final class ProcessCpu
{
    private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Path stat;
    private final long ticksPerSecond;

    /** The CPU of the process {@code pid} (Linux only). */
    ProcessCpu(long pid)
    {
        this.stat = Path.of("/proc", Long.toString(pid), "stat");
        this.ticksPerSecond = clockTicksPerSecond();
    }

    /** This JVM's CPU time so far, in nanoseconds. */
    static long thisJvmNanos()
    {
        return OS.getProcessCpuTime();
    }

    /** Bytes every thread of this JVM has allocated on the heap so far, live and ended threads alike. */
    static long thisJvmAllocatedBytes()
    {
        return THREADS.getTotalThreadAllocatedBytes();
    }

    /** Milliseconds this JVM's garbage collectors have spent collecting so far (their pauses and concurrent cycles). */
    static long thisJvmGcMillis()
    {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).filter(time -> time > 0).sum();
    }

    /** The process's CPU time so far, user and system, in nanoseconds (a multiple of one clock tick); 0 where there is no /proc. */
    long nanos()
    {
        return ticks(11) + ticks(12);
    }

    /** The process's CPU time in the kernel so far ({@code stime}), in nanoseconds; 0 where there is no /proc. */
    long systemNanos()
    {
        return ticks(12);
    }

    /** This JVM, read from /proc like another process: for its system (kernel) share. */
    static ProcessCpu thisJvm()
    {
        return new ProcessCpu(ProcessHandle.current().pid());
    }

    // fields 14 and 15 of the file (utime, stime) are 12 and 13 after the name, 0-based 11 and 12
    private long ticks(int field)
    {
        try {
            String line = Files.readString(stat, UTF_8);
            // the command name (field 2) is in parentheses and may contain spaces: count fields after its ')'
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[field]) * TimeUnit.SECONDS.toNanos(1) / ticksPerSecond;
        }
        catch (IOException e) {
            if (!Files.isDirectory(Path.of("/proc/self"))) {
                return 0;
            }
            throw new UncheckedIOException(e);
        }
    }

    static long clockTicksPerSecond()
    {
        try {
            Process process = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), UTF_8).strip();
            if (process.waitFor() == 0 && output.matches("\\d+")) {
                return Long.parseLong(output);
            }
        }
        catch (IOException e) {
            // no getconf: Linux's usual value below
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }
}
