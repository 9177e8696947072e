package io.overdrive.cache.peer;

import alluxio.client.file.cache.PageId;

/**
 * The pages this worker is reading from storage right now (its shared scans' fetches in flight): a peer that asks for
 * one may wait for that read instead of reading the same bytes from storage itself, so that the cluster reads them once.
 * Only reads from storage count: a fetch that is itself asking a peer is not waited for, so that two workers never wait
 * for each other.
 */
public interface PagesInFlight
{
    PagesInFlight NONE = new PagesInFlight()
    {
        @Override
        public boolean fetching(PageId pageId)
        {
            return false;
        }

        @Override
        public boolean awaitFetched(PageId pageId, int from, int length, byte[] target, int targetOffset, long timeoutNanos)
        {
            return false;
        }
    };

    /** Whether this worker is reading the page from storage now. */
    boolean fetching(PageId pageId);

    /**
     * Waits at most {@code timeoutNanos} for this worker's storage read of the page in flight, and copies {@code length}
     * bytes of the page from {@code from} into {@code target} at {@code targetOffset}. False, having copied nothing,
     * when no such read is in flight, it failed, it did not read those bytes of the page, or the time ran out.
     */
    boolean awaitFetched(PageId pageId, int from, int length, byte[] target, int targetOffset, long timeoutNanos)
            throws InterruptedException;
}
