package io.overdrive.it.s3;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Model-based: random ranges of a few objects against one bit per byte, with resets, and from many threads at once.
 */
class TestDistinctRanges
{
    @Test
    void countsEachByteOnceWhateverTheOverlaps()
    {
        for (int seed = 0; seed < 50; seed++) {
            Random random = new Random(seed);
            DistinctRanges ranges = new DistinctRanges();
            List<BitSet> model = new ArrayList<>();
            for (int object = 0; object < 3; object++) {
                model.add(new BitSet());
            }
            for (int step = 0; step < 500; step++) {
                if (random.nextInt(100) == 0) {
                    ranges.reset();
                    model.forEach(BitSet::clear);
                }
                int object = random.nextInt(model.size());
                int start = random.nextInt(10_000);
                int end = start + random.nextInt(random.nextBoolean() ? 50 : 3_000);
                ranges.add("bucket/object-" + object, start, end);
                model.get(object).set(start, end);
                assertThat(ranges.bytes()).as("seed %s step %s", seed, step).isEqualTo(model.stream().mapToLong(BitSet::cardinality).sum());
            }
        }
    }

    @Test
    void concurrentSendersLoseNoRange()
            throws Exception
    {
        DistinctRanges ranges = new DistinctRanges();
        BitSet model = new BitSet();
        List<Thread> threads = new ArrayList<>();
        List<int[]> all = new ArrayList<>();
        Random random = new Random(7);
        for (int thread = 0; thread < 16; thread++) {
            List<int[]> mine = new ArrayList<>();
            for (int index = 0; index < 2_000; index++) {
                int start = random.nextInt(1_000_000);
                int[] range = {start, start + 1 + random.nextInt(500)};
                mine.add(range);
                all.add(range);
            }
            threads.add(Thread.ofPlatform().unstarted(() -> mine.forEach(range -> ranges.add("bucket/key", range[0], range[1]))));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        all.forEach(range -> model.set(range[0], range[1]));
        assertThat(ranges.bytes()).isEqualTo(model.cardinality());
    }

    @Test
    void refusesABackwardRange()
    {
        assertThatThrownBy(() -> new DistinctRanges().add("bucket/key", 10, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
