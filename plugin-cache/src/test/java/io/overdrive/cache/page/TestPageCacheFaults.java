package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static com.google.common.io.MoreFiles.deleteRecursively;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Faults at the disk boundary: whatever happens to the cache's files and directories, a read returns the right bytes
 * or nothing (the caller then reads remote storage), never an error and never wrong bytes, and a metric counts it.
 * Full and read-only disks are real tmpfs mounts where this process may mount (root on Linux); elsewhere those two
 * tests skip themselves.
 */
class TestPageCacheFaults
{
    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void corruptBytesAreDetectedAtRestartDiscardedAndRecached()
            throws Exception
    {
        List<PageId> pages;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first), new PageCacheStats())) {
            pages = writePages(cache, "file", 5);
        }
        // bits flipped on disk while no worker ran: the restore verifies every chunk's checksum (damage while the worker
        // runs is found by the hit that reads it: TestPageCacheChecksums)
        Path victim = pageFile(first, pages.get(2));
        try (RandomAccessFile file = new RandomAccessFile(victim.toFile(), "rw")) {
            file.seek(100);
            int value = file.read();
            file.seek(100);
            file.write(value ^ 0x5A);
        }
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first), stats)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            assertThat(stats.getRestoreDiscardedCorrupt()).isEqualTo(1);
            assertThat(stats.getPagesRestored()).isEqualTo(4);
            assertThat(Files.exists(victim)).as("a corrupt page is deleted").isFalse();
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(pages.get(2), 0, PAGE_SIZE, target, 0)).isZero();
            assertReadsBack(cache, pages, List.of(0, 1, 3, 4));

            cache.write("/file", pages.get(2), ByteBuffer.wrap(TestingPages.content(pages.get(2), TestingPages.length(pages.get(2)))), CacheReadContext.UNKNOWN);
            assertReadsBack(cache, pages, List.of(0, 1, 2, 3, 4));
        }
    }

    @Test
    void truncatedPageIsNeverServed()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        List<PageId> pages;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first), stats)) {
            pages = writePages(cache, "file", 4);
            // a page file cut short under the running cache: a read needs the whole chunk with its checksum, and finds
            // the file shorter than its metadata says, which loses the page (a checksum failure it is not)
            try (RandomAccessFile file = new RandomAccessFile(pageFile(first, pages.get(1)).toFile(), "rw")) {
                file.setLength(1000);
            }
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(pages.get(1), 0, 10, target, 0)).isZero();
            assertThat(stats.getCorruptPages()).isEqualTo(1);
            assertThat(stats.getChecksumFailures()).isZero();
            assertThat(pageFile(first, pages.get(1), PAGE_SIZE)).as("the cache manager deletes a lost page's file").isEmpty();
            assertThat(cache.read(pages.get(1), 0, 10, target, 0)).as("forgotten").isZero();
            assertReadsBack(cache, pages, List.of(0, 2, 3));
        }
        // what a crash in the middle of writing a page leaves behind is found by the restore
        try (RandomAccessFile file = new RandomAccessFile(pageFile(first, pages.get(3)).toFile(), "rw")) {
            file.setLength(1000);
        }
        PageCacheStats restarted = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, first), restarted)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            assertThat(restarted.getRestoreDiscardedCorrupt()).isEqualTo(1);
            assertThat(cache.read(pages.get(3), 0, 10, new byte[10], 0)).isZero();
            assertReadsBack(cache, pages, List.of(0, 2));
        }
    }

    @Test
    void unusableDirectoryAtStartupIsLeftOutAndTheOthersServe()
            throws Exception
    {
        Path notADirectory = first.resolve("file-in-the-way");
        Files.writeString(notADirectory, "x");
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100 * PAGE_SIZE, notADirectory, second), stats)) {
            assertThat(stats.getDirectoriesDisabled()).isEqualTo(1);
            List<PageId> pages = writePages(cache, "file", 20);
            assertReadsBack(cache, pages, List.of(0, 5, 10, 19));
        }
    }

    @Test
    void directoryThatKeepsFailingIsTakenOutOfUse()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(200 * PAGE_SIZE, first, second).setDirectoryFailureThreshold(3), stats)) {
            List<PageId> pages = new java.util.ArrayList<>();
            for (int file = 0; file < 20; file++) {
                pages.addAll(writePages(cache, "file-" + file, 3));
            }
            // the disk under the first directory goes away: its page files vanish and nothing can be created there
            deleteRecursively(TestingPages.catalogDirectory(first).resolve("LOCAL"));
            Files.writeString(TestingPages.catalogDirectory(first).resolve("LOCAL"), "not a directory any more");

            byte[] target = new byte[PAGE_SIZE];
            for (int round = 0; round < 2; round++) {
                for (PageId pageId : pages) {
                    int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                    if (read > 0) {
                        assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, TestingPages.length(pageId)));
                    }
                    else {
                        cache.write("/" + pageId.getFileId(), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), CacheReadContext.UNKNOWN);
                    }
                }
            }
            assertThat(stats.getPutErrors()).as("writes to the vanished disk fail").isPositive();
            assertThat(stats.getDirectoriesDisabled()).isEqualTo(1);
            // every file now lives in the healthy directory
            assertReadsBack(cache, pages, java.util.stream.IntStream.range(0, pages.size()).boxed().toList());
        }
    }

    @Test
    void fullDiskCostsCachingNotCorrectness()
            throws Exception
    {
        Path mount = first.resolve("small-disk");
        assumeTrue(mountTmpfs(mount, "size=64k"), "needs permission to mount tmpfs (root on Linux)");
        try {
            PageCacheStats stats = new PageCacheStats();
            // the configured size is far above what the disk holds
            try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(1000 * PAGE_SIZE, mount).setDirectoryFailureThreshold(1000), stats)) {
                List<PageId> pages = writePages(cache, "file", 60);
                // Alluxio meets ENOSPC by evicting until the page fits: the cache shrinks to the real disk
                assertThat(stats.getBytesCached()).isLessThanOrEqualTo(64 * 1024);
                assertThat(stats.getBytesEvicted()).isPositive();
                byte[] target = new byte[PAGE_SIZE];
                int hits = 0;
                for (PageId pageId : pages) {
                    int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                    if (read > 0) {
                        hits++;
                        assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, TestingPages.length(pageId)));
                    }
                }
                assertThat(hits).as("what fitted is served").isPositive();
            }
        }
        finally {
            unmount(mount);
        }
    }

    @Test
    void readOnlyDiskStillServesWhatItHolds()
            throws Exception
    {
        Path mount = first.resolve("disk");
        assumeTrue(mountTmpfs(mount, "size=4m"), "needs permission to mount tmpfs (root on Linux)");
        try {
            PageCacheStats stats = new PageCacheStats();
            try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(500 * PAGE_SIZE, mount).setDirectoryFailureThreshold(1000), stats)) {
                List<PageId> pages = writePages(cache, "file", 10);
                assertThat(run("mount", "-o", "remount,ro", mount.toString())).isTrue();
                assertReadsBack(cache, pages, List.of(0, 3, 9));
                List<PageId> more = writePages(cache, "other", 5);
                assertThat(stats.getPutErrors()).isEqualTo(5);
                assertThat(cache.read(more.getFirst(), 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).isZero();
            }
        }
        finally {
            unmount(mount);
        }
    }

    private static List<PageId> writePages(PageCache cache, String fileId, int count)
    {
        List<PageId> pages = new java.util.ArrayList<>();
        for (int index = 0; index < count; index++) {
            PageId pageId = new PageId(fileId, index);
            cache.write("/" + fileId, pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), CacheReadContext.UNKNOWN);
            pages.add(pageId);
        }
        return pages;
    }

    private static void assertReadsBack(PageCache cache, List<PageId> pages, List<Integer> indexes)
    {
        byte[] target = new byte[PAGE_SIZE];
        for (int index : indexes) {
            PageId pageId = pages.get(index);
            int length = TestingPages.length(pageId);
            assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).as("page %s", pageId).isEqualTo(length);
            assertThat(Arrays.copyOf(target, length)).isEqualTo(TestingPages.content(pageId, length));
        }
    }

    /** {@code <directory>/LOCAL/<page size>/<bucket>/<file id>/<page index>}, the layout of seed 004. */
    static Path pageFile(Path directory, PageId pageId)
            throws IOException
    {
        return pageFile(directory, pageId, PAGE_SIZE).orElseThrow();
    }

    static java.util.Optional<Path> pageFile(Path directory, PageId pageId, int pageSize)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(TestingPages.catalogDirectory(directory).resolve("LOCAL").resolve(Integer.toString(pageSize)))) {
            return files.filter(Files::isRegularFile)
                    .filter(file -> file.getFileName().toString().equals(Long.toString(pageId.getPageIndex())) && file.getParent().getFileName().toString().equals(pageId.getFileId()))
                    .findFirst();
        }
    }

    private static boolean mountTmpfs(Path mount, String options)
            throws IOException
    {
        Files.createDirectories(mount);
        return run("mount", "-t", "tmpfs", "-o", options, "tmpfs", mount.toString());
    }

    private static void unmount(Path mount)
    {
        run("umount", mount.toString());
    }

    private static boolean run(String... command)
    {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        }
        catch (IOException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
