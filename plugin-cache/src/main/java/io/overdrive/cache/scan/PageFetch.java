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
    // set once its claimer reads the page from storage (not from a peer): peers may then wait for it
    private volatile boolean fromStorage;

    PageFetch(boolean readAhead)
    {
        this.readAhead = readAhead;
    }

    boolean isReadAhead()
    {
        return readAhead;
    }

    /** Its claimer is reading the page from storage now. */
    void readingStorage()
    {
        fromStorage = true;
    }

    /** Whether its claimer read, or is reading, the page from storage (its bytes may be done already). */
    boolean isFromStorage()
    {
        return fromStorage;
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

    /**
     * The bytes of a page from {@code pageOffset} (0 for a whole page; a fetch of only what its reader needed starts
     * and ends where that read does, to the chunk): a slice at {@code offset} of the buffer of the remote read that
     * fetched it.
     */
    record PageBytes(byte[] array, int offset, int pageOffset, int length)
    {
        /** A whole page, or its first {@code length} bytes. */
        PageBytes(byte[] array, int offset, int length)
        {
            this(array, offset, 0, length);
        }

        /** Whether these hold the page's bytes from {@code from} to {@code to}. */
        boolean covers(int from, int to)
        {
            return from >= pageOffset && to <= pageOffset + length;
        }

        /** Copies the page's bytes from {@code from}, which these hold ({@link #covers}). */
        void copyTo(int from, byte[] target, int targetOffset, int bytes)
        {
            System.arraycopy(array, offset + from - pageOffset, target, targetOffset, bytes);
        }
    }
}
