package io.overdrive.cache.page;

import com.google.common.hash.Hashing;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * TinyLFU-style admission: a count-min sketch of recent page reads (4-bit counters, halved every {@code sampleSize}
 * reads so old popularity fades). A page is admitted once it has been read {@code minFrequency} times recently, so a
 * one-off scan reads through without evicting the hot working set.
 * <p>
 * Why not a library: Caffeine's FrequencySketch is package-private, and Guava has no counting sketch. This is the
 * standard structure (Einziger et al., "TinyLFU"), 4 rows of 16 counters per 64-bit word. Thread-safe, lock-free.
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

    /**
     * @param expectedPages about how many distinct pages the cache holds; the sketch is sized from it
     */
    public AdmissionFilter(long expectedPages, int minFrequency)
    {
        checkArgument(expectedPages > 0, "expectedPages must be positive");
        checkArgument(minFrequency >= 1 && minFrequency <= 15, "minFrequency must be between 1 and 15");
        int entries = (int) Math.min(1 << 24, Math.max(64, expectedPages));
        // as Caffeine sizes its sketch: one 64-bit word (16 counters) per expected entry, rounded up to a power of two
        int words = Integer.highestOneBit(entries - 1) << 1;
        this.table = new AtomicLongArray(words);
        this.tableMask = words - 1;
        this.minFrequency = minFrequency;
        // age after ten reads per expected entry, as TinyLFU suggests
        this.sampleSize = 10 * entries;
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
        int frequency = Integer.MAX_VALUE;
        for (int row = 0; row < ROWS; row++) {
            frequency = Math.min(frequency, increment(hash, row));
        }
        if (additions.incrementAndGet() >= sampleSize) {
            age();
        }
        return frequency >= minFrequency;
    }

    /** Current estimate of recent reads of the page. */
    public int frequency(String fileId, long pageIndex)
    {
        long hash = hash(fileId, pageIndex);
        int frequency = Integer.MAX_VALUE;
        for (int row = 0; row < ROWS; row++) {
            int index = index(hash, row);
            int shift = counterShift(hash, row);
            frequency = Math.min(frequency, (int) ((table.get(index) >>> shift) & 0xF));
        }
        return frequency;
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

    // halves every counter, so that popularity decays and old hot pages can lose their place
    private synchronized void age()
    {
        if (additions.get() < sampleSize) {
            return;
        }
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
