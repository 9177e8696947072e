package io.overdrive.it.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * How busy this machine was over a phase, from Linux's {@code /proc}: the 1-minute load average at its start and end,
 * and the CPU utilisation over it (busy jiffies over busy and idle ones, all cores together, from {@code /proc/stat}).
 * A phase at 90% or more was CPU-bound: its times say as much about the cores as about the storage. Elsewhere than
 * Linux, or where {@code /proc} cannot be read, every figure is unknown ({@code NaN}, -1).
 */
final class HostLoad
{
    /** A phase at or above this utilisation was CPU-bound. */
    static final double CPU_BOUND = 0.9;

    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path STAT = Path.of("/proc/stat");

    /** One reading: the 1-minute load average and the cumulative busy and idle jiffies of all cores (-1: unknown). */
    record Snapshot(double loadAverage, long busy, long idle)
    {
        static final Snapshot UNKNOWN = new Snapshot(Double.NaN, -1, -1);
    }

    /**
     * A phase's window: the load average at its start and end and its busy and idle jiffies (sums over rounds add up);
     * -1 jiffies where unknown.
     */
    record Window(double loadStart, double loadEnd, long busy, long idle)
    {
        static final Window UNKNOWN = new Window(Double.NaN, Double.NaN, -1, -1);

        static Window between(Snapshot start, Snapshot end)
        {
            if (start.busy() < 0 || end.busy() < 0) {
                return new Window(start.loadAverage(), end.loadAverage(), -1, -1);
            }
            return new Window(start.loadAverage(), end.loadAverage(), end.busy() - start.busy(), end.idle() - start.idle());
        }

        /** Busy over busy and idle, 0 to 1, or NaN where unknown or nothing elapsed. */
        double utilisation()
        {
            if (busy < 0 || idle < 0 || busy + idle == 0) {
                return Double.NaN;
            }
            return (double) busy / (busy + idle);
        }

        boolean cpuBound()
        {
            return utilisation() >= CPU_BOUND;
        }

        /** The jiffies of both windows added; the load average from this one's start to {@code later}'s end. */
        Window plus(Window later)
        {
            boolean known = busy >= 0 && later.busy >= 0;
            return new Window(loadStart, later.loadEnd, known ? busy + later.busy : -1, known ? idle + later.idle : -1);
        }
    }

    private HostLoad() {}

    static Snapshot read()
    {
        try {
            return parse(Files.readString(LOADAVG), Files.readString(STAT));
        }
        catch (IOException | RuntimeException e) {
            return Snapshot.UNKNOWN;
        }
    }

    /**
     * Parses {@code /proc/loadavg} ("0.52 0.61 0.70 2/345 6789") and the {@code cpu} line of {@code /proc/stat} ("cpu
     * user nice system idle iowait irq softirq steal guest guest_nice"): idle is idle and iowait, busy the rest but guest
     * time, which user time already counts.
     */
    static Snapshot parse(String loadavg, String stat)
    {
        double load = Double.parseDouble(loadavg.strip().split("\\s+")[0]);
        String cpu = stat.lines()
                .filter(line -> line.startsWith("cpu "))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no cpu line in /proc/stat"));
        long[] fields = Arrays.stream(cpu.substring("cpu ".length()).strip().split("\\s+")).mapToLong(Long::parseLong).toArray();
        if (fields.length < 4) {
            throw new IllegalArgumentException("too few fields in /proc/stat's cpu line: " + cpu);
        }
        long idle = fields[3] + (fields.length > 4 ? fields[4] : 0);
        long busy = 0;
        for (int i = 0; i < Math.min(fields.length, 8); i++) {
            if (i != 3 && i != 4) {
                busy += fields[i];
            }
        }
        return new Snapshot(load, busy, idle);
    }
}
