package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static io.overdrive.cache.page.PageFrame.CHUNK_SIZE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Model-based randomized test of partial pages: whole pages and parts of pages (what a reader fetched of them) written
 * at random, read at random ranges, files deleted and changed, under eviction pressure. The model holds, per page, the
 * chunks written since the page was last evicted or deleted at most: every byte the cache serves must be the file's,
 * a read the written chunks do not cover must miss, and with room to spare a read of written chunks must hit.
 */
class TestPartialPageModel
{
    // four chunks per page, the last page of some files shorter
    private static final int PAGE_SIZE = 4 * CHUNK_SIZE;

    @TempDir
    Path directory;

    @Test
    void randomPartsUnderEvictionPressure()
            throws Exception
    {
        for (long seed = 1; seed <= 3; seed++) {
            run(seed, 4_000, 30L * PAGE_SIZE, false);
        }
    }

    @Test
    void randomPartsWithRoomToSpareAreServed()
            throws Exception
    {
        run(21, 3_000, 10_000L * PAGE_SIZE, true);
    }

    @Test
    void partialPageSurvivesARestartAndIsFilledIn()
            throws Exception
    {
        PageId pageId = new PageId("file-r", 0);
        byte[] page = content(pageId, PAGE_SIZE);
        Path base = directory.resolve("restart");
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(10L * PAGE_SIZE, base), new PageCacheStats())) {
            cache.writePart("/file-r", pageId, PAGE_SIZE, CHUNK_SIZE, ByteBuffer.wrap(page, CHUNK_SIZE, CHUNK_SIZE), CacheReadContext.UNKNOWN);
            assertThat(cache.contains(pageId)).as("a partial page does not count as cached").isFalse();
        }
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(10L * PAGE_SIZE, base), stats)) {
            assertThat(cache.awaitRestore(new Duration(30, SECONDS))).isTrue();
            assertThat(stats.getCorruptPages()).isZero();
            byte[] target = new byte[CHUNK_SIZE];
            assertThat(cache.read(pageId, CHUNK_SIZE, CHUNK_SIZE, target, 0)).isEqualTo(CHUNK_SIZE);
            assertThat(target).isEqualTo(Arrays.copyOfRange(page, CHUNK_SIZE, 2 * CHUNK_SIZE));
            assertThat(cache.read(pageId, 0, 10, target, 0)).as("chunk 0 was never fetched").isZero();
            assertThat(stats.getPartialPageMisses()).isEqualTo(1);
            // filled in with the rest: a whole page then
            cache.writePart("/file-r", pageId, PAGE_SIZE, 2 * CHUNK_SIZE, ByteBuffer.wrap(page, 2 * CHUNK_SIZE, 2 * CHUNK_SIZE), CacheReadContext.UNKNOWN);
            cache.writePart("/file-r", pageId, PAGE_SIZE, 0, ByteBuffer.wrap(page, 0, CHUNK_SIZE), CacheReadContext.UNKNOWN);
            byte[] whole = new byte[PAGE_SIZE];
            assertThat(cache.read(pageId, 0, PAGE_SIZE, whole, 0)).isEqualTo(PAGE_SIZE);
            assertThat(whole).isEqualTo(page);
            assertThat(stats.getPartialPageWrites()).isEqualTo(2);
            assertThat(stats.getCorruptPages()).isZero();
        }
    }

    @Test
    void concurrentFillsOfOnePageLoseNothing()
            throws Exception
    {
        int pages = 32;
        int threads = 12;
        int writers = 8;
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(10_000L * PAGE_SIZE, directory.resolve("concurrent")), stats)) {
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> futures = new ArrayList<>();
            AtomicInteger wrongReads = new AtomicInteger();
            for (int thread = 0; thread < threads; thread++) {
                int writer = thread;
                futures.add(executor.submit(() -> {
                    Random random = new Random(writer);
                    start.await(30, SECONDS);
                    if (writer < writers) {
                        // each chunk of each page written once, by one writer: the chunks of a page by 4 different
                        // writers at about the same time, so that their fills of the page race
                        List<Integer> slots = new ArrayList<>();
                        for (int slot = writer; slot < pages * 4; slot += writers) {
                            slots.add(slot);
                        }
                        for (int slot : slots) {
                            PageId pageId = new PageId("file-c", slot / 4);
                            byte[] page = content(pageId, PAGE_SIZE);
                            int chunk = (slot + slot / 4) % 4;
                            cache.writePart("/file-c", pageId, PAGE_SIZE, chunk * CHUNK_SIZE, ByteBuffer.wrap(page, chunk * CHUNK_SIZE, CHUNK_SIZE), CacheReadContext.UNKNOWN);
                        }
                        return null;
                    }
                    for (int operation = 0; operation < 2_000; operation++) {
                        PageId pageId = new PageId("file-c", random.nextInt(pages));
                        byte[] page = content(pageId, PAGE_SIZE);
                        int chunk = random.nextInt(4);
                        int offset = chunk * CHUNK_SIZE + random.nextInt(CHUNK_SIZE);
                        int length = 1 + random.nextInt(PAGE_SIZE - offset);
                        byte[] target = new byte[length];
                        int read = cache.read(pageId, offset, length, target, 0);
                        if (read > 0 && !Arrays.equals(target, 0, read, page, offset, offset + read)) {
                            wrongReads.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(2, MINUTES);
            }
            executor.shutdown();
            assertThat(wrongReads.get()).isZero();
            assertThat(stats.getCorruptPages()).as("a reader never finds a page half replaced").isZero();
            // every chunk was written once, and none was lost to a concurrent fill
            for (int index = 0; index < pages; index++) {
                PageId pageId = new PageId("file-c", index);
                byte[] whole = new byte[PAGE_SIZE];
                assertThat(cache.read(pageId, 0, PAGE_SIZE, whole, 0)).as("page %s", index).isEqualTo(PAGE_SIZE);
                assertThat(whole).isEqualTo(content(pageId, PAGE_SIZE));
            }
        }
    }

    @Test
    void partsThatCoverNoWholeChunkAreNotKept()
            throws Exception
    {
        PageId pageId = new PageId("file-u", 0);
        byte[] page = content(pageId, PAGE_SIZE);
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(10L * PAGE_SIZE, directory.resolve("unaligned")), stats)) {
            // from the middle of chunk 0 to the middle of chunk 1: no chunk whole
            cache.writePart("/file-u", pageId, PAGE_SIZE, 100, ByteBuffer.wrap(page, 100, CHUNK_SIZE), CacheReadContext.UNKNOWN);
            assertThat(stats.getPartialPageWrites()).isZero();
            byte[] target = new byte[10];
            assertThat(cache.read(pageId, 200, 10, target, 0)).isZero();
        }
    }

    private void run(long seed, int operations, long capacity, boolean roomToSpare)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        Map<PageId, BitSet> written = new HashMap<>();
        Map<String, Integer> versions = new HashMap<>();
        long hits = 0;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(capacity, directory.resolve("seed-" + seed)), stats)) {
            Random random = new Random(seed);
            byte[] target = new byte[PAGE_SIZE + 10];
            for (int operation = 0; operation < operations; operation++) {
                String file = "file-" + random.nextInt(20);
                String fileId = file + "@" + versions.getOrDefault(file, 0);
                PageId pageId = new PageId(fileId, random.nextInt(8));
                int pageLength = length(pageId);
                byte[] page = content(pageId, pageLength);
                int chunks = PageFrame.chunks(pageLength);
                String context = "seed %s, operation %s, page %s".formatted(seed, operation, pageId);
                int choice = random.nextInt(100);
                if (choice < 15) {
                    cache.write("/" + fileId, pageId, ByteBuffer.wrap(page), CacheReadContext.UNKNOWN);
                    BitSet all = new BitSet();
                    all.set(0, chunks);
                    written.put(pageId, all);
                }
                else if (choice < 45) {
                    // a part from a chunk boundary to a chunk boundary or the page's end, as readers fetch them
                    int firstChunk = random.nextInt(chunks);
                    int endChunk = firstChunk + 1 + random.nextInt(chunks - firstChunk);
                    int from = firstChunk * CHUNK_SIZE;
                    int to = Math.min(pageLength, endChunk * CHUNK_SIZE);
                    cache.writePart("/" + fileId, pageId, pageLength, from, ByteBuffer.wrap(page, from, to - from), CacheReadContext.UNKNOWN);
                    written.computeIfAbsent(pageId, _ -> new BitSet()).set(firstChunk, endChunk);
                }
                else if (choice < 95) {
                    int offset = random.nextInt(pageLength);
                    int length = 1 + random.nextInt(pageLength - offset);
                    int targetOffset = random.nextInt(10);
                    cache.recordAccess(pageId);
                    int read = cache.read(pageId, offset, length, target, targetOffset);
                    BitSet chunksWritten = written.getOrDefault(pageId, new BitSet());
                    boolean covered = chunksWritten.nextClearBit(offset / CHUNK_SIZE) > (offset + length - 1) / CHUNK_SIZE;
                    if (!covered) {
                        // never more than was written: a page is never served past what readers fetched of it
                        assertThat(read).as(context).isZero();
                    }
                    else if (read > 0 || roomToSpare) {
                        assertThat(read).as(context).isEqualTo(length);
                        assertThat(Arrays.copyOfRange(target, targetOffset, targetOffset + read)).as(context).isEqualTo(Arrays.copyOfRange(page, offset, offset + read));
                        hits++;
                    }
                }
                else if (choice < 98) {
                    cache.deleteFile(fileId);
                    written.keySet().removeIf(id -> id.getFileId().equals(fileId));
                }
                else {
                    versions.merge(file, 1, Integer::sum);
                }
            }
            assertThat(hits).as("the cache must serve some reads, seed %s", seed).isPositive();
            assertThat(stats.getPartialPageWrites()).isPositive();
            assertThat(stats.getCorruptPages()).isZero();
            assertThat(stats.getGetErrors() + stats.getPutErrors()).isZero();
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(2 * capacity);
        }
    }

    private static PageCacheConfig config(long capacity, Path base)
    {
        return TestingPages.config(capacity, base).setPageSize(DataSize.ofBytes(PAGE_SIZE));
    }

    private static byte[] content(PageId pageId, int length)
    {
        return TestingPages.content(pageId, length);
    }

    // the last page of odd files is shorter, and not a whole number of chunks
    private static int length(PageId pageId)
    {
        return pageId.getPageIndex() == 7 && Math.floorMod(pageId.getFileId().hashCode(), 2) == 1
                ? 1 + Math.floorMod(pageId.getFileId().hashCode(), PAGE_SIZE - 1)
                : PAGE_SIZE;
    }
}
