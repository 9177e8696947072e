package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in its own JVM by {@link TestPageCacheRestart}: writes deterministic pages of tables {@code s.t1} and {@code s.t2}
 * into a cache directory, then exits
 * ({@code exit}) or keeps writing until it is killed ({@code forever}). Prints how many pages it wrote.
 */
public final class PageCacheWriterMain
{
    private PageCacheWriterMain() {}

    public static void main(String[] args)
            throws Exception
    {
        Path directory = Path.of(args[0]);
        int pages = Integer.parseInt(args[1]);
        boolean forever = args[2].equals("forever");
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, TestingPages.config(100_000L * TestingPages.PAGE_SIZE, directory), new PageCacheStats())) {
            for (int index = 0; forever || index < pages; index++) {
                PageId pageId = pageId(index);
                cache.write(TestingPages.path(pageId.getFileId()), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), TestingPages.context(pageId.getFileId()));
                if (index + 1 == pages) {
                    // tells the test that at least this many pages are on disk
                    Files.writeString(directory.resolve("written-" + pages), "");
                }
            }
        }
        System.exit(0);
    }

    /** The {@code index}-th page written: ten pages per file, files alternating between two tables. */
    static PageId pageId(int index)
    {
        return new PageId("file-" + (index / 10), index % 10);
    }
}
