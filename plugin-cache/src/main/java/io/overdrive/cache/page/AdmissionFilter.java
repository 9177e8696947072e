package io.overdrive.cache.page;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * TinyLFU admission (Einziger et al.): a doorkeeper Bloom filter (Guava's) takes each page's first recent read, and only
 * repeat reads reach a count-min sketch (4-bit counters); every {@code sampleSize} reads the doorkeeper is reset and
 * the counters are halved, so old popularity fades. A page's recent frequency is doorkeeper + sketch, and it is
 * admitted once that reaches {@code minFrequency}. One-off scan pages stop at the doorkeeper, so they neither get in
 * nor inflate the counters of other pages.
 * <p>
 * The sketch is written here because Caffeine's FrequencySketch is package-private and Guava has no counting sketch:
 * 4 rows of 16 counters per 64-bit word, lock-free. Thread-safe.
 */
public final class AdmissionFilter
{
    private static final int ROWS = 4;
    private static final long RESET_MASK = 0x7777_7777_7777_7777L;

    private final AtomicLongArray table;
    private final int tableMask;
    private final int minFrequency;
    private final int sampleSize;
    private final AtomicInteger additions = new AtomicInteger();
    private final int doorkeeperSize;
    private final AtomicReference<BloomFilter<Long>> doorkeeper = new AtomicReference<>();

    /**
     * @param expectedPages about how many distinct pages the cache holds; the sketch is sized from it
     */
    public AdmissionFilter(long expectedPages, int minFrequency)
    {
        checkArgument(expectedPages > 0, "expectedPages must be positive");
        checkArgument(minFrequency >= 1 && minFrequency <= 16, "minFrequency must be between 1 and 16");
        // at least 1024 entries: a sketch for a small cache would be all collisions
        int entries = (int) Math.min(1 << 24, Math.max(1024, expectedPages));
        // as Caffeine sizes its sketch: one 64-bit word (16 counters) per expected entry, rounded up to a power of two
        int words = Integer.highestOneBit(entries - 1) << 1;
        this.table = new AtomicLongArray(words);
        this.tableMask = words - 1;
        this.minFrequency = minFrequency;
        // age after ten reads per expected entry, as TinyLFU suggests
        this.sampleSize = 10 * entries;
        this.doorkeeperSize = sampleSize;
        this.doorkeeper.set(newDoorkeeper());
    }

    private BloomFilter<Long> newDoorkeeper()
    {
        return BloomFilter.create(Funnels.longFunnel(), doorkeeperSize, 0.01);
    }

    /** Whether the page has been read often enough recently to be cached. */
    public boolean admits(String fileId, long pageIndex)
    {
        return frequency(fileId, pageIndex) >= minFrequency;
    }

    /** Records a read of the page and returns whether it is now frequent enough to be cached. */
    public boolean recordRead(String fileId, long pageIndex)
    {
        long hash = hash(fileId, pageIndex);
        int frequency;
        if (doorkeeper.get().put(hash)) {
            // first read in this window: the doorkeeper holds it
            frequency = 1;
        }
        else {
            int counted = Integer.MAX_VALUE;
            for (int row = 0; row < ROWS; row++) {
                counted = Math.min(counted, increment(hash, row));
            }
            frequency = 1 + counted;
        }
        if (additions.incrementAndGet() >= sampleSize) {
            age();
        }
        return frequency >= minFrequency;
    }

    /** Current estimate of recent reads of the page (at most 16). */
    public int frequency(String fileId, long pageIndex)
    {
        long hash = hash(fileId, pageIndex);
        if (!doorkeeper.get().mightContain(hash)) {
            return 0;
        }
        int frequency = Integer.MAX_VALUE;
        for (int row = 0; row < ROWS; row++) {
            int index = index(hash, row);
            int shift = counterShift(hash, row);
            frequency = Math.min(frequency, (int) ((table.get(index) >>> shift) & 0xF));
        }
        return 1 + frequency;
    }

    // returns the counter's value after the increment (saturating at 15)
    private int increment(long hash, int row)
    {
        int index = index(hash, row);
        int shift = counterShift(hash, row);
        while (true) {
            long word = table.get(index);
            int value = (int) ((word >>> shift) & 0xF);
            if (value == 15) {
                return 15;
            }
            if (table.compareAndSet(index, word, word + (1L << shift))) {
                return value + 1;
            }
        }
    }

    // forgets first reads and halves every counter, so that popularity decays and old hot pages can lose their place
    private synchronized void age()
    {
        if (additions.get() < sampleSize) {
            return;
        }
        doorkeeper.set(newDoorkeeper());
        for (int i = 0; i < table.length(); i++) {
            while (true) {
                long word = table.get(i);
                if (table.compareAndSet(i, word, (word >>> 1) & RESET_MASK)) {
                    break;
                }
            }
        }
        additions.set(0);
    }

    private int index(long hash, int row)
    {
        long h = (hash + row * 0x9E37_79B9_7F4A_7C15L) * 0xBF58_476D_1CE4_E5B9L;
        return (int) (h >>> 32) & tableMask;
    }

    private static int counterShift(long hash, int row)
    {
        // each row uses its own 16-counter group of the word: 4 bits * (row * 4 + 0..3)
        int counter = (int) ((hash >>> (row * 8)) & 3);
        return ((row << 2) + counter) << 2;
    }

    private static long hash(String fileId, long pageIndex)
    {
        return Hashing.murmur3_128().newHasher().putUnencodedChars(fileId).putLong(pageIndex).hash().asLong();
    }
}
