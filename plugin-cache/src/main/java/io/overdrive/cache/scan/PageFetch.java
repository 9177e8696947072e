package io.overdrive.cache.scan;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.util.Objects.requireNonNull;

/**
 * One remote read of a page in flight. The reader that claimed it completes it with the page's bytes or fails it;
 * readers that need the page meanwhile wait for it instead of reading remote storage themselves.
 */
final class PageFetch
{
    /** A fetch given up for a reason that is not a failure of storage: waiters simply look again. */
    static final Exception GIVEN_UP = new Exception("fetch given up", null, false, false) {};

    private final CompletableFuture<PageBytes> result = new CompletableFuture<>();
    private final boolean readAhead;

    PageFetch(boolean readAhead)
    {
        this.readAhead = readAhead;
    }

    boolean isReadAhead()
    {
        return readAhead;
    }

    void complete(PageBytes bytes)
    {
        result.complete(requireNonNull(bytes, "bytes is null"));
    }

    void fail(Throwable cause)
    {
        result.completeExceptionally(requireNonNull(cause, "cause is null"));
    }

    /**
     * The page's bytes once fetched.
     *
     * @throws ExecutionException when the fetch failed or was given up ({@link #GIVEN_UP} as the cause)
     */
    PageBytes await(long timeoutNanos)
            throws ExecutionException, InterruptedException, TimeoutException
    {
        return result.get(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** A page's bytes: a slice of the buffer of the remote read that fetched it. */
    record PageBytes(byte[] array, int offset, int length)
    {
        void copyTo(int pageOffset, byte[] target, int targetOffset, int bytes)
        {
            System.arraycopy(array, offset + pageOffset, target, targetOffset, bytes);
        }
    }
}
