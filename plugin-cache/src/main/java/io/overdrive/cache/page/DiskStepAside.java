package io.overdrive.cache.page;

import com.google.common.base.Ticker;
import io.airlift.log.Logger;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleBinaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * Steps a cache disk that reads slower than remote storage aside ({@code cache.slow-disk-step-aside-enabled}): while
 * it does, a hit on it becomes a miss (the reader reads storage) and no page is written to it, except that one read
 * per {@link #PROBE_INTERVAL_NANOS} still reads it, so that its read time keeps being measured and the disk comes back
 * once it is fast again.
 * <p>
 * Each read of a directory is compared with what storage takes for a read of the same bytes ({@link StorageReadTimes},
 * fed by the catalog's remote reads), over the directory's last {@link #WINDOW} reads: it steps aside when, in the
 * median, its reads take {@link #STEP_ASIDE_RATIO} times storage's and at least {@link #MIN_EXCESS_NANOS} more, and
 * comes back when they take no longer than storage's, or less than half that much more. The median keeps a pause (a
 * garbage collection, a busy moment) from deciding anything. Knowing nothing of storage's reads, or fewer than
 * {@link #MIN_READS} reads of the directory, it never steps aside. A directory stepped aside that was not read for
 * {@link #STALE_NANOS} (its pages gone, say) comes back, and is measured anew.
 */
final class DiskStepAside
{
    static final int WINDOW = 16;
    static final int MIN_READS = 8;
    static final double STEP_ASIDE_RATIO = 1.5;
    static final double RETURN_RATIO = 1.0;
    static final long MIN_EXCESS_NANOS = 5_000_000;
    static final long PROBE_INTERVAL_NANOS = 100_000_000;
    static final long STALE_NANOS = 30_000_000_000L;

    private static final Logger log = Logger.get(DiskStepAside.class);

    private final boolean enabled;
    private final Ticker ticker;
    private final PageCacheStats stats;
    private final StorageReadTimes storage;
    private final List<Disk> disks = new CopyOnWriteArrayList<>();

    DiskStepAside(boolean enabled, Ticker ticker, PageCacheStats stats)
    {
        this.enabled = enabled;
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.storage = new StorageReadTimes(ticker);
    }

    /** The measurements and state of one cache directory. */
    Disk disk(Path path)
    {
        Disk disk = new Disk(path);
        disks.add(disk);
        return disk;
    }

    /** A remote read of {@code bytes} bytes that took {@code nanos}. */
    void recordStorageRead(long bytes, long nanos)
    {
        storage.record(bytes, nanos);
    }

    /** Directories stepped aside now. */
    long directoriesSteppedAside()
    {
        return disks.stream().filter(Disk::steppedAside).count();
    }

    /** The measurements of the directory whose reads compare worst with storage's; empty while none is known. */
    Optional<Comparison> worst()
    {
        return disks.stream()
                .map(Disk::comparison)
                .flatMap(Optional::stream)
                .max((a, b) -> Double.compare(a.ratio(), b.ratio()));
    }

    /**
     * A directory's recent reads against storage's, in the median: the time of a read of the directory, the time
     * storage takes for the same bytes, their ratio and difference.
     */
    record Comparison(double diskNanos, double storageNanos, double ratio, double excessNanos) {}

    final class Disk
    {
        private final Path path;
        // the last WINDOW reads: their times and storage's estimates for their bytes, a ring; guarded by this
        private final double[] diskNanos = new double[WINDOW];
        private final double[] storageNanos = new double[WINDOW];
        // per-read ratios and excesses for the decision's medians, reused on every read; guarded by this
        private final double[] scratch = new double[WINDOW];
        private int next;
        private int reads;
        private long lastReadNanos;
        private volatile boolean steppedAside;
        private final AtomicLong lastProbeNanos = new AtomicLong();

        private Disk(Path path)
        {
            this.path = requireNonNull(path, "path is null");
        }

        boolean steppedAside()
        {
            if (steppedAside && ticker.read() - lastReadNanos() >= STALE_NANOS) {
                comeBackStale();
            }
            return steppedAside;
        }

        /**
         * Whether a read of a page of this directory reads the disk: false while it is stepped aside (counted in
         * {@code ReadsSteppedAside} when the page is {@code cached}), except one read of a cached page per
         * {@link #PROBE_INTERVAL_NANOS}.
         */
        boolean readsDisk(BooleanSupplier cached)
        {
            if (!steppedAside()) {
                return true;
            }
            if (!cached.getAsBoolean()) {
                // a miss either way: neither a read stepped aside nor a measurement
                return false;
            }
            long now = ticker.read();
            long lastProbe = lastProbeNanos.get();
            if (now - lastProbe >= PROBE_INTERVAL_NANOS && lastProbeNanos.compareAndSet(lastProbe, now)) {
                return true;
            }
            stats.recordReadSteppedAside();
            return false;
        }

        /** Whether a page may be written to this directory: false while it is stepped aside (counted). */
        boolean writesDisk()
        {
            if (!steppedAside()) {
                return true;
            }
            stats.recordWriteSteppedAside();
            return false;
        }

        /** A read of {@code bytes} bytes of a page of this directory that took {@code nanos}. */
        void recordRead(long bytes, long nanos)
        {
            OptionalDouble storageTime = storage.estimateNanos(bytes);
            if (bytes <= 0 || storageTime.isEmpty()) {
                return;
            }
            synchronized (this) {
                diskNanos[next] = nanos;
                storageNanos[next] = storageTime.getAsDouble();
                next = (next + 1) % WINDOW;
                reads++;
                lastReadNanos = ticker.read();
                if (reads < MIN_READS) {
                    return;
                }
                // on every read only the two medians the decision needs, without allocating; the full comparison
                // only for the log line of a change
                double ratio = windowMedian((disk, storage) -> disk / Math.max(1, storage));
                double excessNanos = windowMedian((disk, storage) -> disk - storage);
                if (!steppedAside && enabled && ratio >= STEP_ASIDE_RATIO && excessNanos >= MIN_EXCESS_NANOS) {
                    steppedAside = true;
                    lastProbeNanos.set(ticker.read());
                    Comparison comparison = compare();
                    log.warn("Overdrive cache directory %s reads slower than remote storage (%.1f ms per read, storage %.1f ms): its hits are read from storage and no pages are written to it until it is faster again",
                            path, comparison.diskNanos() / 1e6, comparison.storageNanos() / 1e6);
                }
                else if (steppedAside && (ratio <= RETURN_RATIO || excessNanos < MIN_EXCESS_NANOS / 2.0)) {
                    steppedAside = false;
                    Comparison comparison = compare();
                    log.info("Overdrive cache directory %s reads as fast as remote storage again (%.1f ms per read, storage %.1f ms) and serves hits again",
                            path, comparison.diskNanos() / 1e6, comparison.storageNanos() / 1e6);
                }
            }
        }

        private synchronized long lastReadNanos()
        {
            return lastReadNanos;
        }

        private synchronized void comeBackStale()
        {
            if (!steppedAside || ticker.read() - lastReadNanos < STALE_NANOS) {
                return;
            }
            // measured anew: the old reads say nothing of the disk now
            reads = 0;
            next = 0;
            steppedAside = false;
            log.info("Overdrive cache directory %s was not read for a while since it was stepped aside as slow: it serves hits again, and is measured anew", path);
        }

        synchronized Optional<Comparison> comparison()
        {
            return reads < MIN_READS ? Optional.empty() : Optional.of(compare());
        }

        // guarded by this: the median over the window of each read's (disk, storage) times combined, as compare()'s ratio
        // and excess; the operators passed capture nothing, so a read allocates nothing
        private double windowMedian(DoubleBinaryOperator perRead)
        {
            int count = Math.min(reads, WINDOW);
            for (int i = 0; i < count; i++) {
                scratch[i] = perRead.applyAsDouble(diskNanos[i], storageNanos[i]);
            }
            return median(scratch, count);
        }

        // guarded by this
        private Comparison compare()
        {
            int count = Math.min(reads, WINDOW);
            double[] disk = Arrays.copyOf(diskNanos, count);
            double[] remote = Arrays.copyOf(storageNanos, count);
            double[] ratios = new double[count];
            double[] excess = new double[count];
            for (int i = 0; i < count; i++) {
                ratios[i] = disk[i] / Math.max(1, remote[i]);
                excess[i] = disk[i] - remote[i];
            }
            return new Comparison(median(disk), median(remote), median(ratios), median(excess));
        }
    }

    private static double median(double[] values)
    {
        return median(values, values.length);
    }

    // the median of the first count values (sorts them in place)
    private static double median(double[] values, int count)
    {
        Arrays.sort(values, 0, count);
        int middle = count / 2;
        return count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
