package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static com.google.common.collect.MoreCollectors.onlyElement;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PagesWritten and BytesWritten count what reaches the disk, once per stored page, however often and however
 * concurrently a page is offered (a footer page read alone and then within a larger read is offered twice), and
 * BytesEvicted (recovered + written - deleted - stored) is then exactly the bytes of the pages eviction removed, while
 * PagesDeleted counts explicit deletions only.
 */
class TestPageCacheWriteStats
{
    @TempDir
    Path directory;

    @Test
    void samePageOfferedAgainIsWrittenOnce()
    {
        for (boolean async : List.of(false, true)) {
            PageCacheStats stats = new PageCacheStats();
            Path base = directory.resolve("sequential-" + async);
            try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, base).setAsyncWriteEnabled(async), stats)) {
                PageId footer = new PageId("file", 6);
                int length = TestingPages.length(footer);
                assertThat(length).as("a short last page").isLessThan(PAGE_SIZE);
                write(cache, footer);
                awaitWritten(stats, 1);
                write(cache, footer);
                write(cache, footer);
                settle(async);
                assertThat(stats.getPagesWritten()).as("async %s", async).isEqualTo(1);
                assertThat(stats.getBytesWritten()).as("async %s", async).isEqualTo(frame(footer));
                assertThat(stats.getBytesCached()).isEqualTo(frame(footer));
                assertThat(stats.getBytesEvicted()).isZero();
                assertThat(stats.getPutErrors()).isZero();
            }
        }
    }

    @Test
    void samePagesOfferedByManyThreadsAreWrittenOnce()
            throws Exception
    {
        for (boolean async : List.of(false, true)) {
            PageCacheStats stats = new PageCacheStats();
            Path base = directory.resolve("concurrent-" + async);
            List<PageId> pages = new ArrayList<>();
            for (int index = 0; index < 20; index++) {
                pages.add(new PageId("file-" + index % 3, index));
            }
            long frames = pages.stream().mapToLong(TestPageCacheWriteStats::frame).sum();
            int threads = 16;
            try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, base).setAsyncWriteEnabled(async), stats)) {
                ExecutorService executor = Executors.newFixedThreadPool(threads);
                CyclicBarrier barrier = new CyclicBarrier(threads);
                List<Future<?>> futures = new ArrayList<>();
                for (int thread = 0; thread < threads; thread++) {
                    long seed = thread;
                    futures.add(executor.submit(() -> {
                        List<PageId> order = new ArrayList<>(pages);
                        Random random = new Random(seed);
                        // each round starts together, so that all threads offer the same pages at once
                        for (int round = 0; round < 3; round++) {
                            Collections.shuffle(order, random);
                            barrier.await(1, MINUTES);
                            for (PageId pageId : order) {
                                write(cache, pageId);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> future : futures) {
                    future.get(1, MINUTES);
                }
                executor.shutdown();
                assertThat(executor.awaitTermination(1, MINUTES)).isTrue();
                awaitWritten(stats, pages.size());
                settle(async);
                assertThat(stats.getPagesWritten()).as("async %s", async).isEqualTo(pages.size());
                assertThat(stats.getBytesWritten()).as("async %s", async).isEqualTo(frames);
                assertThat(stats.getBytesCached()).isEqualTo(frames);
                assertThat(stats.getBytesEvicted()).isZero();
                assertThat(stats.getPutErrors()).isZero();
                for (PageId pageId : pages) {
                    assertThat(cache.contains(pageId)).isTrue();
                }
            }
        }
    }

    /**
     * Model-based: an LRU of frames with Alluxio's capacity (a page is added once the least recently used pages it
     * needs room for are gone; a hit makes a page the most recently used; offering a cached page again changes
     * nothing) predicts every counter after every operation.
     */
    @Test
    void evictedBytesAreExactlyThoseOfTheEvictedPages()
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(24 * PAGE_SIZE, directory), stats)) {
            long capacity = cache.directories().getFirst().availableBytes();
            // access-ordered: the first entry is the least recently used
            LinkedHashMap<PageId, Integer> model = new LinkedHashMap<>(16, 0.75f, true);
            long written = 0;
            long pagesWritten = 0;
            long evicted = 0;
            long pagesEvicted = 0;
            long pagesDeleted = 0;
            Random random = new Random(7);
            byte[] target = new byte[PAGE_SIZE];
            for (int operation = 0; operation < 2_000; operation++) {
                PageId pageId = new PageId("file-" + random.nextInt(12), random.nextInt(8));
                int choice = random.nextInt(100);
                String context = "operation %s on %s".formatted(operation, pageId);
                if (choice < 55) {
                    write(cache, pageId);
                    if (!model.containsKey(pageId)) {
                        int frame = frame(pageId);
                        long used = model.values().stream().mapToLong(Integer::longValue).sum();
                        for (Iterator<Integer> lru = model.values().iterator(); used + frame > capacity; ) {
                            int victim = lru.next();
                            lru.remove();
                            used -= victim;
                            evicted += victim;
                            pagesEvicted++;
                        }
                        model.put(pageId, frame);
                        written += frame;
                        pagesWritten++;
                    }
                }
                else if (choice < 65 && !model.isEmpty()) {
                    // a cached page offered again (without touching its recency, as in Alluxio)
                    List<PageId> cached = List.copyOf(model.keySet());
                    write(cache, cached.get(random.nextInt(cached.size())));
                }
                else if (choice < 97) {
                    int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                    if (model.get(pageId) != null) {
                        assertThat(read).as(context).isEqualTo(TestingPages.length(pageId));
                        assertThat(Arrays.copyOf(target, read)).as(context).isEqualTo(TestingPages.content(pageId, read));
                    }
                    else {
                        assertThat(read).as(context).isZero();
                    }
                }
                else {
                    cache.deleteFile(pageId.getFileId());
                    Set<PageId> ofFile = new HashSet<>();
                    model.keySet().stream().filter(id -> id.getFileId().equals(pageId.getFileId())).forEach(ofFile::add);
                    pagesDeleted += ofFile.size();
                    model.keySet().removeAll(ofFile);
                }
                long stored = model.values().stream().mapToLong(Integer::longValue).sum();
                assertThat(stats.getPagesWritten()).as(context).isEqualTo(pagesWritten);
                assertThat(stats.getBytesWritten()).as(context).isEqualTo(written);
                assertThat(stats.getBytesCached()).as(context).isEqualTo(stored);
                assertThat(stats.getBytesEvicted()).as(context).isEqualTo(evicted);
                assertThat(stats.getPagesDeleted()).as(context).isEqualTo(pagesDeleted);
            }
            for (int file = 0; file < 12; file++) {
                for (int page = 0; page < 8; page++) {
                    PageId pageId = new PageId("file-" + file, page);
                    assertThat(cache.contains(pageId)).as("%s cached", pageId).isEqualTo(model.containsKey(pageId));
                }
            }
            assertThat(pagesEvicted).as("the cache must have evicted often").isGreaterThan(100);
            assertThat(pagesDeleted).as("files must have been deleted").isPositive();

            // a flush deletes what is left: deleted, not evicted
            long left = model.size();
            cache.invalidateAll();
            assertThat(stats.getPagesDeleted()).isEqualTo(pagesDeleted + left);
            assertThat(stats.getBytesCached()).isZero();
            assertThat(stats.getBytesEvicted()).isEqualTo(evicted);
            assertThat(stats.getPutErrors() + stats.getGetErrors() + stats.getCorruptPages()).isZero();
        }
    }

    /**
     * A page whose file vanished or was cut short is discarded when read: a corrupt page, deleted (PagesDeleted counts
     * corrupt pages), so its bytes are not evicted bytes.
     */
    @Test
    void damagedPagesAreDeletedNotEvicted()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, directory), stats)) {
            List<PageId> pages = List.of(new PageId("file", 0), new PageId("file", 1), new PageId("file", 2));
            pages.forEach(pageId -> write(cache, pageId));
            Path folder;
            try (Stream<Path> files = Files.walk(cache.directories().getFirst().path().resolve("LOCAL"))) {
                folder = files.filter(path -> path.getFileName().toString().equals("file")).collect(onlyElement());
            }
            Files.delete(folder.resolve("0"));
            Files.write(folder.resolve("1"), new byte[10]);
            byte[] target = new byte[PAGE_SIZE];
            for (PageId pageId : pages) {
                cache.read(pageId, 0, PAGE_SIZE, target, 0);
            }
            assertThat(stats.getCorruptPages()).isEqualTo(2);
            assertThat(stats.getHits()).isEqualTo(1);
            assertThat(stats.getPagesDeleted()).isEqualTo(2);
            assertThat(stats.getBytesCached()).isEqualTo(frame(pages.get(2)));
            assertThat(stats.getBytesEvicted()).isZero();
        }
    }

    private static void write(PageCache cache, PageId pageId)
    {
        byte[] page = TestingPages.content(pageId, TestingPages.length(pageId));
        cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(page), CacheReadContext.UNKNOWN);
    }

    private static int frame(PageId pageId)
    {
        return PageFrame.frameLength(TestingPages.length(pageId));
    }

    // asynchronous writes reach the disk a little later
    private static void awaitWritten(PageCacheStats stats, long pages)
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(30);
        while (stats.getPagesWritten() < pages && System.nanoTime() - deadline < 0) {
            sleep(10);
        }
    }

    // a duplicate still queued would be counted now if it were going to be counted at all
    private static void settle(boolean async)
    {
        if (async) {
            sleep(300);
        }
    }

    private static void sleep(long millis)
    {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }
}
