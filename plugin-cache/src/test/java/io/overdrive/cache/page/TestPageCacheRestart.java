package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker restarts: the pages a previous process left on disk are reused when valid and discarded when corrupt or
 * cut short, whether that process exited cleanly or was killed in the middle of writing.
 */
class TestPageCacheRestart
{
    @TempDir
    Path directory;

    @Test
    void cleanExitLeavesEveryPageReusable()
            throws Exception
    {
        Process writer = startWriter(200, "exit");
        assertThat(writer.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(writer.exitValue()).isZero();

        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100_000L * PAGE_SIZE, directory), stats)) {
            assertThat(stats.getBytesRecovered()).isPositive();
            for (int index = 0; index < 200; index++) {
                PageId pageId = new PageId("file-" + (index / 10), index % 10);
                assertHit(cache, pageId);
            }
            assertThat(stats.getMisses()).isZero();
        }
    }

    @Test
    void killedWriterAndTornPagesAreNeverServed()
            throws Exception
    {
        Process writer = startWriter(150, "forever");
        Path marker = directory.resolve("written-150");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!Files.exists(marker) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(marker).exists();
        // SIGKILL while it is writing: whatever page was in flight is left as it was
        writer.destroyForcibly();
        assertThat(writer.waitFor(1, TimeUnit.MINUTES)).isTrue();

        // and tear three pages the way a crash mid-write can: cut short, or zeroed past the first half
        List<Path> pageFiles = pageFiles();
        assertThat(pageFiles.size()).isGreaterThanOrEqualTo(150);
        try (RandomAccessFile file = new RandomAccessFile(pageFiles.get(3).toFile(), "rw")) {
            file.setLength(PAGE_SIZE / 3);
        }
        try (RandomAccessFile file = new RandomAccessFile(pageFiles.get(7).toFile(), "rw")) {
            file.setLength(0);
        }
        try (RandomAccessFile file = new RandomAccessFile(pageFiles.get(11).toFile(), "rw")) {
            file.seek(file.length() / 2);
            file.write(new byte[(int) (file.length() - file.length() / 2)]);
        }

        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100_000L * PAGE_SIZE, directory), stats)) {
            int hits = 0;
            byte[] target = new byte[PAGE_SIZE];
            for (Path pageFile : pageFiles) {
                PageId pageId = new PageId(pageFile.getParent().getFileName().toString(), Long.parseLong(pageFile.getFileName().toString()));
                int length = TestingPages.length(pageId);
                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                if (read > 0) {
                    hits++;
                    assertThat(read).isEqualTo(length);
                    assertThat(Arrays.copyOf(target, read)).as("page %s", pageId).isEqualTo(TestingPages.content(pageId, length));
                }
            }
            assertThat(hits).as("valid pages are reused").isGreaterThanOrEqualTo(pageFiles.size() - 4);
            assertThat(hits).as("torn pages are not").isLessThanOrEqualTo(pageFiles.size() - 3);
            assertThat(stats.getCorruptPages() + stats.getGetErrors()).isGreaterThanOrEqualTo(3);
        }
    }

    private Process startWriter(int pages, String mode)
            throws IOException
    {
        return new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                PageCacheWriterMain.class.getName(),
                directory.toString(), Integer.toString(pages), mode)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("writer.log").toFile())
                .start();
    }

    private List<Path> pageFiles()
            throws IOException
    {
        try (Stream<Path> files = Files.walk(TestingPages.catalogDirectory(directory).resolve("LOCAL"))) {
            return new ArrayList<>(files.filter(Files::isRegularFile).sorted().toList());
        }
    }

    private static void assertHit(PageCache cache, PageId pageId)
    {
        byte[] target = new byte[PAGE_SIZE];
        int length = TestingPages.length(pageId);
        assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).as("page %s", pageId).isEqualTo(length);
        assertThat(Arrays.copyOf(target, length)).isEqualTo(TestingPages.content(pageId, length));
    }
}
