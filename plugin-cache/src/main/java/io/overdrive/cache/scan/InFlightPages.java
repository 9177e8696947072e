package io.overdrive.cache.scan;

import alluxio.client.file.cache.PageId;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pages being fetched from remote storage on this node for one catalog: the first reader to need a page claims
 * its fetch, the others join it. A claimer always resolves its fetch (completes or fails it) and then removes it.
 */
final class InFlightPages
{
    private final Map<PageId, PageFetch> fetches = new ConcurrentHashMap<>();

    /** The page's fetch in flight ({@code claimed} false), or a new one the caller now owns ({@code claimed} true). */
    Claim claimOrJoin(PageId pageId, boolean readAhead)
    {
        PageFetch existing = fetches.get(pageId);
        if (existing != null) {
            return new Claim(pageId, existing, false);
        }
        PageFetch fetch = new PageFetch(readAhead);
        existing = fetches.putIfAbsent(pageId, fetch);
        return existing == null ? new Claim(pageId, fetch, true) : new Claim(pageId, existing, false);
    }

    /** The page's fetch in flight, if any. */
    Optional<PageFetch> get(PageId pageId)
    {
        return Optional.ofNullable(fetches.get(pageId));
    }

    /** Forgets a resolved fetch; readers that come later find the page in the cache, or fetch it again. */
    void remove(Claim claim)
    {
        fetches.remove(claim.pageId(), claim.fetch());
    }

    /** Fails a claimed fetch: removed first, so that its waiters, which then look again, can claim a new one. */
    void fail(Claim claim, Throwable cause)
    {
        remove(claim);
        claim.fetch().fail(cause);
    }

    int size()
    {
        return fetches.size();
    }

    record Claim(PageId pageId, PageFetch fetch, boolean claimed) {}
}
