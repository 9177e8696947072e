package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code cache.quota.table-max-size}: a table at its quota makes room among its own pages; the other tables' pages stay.
 */
class TestPageCacheQuota
{
    @TempDir
    Path directory;
    @TempDir
    Path second;
    @TempDir
    Path third;

    @Test
    void tableAtItsQuotaEvictsItsOwnPagesOnly()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        // 1MB quota per table = 254 framed 4kB pages; the cache itself is far larger
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(4000 * PAGE_SIZE, directory).setTableQuota(DataSize.of(1, DataSize.Unit.MEGABYTE)), stats)) {
            CacheReadContext small = CacheReadContext.forTable("sales", "small", true);
            CacheReadContext big = CacheReadContext.forTable("sales", "big", true);
            for (int page = 0; page < 100; page++) {
                write(cache, "small-file", page, small);
            }
            // one table writes four times its quota
            for (int page = 0; page < 1000; page++) {
                write(cache, "big-file", page, big);
            }
            assertThat(stats.getQuotaEvictions()).isPositive();
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(100L * PageFrame.frameLength(PAGE_SIZE) + DataSize.of(1, DataSize.Unit.MEGABYTE).toBytes());
            byte[] target = new byte[PAGE_SIZE];
            for (int page = 0; page < 100; page++) {
                assertThat(cache.read(new PageId("small-file", page), 0, PAGE_SIZE, target, 0)).as("small table page %s", page).isPositive();
            }
            int bigHits = 0;
            for (int page = 0; page < 1000; page++) {
                if (cache.read(new PageId("big-file", page), 0, PAGE_SIZE, target, 0) > 0) {
                    bigHits++;
                }
            }
            assertThat(bigHits).isBetween(1, 1_048_576 / PAGE_SIZE);
        }
    }

    @Test
    void quotaHoldsForTheWholeCacheNotPerDirectory()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        long quota = DataSize.of(1, DataSize.Unit.MEGABYTE).toBytes();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(4000 * PAGE_SIZE, directory, second, third)
                .setTableQuota(DataSize.ofBytes(quota))
                .setSchemaQuota(DataSize.ofBytes(2 * quota)), stats)) {
            // 60 files spread over the three directories, each table writing three times its quota
            for (int file = 0; file < 60; file++) {
                for (int page = 0; page < 13; page++) {
                    write(cache, "orders-" + file, page, CacheReadContext.forTable("sales", "orders", true));
                }
            }
            assertThat(cache.directories()).allSatisfy(directory -> assertThat(directory.usedBytes()).as("every directory holds some of the table").isPositive());
            assertThat(stats.getBytesCached()).as("the table's pages in all directories together").isLessThanOrEqualTo(quota);
            assertThat(stats.getBytesCached()).isGreaterThan(quota - 3 * PageFrame.frameLength(PAGE_SIZE));

            // a second table of the schema: the schema quota, also summed over the directories, holds both
            for (int file = 0; file < 60; file++) {
                for (int page = 0; page < 13; page++) {
                    write(cache, "lineitem-" + file, page, CacheReadContext.forTable("sales", "lineitem", true));
                }
            }
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(2 * quota);
            assertThat(stats.getQuotaEvictions()).isPositive();
            assertThat(stats.getPutErrors()).isZero();
        }
    }

    @Test
    void concurrentWritersOfOneTableStayWithinItsQuota()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        long quota = DataSize.of(1, DataSize.Unit.MEGABYTE).toBytes();
        int threads = 8;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(4000 * PAGE_SIZE, directory, second, third).setTableQuota(DataSize.ofBytes(quota)), stats)) {
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                futures.add(executor.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int write = 0; write < 300; write++) {
                        write(cache, "orders-" + random.nextInt(40), random.nextInt(20), CacheReadContext.forTable("sales", "orders", true));
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
            executor.shutdownNow();
            // writers of one scope make room one at a time: at most one page per writing thread over the quota
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(quota + (long) threads * PageFrame.frameLength(PAGE_SIZE));
            assertThat(stats.getQuotaEvictions()).isPositive();
            assertThat(stats.getPutErrors()).isZero();
        }
    }

    private static void write(PageCache cache, String fileId, int index, CacheReadContext context)
    {
        PageId pageId = new PageId(fileId, index);
        cache.write("/" + fileId, pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), context);
    }
}
