package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import com.google.common.util.concurrent.RateLimiter;
import io.overdrive.cache.session.ReadOptions.Populate;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Whether a page offered to the cache is written at all: only on a preferred worker (soft affinity), by TinyLFU
 * admission ({@code cache.admission}) once caching it would evict, then within the write-rate limit
 * ({@code cache.write-rate-limit}). The same for the real cache and the dry run,
 * so that a dry run predicts what the cache would hold.
 */
final class WriteGate
{
    private final Optional<AdmissionFilter> admission;
    private final Optional<RateLimiter> writeRateLimiter;
    private final PageCacheStats stats;

    WriteGate(PageCacheConfig config, PageCacheStats stats)
    {
        long totalBytes = config.maxSizePerDirectory().stream().mapToLong(size -> size.toBytes()).sum();
        long pageSize = config.getPageSize().toBytes();
        this.admission = config.isAdmissionEnabled()
                ? Optional.of(new AdmissionFilter(Math.max(1, totalBytes / pageSize), config.getAdmissionMinFrequency()))
                : Optional.empty();
        this.writeRateLimiter = config.getWriteRateLimit().map(limit -> RateLimiter.create((double) limit.toBytes()));
        this.stats = requireNonNull(stats, "stats is null");
    }

    void recordAccess(PageId pageId)
    {
        admission.ifPresent(filter -> filter.recordRead(pageId.getFileId(), pageId.getPageIndex()));
    }

    /**
     * Whether this node may cache the read's pages at all: under soft affinity, only the file's preferred workers do,
     * and not for a query whose session set {@code cache_populate=NEVER}.
     */
    boolean isCacheable(CacheReadContext context)
    {
        if (!context.cacheable()) {
            stats.recordNotCachedNotPreferred();
            return false;
        }
        if (context.options().populate() == Populate.NEVER) {
            stats.recordNotCachedSessionNever();
            return false;
        }
        return true;
    }

    /**
     * Whether to write the page of a read in {@code context}; {@code wouldEvict}: whether caching it now would push
     * another page out. A query whose session set {@code cache_populate=ALWAYS} skips admission, not the rate limit.
     */
    boolean admits(PageId pageId, int frameLength, boolean wouldEvict, CacheReadContext context)
    {
        boolean always = context.options().populate() == Populate.ALWAYS;
        // admission guards eviction only (as in W-TinyLFU): while there is room every page is welcome
        if (admission.isPresent() && wouldEvict && !always && !admission.get().admits(pageId.getFileId(), pageId.getPageIndex())) {
            stats.recordAdmissionRejection();
            return false;
        }
        if (writeRateLimiter.isPresent() && !writeRateLimiter.get().tryAcquire(frameLength)) {
            stats.recordRateLimitRejection();
            return false;
        }
        return true;
    }
}
