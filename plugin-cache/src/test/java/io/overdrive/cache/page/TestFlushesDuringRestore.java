package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flushes remembered while a restore runs: never a flushed path forgotten, whatever their number, in bounded memory,
 * and nothing remembered once the restore has ended.
 */
class TestFlushesDuringRestore
{
    @Test
    void everyExpiredPathIsRememberedInBoundedMemory()
    {
        FlushesDuringRestore flushes = new FlushesDuringRestore("lake");
        int expired = 3 * FlushesDuringRestore.EXPECTED_PATHS;
        for (int file = 0; file < expired; file++) {
            flushes.path("/warehouse/s/t/file-" + file);
            if (file == FlushesDuringRestore.EXPECTED_PATHS) {
                long falsePositives = IntStream.range(0, 10_000).filter(other -> flushes.flushed("/warehouse/s/other/file-" + other)).count();
                assertThat(falsePositives).as("other files lost to false positives at the expected count").isLessThan(200);
            }
        }
        assertThat(IntStream.range(0, expired)).allMatch(file -> flushes.flushed("/warehouse/s/t/file-" + file));
        assertThat(flushes.retainedBytes()).isLessThan(200_000);

        flushes.end();
        assertThat(flushes.flushed("/warehouse/s/t/file-0")).isFalse();
        assertThat(flushes.retainedBytes()).isZero();
        flushes.path("/warehouse/s/t/file-0");
        assertThat(flushes.retainedBytes()).as("nothing remembered after the restore").isZero();
    }

    @Test
    void tooManyFlushesByPredicateFlushEverything()
    {
        FlushesDuringRestore flushes = new FlushesDuringRestore("lake");
        for (int table = 0; table < FlushesDuringRestore.MAX_PREDICATES; table++) {
            String prefix = "/warehouse/s/t" + table + "/";
            flushes.paths(path -> path.startsWith(prefix));
        }
        assertThat(flushes.flushed("/warehouse/s/t7/file")).isTrue();
        assertThat(flushes.flushed("/warehouse/other/file")).isFalse();
        long retained = flushes.retainedBytes();

        flushes.paths(path -> path.startsWith("/warehouse/s/one-more/"));
        assertThat(flushes.flushed("/warehouse/other/file")).as("past the bound, every file counts as flushed").isTrue();
        assertThat(flushes.retainedBytes()).isLessThan(retained).isZero();

        flushes.end();
        assertThat(flushes.flushed("/warehouse/other/file")).isFalse();
    }

    @Test
    void flushOfEverythingCoversLaterPathsToo()
    {
        FlushesDuringRestore flushes = new FlushesDuringRestore("lake");
        flushes.path("/a");
        flushes.everything();
        flushes.path("/b");
        flushes.paths(path -> path.equals("/c"));
        assertThat(flushes.flushed("/d")).isTrue();
        assertThat(flushes.retainedBytes()).isZero();
    }
}
