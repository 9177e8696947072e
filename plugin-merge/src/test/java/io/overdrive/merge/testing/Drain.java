package io.overdrive.merge.testing;

import io.overdrive.merge.MergedPageStream;
import io.trino.spi.Page;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a merged stream to the end from a test thread (outside the pool), waiting on its futures.
 */
public final class Drain
{
    private Drain() {}

    public static List<Page> all(MergedPageStream stream)
    {
        return pages(stream, Integer.MAX_VALUE);
    }

    /**
     * Waits until the merge's tasks have all exited and its inputs are closed.
     */
    public static void awaitTerminated(MergedPageStream stream)
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!stream.getInfo().terminated()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("merge did not terminate: " + stream.getInfo());
            }
            try {
                // test helper: the engine itself never polls
                Thread.sleep(1);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
    }

    /**
     * Reads up to {@code maxPages} pages (fewer if the stream ends).
     */
    public static List<Page> pages(MergedPageStream stream, int maxPages)
    {
        List<Page> pages = new ArrayList<>();
        while (pages.size() < maxPages) {
            Page page = stream.getNextPage();
            if (page != null) {
                pages.add(page);
                continue;
            }
            if (stream.isFinished()) {
                break;
            }
            try {
                stream.isBlocked().get(60, TimeUnit.SECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
            catch (ExecutionException e) {
                // a failed future just means: look again (getNextPage throws the failure)
            }
            catch (TimeoutException e) {
                throw new AssertionError("merge made no progress for 60 seconds: " + stream, e);
            }
        }
        return pages;
    }
}
