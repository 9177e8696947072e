package io.overdrive.cache.page;

import alluxio.client.file.cache.PageInfo;
import alluxio.client.quota.CacheScope;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static java.util.Objects.requireNonNull;

/**
 * What one cache directory holds of each scope (a table, a schema, or no table): its files, pages and bytes, kept as
 * pages are added to and removed from the directory's page metadata, and the reads it served and its last access. The
 * metadata calls {@link #added}, {@link #removed} and {@link #cleared} under its write lock, so that the tally always
 * agrees with it; {@link #snapshot} is taken under its read lock. Reads count from the start of the process: a scope
 * whose pages are all gone keeps its reads (one small entry per table ever cached, as {@link TableScopes} keeps).
 */
final class TableTally
{
    private final Map<CacheScope, Entry> entries = new ConcurrentHashMap<>();

    /** A page was added to the metadata (written, or restored from disk). */
    void added(PageInfo page)
    {
        Entry entry = entries.computeIfAbsent(scopeOf(page), _ -> new Entry());
        entry.pages++;
        entry.bytes += page.getPageSize();
        entry.pagesByFile.merge(page.getPageId().getFileId(), 1, Integer::sum);
        entry.lastAccessMillis.accumulateAndGet(page.getCreatedTimestamp(), Math::max);
    }

    /** A page was removed from the metadata (evicted, deleted, flushed, damaged). */
    void removed(PageInfo page)
    {
        Entry entry = entries.get(scopeOf(page));
        if (entry == null) {
            return;
        }
        entry.pages--;
        entry.bytes -= page.getPageSize();
        entry.pagesByFile.computeIfPresent(page.getPageId().getFileId(), (_, pages) -> pages == 1 ? null : pages - 1);
    }

    /** The metadata was emptied. */
    void cleared()
    {
        entries.values().forEach(entry -> {
            entry.pages = 0;
            entry.bytes = 0;
            entry.pagesByFile.clear();
        });
    }

    /** A read of {@code bytes} was served from a page of the scope (any thread, no lock). */
    void recordHit(CacheScope scope, long bytes, long nowMillis)
    {
        Entry entry = entries.get(scope == null ? CacheScope.GLOBAL : scope);
        if (entry != null) {
            entry.hits.increment();
            entry.hitBytes.add(bytes);
            // most hits of a busy table fall in the millisecond of the previous one: no write then
            if (nowMillis > entry.lastAccessMillis.get()) {
                entry.lastAccessMillis.accumulateAndGet(nowMillis, Math::max);
            }
        }
    }

    /** A scope's share of the directory, as of the moment it was taken. */
    record ScopeUsage(Map<String, Integer> pagesByFile, long pages, long bytes, long hits, long hitBytes, long lastAccessMillis) {}

    /** Every scope the directory has held a page of (some may hold none now); to be taken under the metadata's read lock. */
    Map<CacheScope, ScopeUsage> snapshot()
    {
        Map<CacheScope, ScopeUsage> snapshot = new HashMap<>();
        entries.forEach((scope, entry) -> snapshot.put(scope, new ScopeUsage(
                Map.copyOf(entry.pagesByFile),
                entry.pages,
                entry.bytes,
                entry.hits.sum(),
                entry.hitBytes.sum(),
                entry.lastAccessMillis.get())));
        return snapshot;
    }

    private static CacheScope scopeOf(PageInfo page)
    {
        CacheScope scope = requireNonNull(page, "page is null").getScope();
        return scope == null ? CacheScope.GLOBAL : scope;
    }

    private static final class Entry
    {
        // guarded by the metadata's write lock
        private long pages;
        private long bytes;
        private final Map<String, Integer> pagesByFile = new HashMap<>();
        // any thread
        private final LongAdder hits = new LongAdder();
        private final LongAdder hitBytes = new LongAdder();
        private final AtomicLong lastAccessMillis = new AtomicLong();
    }
}
