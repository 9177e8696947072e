package io.overdrive.merge;

import io.trino.spi.Page;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The consumer's side of a merge: the merged (and combined) pages in order. Not thread-safe: one consumer.
 * Backpressure: the merge pauses while {@code merge.queue-size} pages wait here unread.
 */
public interface MergedPageStream
        extends AutoCloseable
{
    /** Types of the output columns. */
    List<Type> getTypes();

    /** Completes when a page is available, the stream is finished, or the merge failed. */
    CompletableFuture<?> isBlocked();

    /** The next page, or null when none is available yet; throws the merge's failure. */
    Page getNextPage();

    /** Whether every page has been returned; throws the merge's failure. */
    boolean isFinished();

    /** Information about the merge, for diagnostics and tests. */
    MergeInfo getInfo();

    /** Cancels the merge if it is still running: its tasks stop promptly and its buffered pages are released. */
    @Override
    void close();
}
