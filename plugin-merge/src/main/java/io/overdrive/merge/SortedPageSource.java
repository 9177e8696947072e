package io.overdrive.merge;

import io.trino.spi.Page;

import java.util.concurrent.CompletableFuture;

/**
 * One input of a merge: a stream of pages whose rows are sorted by the merge's sort keys, which may arrive
 * asynchronously (a remote stream). Modelled on Trino's {@code ConnectorPageSource}.
 *
 * <p>The merge calls a source from one task at a time (never concurrently, with happens-before between calls), but
 * possibly from different pool threads; it never blocks on it. It calls {@link #close()} exactly once, when the
 * source is finished, the merge has no more use for it (limit reached), or the merge is cancelled or failed.
 */
public interface SortedPageSource
        extends AutoCloseable
{
    CompletableFuture<?> NOT_BLOCKED = CompletableFuture.completedFuture(null);

    /**
     * A future that completes when {@link #getNextPage()} may return a page or {@link #isFinished()} may become true;
     * {@link #NOT_BLOCKED} (or any completed future) when that is so now. A future that completes exceptionally fails
     * the merge.
     */
    CompletableFuture<?> isBlocked();

    /**
     * The next page, or null when none is available now. Throwing fails the merge.
     */
    Page getNextPage();

    /**
     * Whether no more pages will be returned.
     */
    boolean isFinished();

    /**
     * Releases the source; pages not yet read are discarded.
     */
    @Override
    void close();
}
