package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Model-based randomized test: the cache against a plain map of what was last written for each page. The cache may
 * decline or evict anything, but every byte it returns must be the model's, pages of a deleted file must never come
 * back, and with room to spare a page just written must be served. Seeds are printed on failure.
 * <p>
 * The long variant ({@code -Doverdrive.long-tests=true}) runs 1,200,000 operations.
 */
class TestPageCacheModel
{
    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void randomOperationsUnderEvictionPressure()
            throws Exception
    {
        for (long seed = 1; seed <= 3; seed++) {
            run(seed, 10_000, 40 * PAGE_SIZE, false);
        }
    }

    @Test
    void randomOperationsWithAdmission()
            throws Exception
    {
        run(11, 10_000, 40 * PAGE_SIZE, true);
    }

    @Test
    void randomOperationsLong()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.long-tests"), "long variant: run with -Doverdrive.long-tests=true");
        run(42, 1_200_000, 200 * PAGE_SIZE, true);
    }

    @Test
    void writtenPageIsServedWhenThereIsRoom()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(10_000 * PAGE_SIZE, first), stats)) {
            Random random = new Random(5);
            for (int i = 0; i < 2_000; i++) {
                PageId pageId = new PageId("file-" + random.nextInt(50), random.nextInt(20));
                byte[] page = TestingPages.content(pageId, TestingPages.length(pageId));
                cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(page), CacheReadContext.UNKNOWN);
                byte[] target = new byte[PAGE_SIZE];
                assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).isEqualTo(page.length);
                assertThat(Arrays.copyOf(target, page.length)).isEqualTo(page);
            }
            assertThat(stats.getMisses()).isZero();
        }
    }

    private void run(long seed, int operations, long bytesPerDirectory, boolean admission)
            throws Exception
    {
        Path base = first.resolve("seed-" + seed + "-" + admission);
        Path other = second.resolve("seed-" + seed + "-" + admission);
        PageCacheStats stats = new PageCacheStats();
        Map<PageId, byte[]> model = new HashMap<>();
        Map<String, Integer> versions = new HashMap<>();
        long reads = 0;
        long hitBytes = 0;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(bytesPerDirectory, base, other).setAdmissionEnabled(admission), stats)) {
            Random random = new Random(seed);
            byte[] target = new byte[PAGE_SIZE + 10];
            for (int operation = 0; operation < operations; operation++) {
                String file = "file-" + random.nextInt(30);
                // a new version of a file gets a new id, as a changed modification time gives a new cache key
                String fileId = file + "@" + versions.getOrDefault(file, 0);
                PageId pageId = new PageId(fileId, random.nextInt(12));
                int choice = random.nextInt(100);
                String context = "seed %s, operation %s, page %s".formatted(seed, operation, pageId);
                if (choice < 45) {
                    byte[] page = TestingPages.content(pageId, TestingPages.length(pageId));
                    cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(page), CacheReadContext.UNKNOWN);
                    model.put(pageId, page);
                }
                else if (choice < 95) {
                    int offset = random.nextInt(PAGE_SIZE);
                    int length = 1 + random.nextInt(PAGE_SIZE);
                    int targetOffset = random.nextInt(10);
                    cache.recordAccess(pageId);
                    int read = cache.read(pageId, offset, length, target, targetOffset);
                    reads++;
                    byte[] expected = model.get(pageId);
                    if (expected == null) {
                        assertThat(read).as(context).isZero();
                    }
                    else if (read > 0) {
                        int available = Math.max(0, expected.length - offset);
                        assertThat(read).as(context).isEqualTo(Math.min(length, available));
                        assertThat(Arrays.copyOfRange(target, targetOffset, targetOffset + read)).as(context).isEqualTo(Arrays.copyOfRange(expected, offset, offset + read));
                        hitBytes += read;
                    }
                }
                else if (choice < 98) {
                    cache.deleteFile(fileId);
                    model.keySet().removeIf(id -> id.getFileId().equals(fileId));
                }
                else {
                    // the file changes: its old pages must never be served under the new id
                    versions.merge(file, 1, Integer::sum);
                }
            }
            assertThat(stats.getHits() + stats.getMisses()).isEqualTo(reads);
            assertThat(stats.getBytesFromCache()).isEqualTo(hitBytes);
            assertThat(stats.getHits()).as("the cache must serve some reads, seed %s", seed).isPositive();
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(2 * bytesPerDirectory);
            assertThat(stats.getCorruptPages()).isZero();
            assertThat(stats.getGetErrors() + stats.getPutErrors()).isZero();
        }
    }
}
