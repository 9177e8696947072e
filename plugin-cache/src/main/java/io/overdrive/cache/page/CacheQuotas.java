package io.overdrive.cache.page;

import alluxio.client.quota.CacheScope;
import com.google.common.util.concurrent.Striped;
import io.airlift.units.DataSize;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

import static java.util.Objects.requireNonNull;

/**
 * {@code cache.quota.schema-max-size} and {@code cache.quota.table-max-size} over the whole cache of a catalog on a
 * worker, all directories together. Alluxio keeps a quota per cache manager, that is per directory, which would let a
 * table use the quota once per directory: here the usage of a scope is summed over the directories, and room is made
 * by evicting the scope's own pages (by the eviction policy) from the directory that holds most of them.
 * <p>
 * Writers of one scope check and evict one at a time; the pages being written at that moment may take the scope past
 * its quota by at most one page per writing thread, until the next write of the scope.
 */
final class CacheQuotas
{
    private static final int MAX_EVICTIONS_PER_WRITE = 1024;

    private final Optional<Long> schemaQuota;
    private final Optional<Long> tableQuota;
    private final PageCacheStats stats;
    private final Striped<Lock> locks = Striped.lock(64);

    CacheQuotas(Optional<DataSize> schemaQuota, Optional<DataSize> tableQuota, PageCacheStats stats)
    {
        this.schemaQuota = schemaQuota.map(DataSize::toBytes);
        this.tableQuota = tableQuota.map(DataSize::toBytes);
        this.stats = requireNonNull(stats, "stats is null");
    }

    boolean isEnabled()
    {
        return schemaQuota.isPresent() || tableQuota.isPresent();
    }

    /**
     * Whether pages of a read that belongs to no known table may be cached: only without quotas, since such pages could
     * not be held to one (a file opened outside a table scan, such as a delete delta read lazily).
     */
    boolean admitsUnscoped()
    {
        return !isEnabled();
    }

    /**
     * Whether a page of {@code bytes} restored after a restart fits within the quotas of its scope as they are now,
     * all directories together; restored pages never evict others. A page of no table fits only without quotas.
     */
    boolean fits(CacheScope scope, long bytes, List<PageStoreDirectory> directories)
    {
        if (!isEnabled()) {
            return true;
        }
        if (scope.equals(CacheScope.GLOBAL)) {
            return admitsUnscoped();
        }
        for (CacheScope level = scope; level != null && !level.equals(CacheScope.GLOBAL); level = level.parent()) {
            Optional<Long> quota = level.level() == CacheScope.Level.TABLE ? tableQuota : schemaQuota;
            if (quota.isEmpty()) {
                continue;
            }
            CacheScope counted = level;
            long used = directories.stream().filter(PageStoreDirectory::isEnabled).mapToLong(directory -> directory.scopeBytes(counted)).sum();
            if (used + bytes > quota.get()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Evicts pages of the scope (table first, then its schema) until {@code bytes} more fit within each quota.
     * Returns false when the page can never fit (it is larger than a quota): it is then not cached.
     */
    boolean makeRoom(CacheScope scope, long bytes, List<PageStoreDirectory> directories)
    {
        for (CacheScope level = scope; level != null && !level.equals(CacheScope.GLOBAL); level = level.parent()) {
            Optional<Long> quota = level.level() == CacheScope.Level.TABLE ? tableQuota : schemaQuota;
            if (quota.isEmpty()) {
                continue;
            }
            if (bytes > quota.get()) {
                return false;
            }
            makeRoom(level, quota.get(), bytes, directories);
        }
        return true;
    }

    private void makeRoom(CacheScope scope, long quota, long bytes, List<PageStoreDirectory> directories)
    {
        Lock lock = locks.get(scope);
        lock.lock();
        try {
            List<PageStoreDirectory> enabled = directories.stream().filter(PageStoreDirectory::isEnabled).toList();
            long used = enabled.stream().mapToLong(directory -> directory.scopeBytes(scope)).sum();
            for (int evictions = 0; used + bytes > quota && evictions < MAX_EVICTIONS_PER_WRITE; evictions++) {
                Optional<PageStoreDirectory> fullest = enabled.stream().max(Comparator.comparingLong(directory -> directory.scopeBytes(scope)));
                long freed = fullest.map(directory -> directory.evictFromScope(scope)).orElse(0L);
                if (freed == 0) {
                    return;
                }
                used -= freed;
                stats.recordQuotaEviction();
            }
        }
        finally {
            lock.unlock();
        }
    }
}
