package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Semaphore;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Model-based randomized test: the cache against a plain map of what was last written for each page. The cache may
 * decline or evict anything, but every byte it returns must be the model's, pages of a deleted file must never come
 * back, and with room to spare a page just written must be served. Seeds are printed on failure. Each runs with pages
 * written on the caller's thread and with background writes ({@link BackgroundWrites}), where a page waiting for the
 * disk is served from its bytes or missed, and a flush while it waits never lets it come back.
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
            run(seed, 10_000, 40 * PAGE_SIZE, false, Optional.empty());
        }
    }

    @Test
    void randomOperationsWithBackgroundWrites()
            throws Exception
    {
        for (long seed = 1; seed <= 3; seed++) {
            run(seed, 10_000, 40 * PAGE_SIZE, false, Optional.of(DataSize.of(64, MEGABYTE)));
        }
        // a buffer of a few hundred pages that the writers hold back now and then: full, pages declined
        run(7, 10_000, 40 * PAGE_SIZE, false, Optional.of(DataSize.of(1, MEGABYTE)));
    }

    @Test
    void randomOperationsWithAdmission()
            throws Exception
    {
        run(11, 10_000, 40 * PAGE_SIZE, true, Optional.empty());
        run(11, 10_000, 40 * PAGE_SIZE, true, Optional.of(DataSize.of(64, MEGABYTE)));
    }

    @Test
    void randomOperationsLong()
            throws Exception
    {
        assumeTrue(Boolean.getBoolean("overdrive.long-tests"), "long variant: run with -Doverdrive.long-tests=true");
        run(42, 1_200_000, 200 * PAGE_SIZE, true, Optional.empty());
        run(42, 1_200_000, 200 * PAGE_SIZE, true, Optional.of(DataSize.of(64, MEGABYTE)));
    }

    @Test
    void writtenPageIsServedWhenThereIsRoom()
            throws Exception
    {
        writtenPageIsServedWhenThereIsRoom(false);
        // from its bytes while it waits for the disk, from the disk afterwards
        writtenPageIsServedWhenThereIsRoom(true);
    }

    private void writtenPageIsServedWhenThereIsRoom(boolean background)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(10_000 * PAGE_SIZE, first.resolve("background-" + background)).setAsyncWriteEnabled(background), stats)) {
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

    // writeBuffer: background writes with this buffer; empty: pages written on the caller's thread
    private void run(long seed, int operations, long bytesPerDirectory, boolean admission, Optional<DataSize> writeBuffer)
            throws Exception
    {
        String name = "seed-" + seed + "-" + admission + "-" + writeBuffer.map(DataSize::toBytesValueString).orElse("sync");
        Path base = first.resolve(name);
        Path other = second.resolve(name);
        PageCacheConfig config = TestingPages.config(bytesPerDirectory, base, other)
                .setAdmissionEnabled(admission)
                .setAsyncWriteEnabled(writeBuffer.isPresent());
        writeBuffer.ifPresent(config::setAsyncWriteBufferSize);
        PageCacheStats stats = new PageCacheStats();
        Map<PageId, byte[]> model = new HashMap<>();
        Map<String, Integer> versions = new HashMap<>();
        long reads = 0;
        long hitBytes = 0;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            Random random = new Random(seed);
            // the writers held back for stretches of operations, so that many pages wait (and a small buffer fills)
            Semaphore writers = new Semaphore(Integer.MAX_VALUE);
            if (writeBuffer.isPresent()) {
                cache.backgroundWrites().setBeforeWrite(_ -> {
                    writers.acquireUninterruptibly();
                    writers.release();
                });
            }
            boolean heldBack = false;
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
                    // by file id, by path, by path pattern: the file's pages, also those waiting for the disk, are gone
                    switch (random.nextInt(3)) {
                        case 0 -> cache.deleteFile(fileId);
                        case 1 -> cache.expire("/" + fileId);
                        default -> cache.invalidatePaths(path -> path.equals("/" + fileId));
                    }
                    model.keySet().removeIf(id -> id.getFileId().equals(fileId));
                }
                else if (choice < 99 && writeBuffer.isPresent()) {
                    // hold the writers back, or let them go
                    if (heldBack) {
                        writers.release(Integer.MAX_VALUE);
                    }
                    else {
                        writers.acquireUninterruptibly(Integer.MAX_VALUE);
                    }
                    heldBack = !heldBack;
                }
                else {
                    // the file changes: its old pages must never be served under the new id
                    versions.merge(file, 1, Integer::sum);
                }
            }
            if (heldBack) {
                writers.release(Integer.MAX_VALUE);
            }
            assertThat(cache.awaitWrites(new Duration(30, SECONDS))).isTrue();
            // once written, every page the cache serves is still the model's
            for (PageId pageId : model.keySet()) {
                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                reads++;
                hitBytes += read;
                if (read > 0) {
                    assertThat(Arrays.copyOf(target, read)).as("seed %s, page %s", seed, pageId).isEqualTo(model.get(pageId));
                }
            }
            // and a page of a deleted file never comes back (nothing written after its deletion)
            for (PageStoreDirectory directory : cache.directories()) {
                for (int file = 0; file < 30; file++) {
                    for (int version = 0; version <= versions.getOrDefault("file-" + file, 0); version++) {
                        String fileId = "file-" + file + "@" + version;
                        for (var page : directory.pages(fileId)) {
                            assertThat(model).as("seed %s: page %s on disk, deleted", seed, page.getPageId()).containsKey(page.getPageId());
                        }
                    }
                }
            }
            assertThat(stats.getWriteBufferBytes()).isZero();
            if (writeBuffer.isPresent()) {
                assertThat(stats.getBackgroundWrites()).isPositive();
                assertThat(stats.getWriteBufferHits()).isPositive();
                if (writeBuffer.get().toBytes() < 2 * 1024 * 1024) {
                    assertThat(stats.getNotCachedWriteBufferFull()).as("a small buffer fills").isPositive();
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
