package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class TestFileIndex
{
    @Test
    void forgetsTheLeastRecentlyCachedPathWithItsFileIds()
    {
        FileIndex index = new FileIndex(2);
        index.add("/a", "a1");
        index.add("/a", "a2");
        index.add("/b", "b1");
        index.add("/a", "a3");
        index.add("/c", "c1");
        assertThat(index.fileIds("/b")).as("least recently cached").isEmpty();
        assertThat(index.fileIds("/a")).containsExactlyInAnyOrder("a1", "a2", "a3");
        assertThat(index.paths()).isEqualTo(2);
        assertThat(index.fileIds()).as("the forgotten path's ids go too").isEqualTo(4);
        index.remove("a1");
        index.remove("b1");
        assertThat(index.fileIds(path -> path.startsWith("/"))).containsExactlyInAnyOrder("a2", "a3", "c1");
        index.remove("a2");
        index.remove("a3");
        index.remove("c1");
        assertThat(index.paths()).isZero();
        assertThat(index.retainedBytes()).isZero();
    }

    @Test
    void staysConsistentUnderConcurrentAddsRemovalsAndEvictions()
            throws Exception
    {
        FileIndex index = new FileIndex(50);
        ExecutorService executor = Executors.newFixedThreadPool(16);
        List<Future<?>> futures = new ArrayList<>();
        for (int thread = 0; thread < 16; thread++) {
            futures.add(executor.submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int operation = 0; operation < 20_000; operation++) {
                    int path = random.nextInt(200);
                    String fileId = path + "-" + random.nextInt(3);
                    if (random.nextInt(4) == 0) {
                        index.remove(fileId);
                    }
                    else {
                        index.add("/" + path, fileId);
                    }
                }
            }));
        }
        for (Future<?> future : futures) {
            future.get(1, TimeUnit.MINUTES);
        }
        executor.shutdownNow();
        assertThat(index.paths()).isLessThanOrEqualTo(50);
        // no orphan: every file id known is listed under its path, and the paths list nothing else
        assertThat(index.fileIds(_ -> true)).hasSize(index.fileIds());
        for (int path = 0; path < 200; path++) {
            for (String fileId : index.fileIds("/" + path)) {
                assertThat(fileId).startsWith(path + "-");
            }
        }
        index.clear();
        assertThat(index.retainedBytes()).isZero();
    }
}
