package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads read overlapping pages (skewed towards a hot set) through a cache far smaller than the data, so that
 * eviction runs all the time, while other threads delete files. Page contents are a pure function of the page id, so
 * every hit is checked: no torn, stale or foreign bytes, no exceptions, and the counters add up.
 */
class TestPageCacheConcurrency
{
    private static final int THREADS = 16;
    private static final int OPERATIONS_PER_THREAD = 2_500;

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void readersWritersAndDeletesInterleave()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        AtomicLong reads = new AtomicLong();
        AtomicLong hits = new AtomicLong();
        Map<String, AtomicLong> hitsByTable = Map.of("t1", new AtomicLong(), "t2", new AtomicLong());
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(60 * PAGE_SIZE, first, second).setAdmissionEnabled(true), stats)) {
            ExecutorService executor = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                boolean deleter = thread == 0;
                futures.add(executor.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    byte[] target = new byte[PAGE_SIZE];
                    for (int operation = 0; operation < OPERATIONS_PER_THREAD; operation++) {
                        // half the reads go to a hot set of 4 files, the rest anywhere in 200 files
                        String fileId = "file-" + (random.nextBoolean() ? random.nextInt(4) : random.nextInt(200));
                        PageId pageId = new PageId(fileId, random.nextInt(8));
                        if (deleter && operation % 10 == 0) {
                            cache.deleteFile(fileId);
                            continue;
                        }
                        int length = TestingPages.length(pageId);
                        int offset = random.nextInt(length);
                        cache.recordAccess(pageId);
                        int read = cache.read(pageId, offset, PAGE_SIZE, target, 0);
                        reads.incrementAndGet();
                        if (read > 0) {
                            hits.incrementAndGet();
                            hitsByTable.get(TestingPages.table(fileId)).incrementAndGet();
                            byte[] expected = TestingPages.content(pageId, length);
                            assertThat(read).isEqualTo(length - offset);
                            assertThat(Arrays.copyOf(target, read)).isEqualTo(Arrays.copyOfRange(expected, offset, length));
                        }
                        else {
                            cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(TestingPages.content(pageId, length)), TestingPages.context(fileId));
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }
            executor.shutdown();
            assertThat(executor.awaitTermination(1, TimeUnit.MINUTES)).isTrue();

            assertThat(hits.get()).as("hot pages must be served from the cache").isGreaterThan(reads.get() / 10);
            assertThat(stats.getHits()).isEqualTo(hits.get());
            assertThat(stats.getHits() + stats.getMisses()).isEqualTo(reads.get());
            assertThat(stats.getCorruptPages()).isZero();
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(2 * 60 * PageFrame.frameLength(PAGE_SIZE));
            assertThat(stats.getBytesEvicted()).as("the cache is far smaller than the data, so it must evict").isPositive();

            // what the cache reports per table is what its metadata holds, and every hit is counted for its table
            List<CachedTableUsage> tables = cache.cachedTables();
            for (CachedTableUsage table : tables) {
                String name = table.table().orElseThrow();
                long files = 0;
                long pages = 0;
                long bytes = 0;
                for (int file = 0; file < 200; file++) {
                    String fileId = "file-" + file;
                    if (!TestingPages.table(fileId).equals(name)) {
                        continue;
                    }
                    Set<PageInfo> filePages = cache.directories().stream().flatMap(directory -> directory.pages(fileId).stream()).collect(toSet());
                    files += filePages.isEmpty() ? 0 : 1;
                    pages += filePages.size();
                    bytes += filePages.stream().mapToLong(PageInfo::getPageSize).sum();
                }
                assertThat(table.files()).as(name).isEqualTo(files);
                assertThat(table.pages()).as(name).isEqualTo(pages);
                assertThat(table.bytes()).as(name).isEqualTo(bytes);
                assertThat(table.hits()).as(name).isEqualTo(hitsByTable.get(name).get());
            }
            assertThat(tables).isNotEmpty();
            assertThat(tables.stream().mapToLong(CachedTableUsage::bytes).sum()).isEqualTo(stats.getBytesCached());
        }
    }
}
