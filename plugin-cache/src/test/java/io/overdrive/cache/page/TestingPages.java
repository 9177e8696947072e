package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;

import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

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
                .setAdmissionEnabled(false);
    }

    /** Where the cache of {@link #CATALOG} keeps its pages under one of {@code cache.base-directory}. */
    static Path catalogDirectory(Path baseDirectory)
    {
        return baseDirectory.resolve(CATALOG);
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
