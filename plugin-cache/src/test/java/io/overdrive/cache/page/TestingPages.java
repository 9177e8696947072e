package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Shared helpers of the page cache tests: configurations over temporary directories and deterministic pages. */
final class TestingPages
{
    static final int PAGE_SIZE = 4096;
    static final String CATALOG = "lake";

    private TestingPages() {}

    static PageCacheConfig config(long maxBytesPerDirectory, Path... directories)
    {
        return new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(Stream.of(directories).map(Path::toString).collect(Collectors.joining(",")))
                .setMaxSizes(maxBytesPerDirectory * directories.length + "B")
                .setPageSize(io.airlift.units.DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false)
                // pages written on the caller's thread, so that a test sees them on disk once write() returns; the
                // tests of background writes turn them on
                .setAsyncWriteEnabled(false);
    }

    /** Where the cache of {@link #CATALOG} keeps its pages under one of {@code cache.base-directory}. */
    static Path catalogDirectory(Path baseDirectory)
    {
        return baseDirectory.resolve(CATALOG);
    }

    /** Where the cache of {@link #CATALOG} keeps its page files under one of {@code cache.base-directory}. */
    static Path pageRoot(Path baseDirectory)
    {
        return catalogDirectory(baseDirectory).resolve("LOCAL");
    }

    /** Every file under the page root (page files, and anything else there), sorted. */
    static List<Path> pageFiles(Path baseDirectory)
            throws IOException
    {
        Path root = pageRoot(baseDirectory);
        if (!Files.isDirectory(root)) {
            return new ArrayList<>();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return new ArrayList<>(files.filter(Files::isRegularFile).sorted().toList());
        }
    }

    /**
     * What the cache holds on disk agrees with what it serves: every file under the page root of its one directory is a
     * page file that the cache manager's metadata holds (none is left outside the size bound, unknown to eviction), and
     * together they fit the directory's capacity.
     */
    static void assertEveryPageFileRegistered(LocalPageCache cache, Path baseDirectory)
            throws IOException
    {
        assertThat(cache.directories()).hasSize(1);
        PageStoreDirectory directory = cache.directories().getFirst();
        long bytes = 0;
        for (Path file : pageFiles(baseDirectory)) {
            Optional<PageId> pageId = directory.pageIdOf(file);
            assertThat(pageId).as("not a page file: %s", file).isPresent();
            assertThat(directory.pages(pageId.get().getFileId())).extracting(PageInfo::getPageId).as("page file %s is registered", file).contains(pageId.get());
            bytes += Files.size(file);
        }
        assertThat(bytes).as("bytes of page files on disk").isLessThanOrEqualTo(directory.capacityBytes());
    }

    /** The page a page file holds: {@code <file id>/<page index>}. */
    static PageId pageId(Path pageFile)
    {
        return new PageId(pageFile.getParent().getFileName().toString(), Long.parseLong(pageFile.getFileName().toString()));
    }

    /**
     * Dates everything the cache of {@link #CATALOG} keeps under {@code baseDirectory} an hour back, as left by a process
     * that ran well before the next start (which treats files written since its start as its own).
     */
    static void writtenAnHourAgo(Path baseDirectory)
            throws IOException
    {
        FileTime anHourAgo = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
        try (Stream<Path> paths = Files.walk(catalogDirectory(baseDirectory))) {
            paths.forEach(path -> {
                try {
                    Files.setLastModifiedTime(path, anHourAgo);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /** The table a test file belongs to: files alternate between {@code s.t1} and {@code s.t2}. */
    static String table(String fileId)
    {
        return Math.floorMod(fileId.hashCode(), 2) == 0 ? "t1" : "t2";
    }

    /** The data file's path, under its table's location. */
    static String path(String fileId)
    {
        return "/warehouse/s/" + table(fileId) + "/" + fileId;
    }

    static CacheReadContext context(String fileId)
    {
        return CacheReadContext.forTable("s", table(fileId), true);
    }

    /** The bytes of a page, a pure function of its id, so that any reader can check any hit. */
    static byte[] content(PageId pageId, int length)
    {
        byte[] bytes = new byte[length];
        new Random(pageId.getFileId().hashCode() * 31L + pageId.getPageIndex()).nextBytes(bytes);
        return bytes;
    }

    /** Last pages of a file are shorter: vary the length by page id, deterministically. */
    static int length(PageId pageId)
    {
        return pageId.getPageIndex() % 7 == 6 ? 1 + (int) Math.floorMod(pageId.getFileId().hashCode() + pageId.getPageIndex(), PAGE_SIZE - 1) : PAGE_SIZE;
    }
}
