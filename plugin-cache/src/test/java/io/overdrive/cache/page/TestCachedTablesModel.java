package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;
import io.airlift.units.DataSize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Model-based randomized test of what the cache reports per table ({@code system.cached_tables}): after every random
 * operation (whole and partial page writes under eviction pressure, reads, deletes, expiries, flushes by path and of
 * everything, files that change), the files, pages and bytes reported for each table must be exactly what the cache
 * managers' own page metadata holds for that table's files, and its reads exactly those served from its pages. Tables
 * include names that are not plain words (non-ASCII, a hyphen), a schema's file of no table and files of no table.
 */
class TestCachedTablesModel
{
    // each file belongs to one of these for its whole life; the last is a read outside any table scan
    private static final List<CacheReadContext> TABLES = List.of(
            CacheReadContext.forTable("s", "t1", true),
            CacheReadContext.forTable("s", "t_1", true),
            CacheReadContext.forTable("s2", "événements", true),
            CacheReadContext.forTable("s2", "my-table", true),
            new CacheReadContext(Optional.of("s3"), Optional.empty(), true),
            CacheReadContext.UNKNOWN);

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void tallyMatchesTheCacheMetadata()
            throws Exception
    {
        for (long seed = 1; seed <= 3; seed++) {
            run(seed, 4_000, config(seed, "plain"));
        }
    }

    @Test
    void tallyMatchesTheCacheMetadataWithQuotas()
            throws Exception
    {
        // quota evictions, and no pages of no table (refused under quotas)
        PageCacheStats stats = run(21, 4_000, config(21, "quotas").setTableQuota(DataSize.ofBytes(12 * PAGE_SIZE)).setSchemaQuota(DataSize.ofBytes(20 * PAGE_SIZE)));
        assertThat(stats.getQuotaEvictions()).isPositive();
        assertThat(stats.getNotCachedNoTable()).isPositive();
    }

    @Test
    void tallyMatchesTheCacheMetadataWithAdmission()
            throws Exception
    {
        PageCacheStats stats = run(31, 4_000, config(31, "admission").setAdmissionEnabled(true));
        assertThat(stats.getAdmissionRejections()).isPositive();
    }

    private PageCacheConfig config(long seed, String name)
    {
        return TestingPages.config(30 * PAGE_SIZE, first.resolve(name + "-" + seed), second.resolve(name + "-" + seed));
    }

    private record Expected(Set<String> files, long pages, long bytes) {}

    private static PageCacheStats run(long seed, int operations, PageCacheConfig config)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        Map<String, Integer> versions = new HashMap<>();
        Set<String> fileIdsWritten = new HashSet<>();
        // reads served per table (index into TABLES) since the start
        long[] hits = new long[TABLES.size()];
        long[] hitBytes = new long[TABLES.size()];
        long start = System.currentTimeMillis();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            Random random = new Random(seed);
            byte[] target = new byte[PAGE_SIZE];
            for (int operation = 0; operation < operations; operation++) {
                int file = random.nextInt(24);
                int table = file % TABLES.size();
                String fileId = "file-" + file + "@" + versions.getOrDefault("file-" + file, 0);
                String path = "/warehouse/" + table + "/file-" + file;
                PageId pageId = new PageId(fileId, random.nextInt(8));
                int length = TestingPages.length(pageId);
                int choice = random.nextInt(100);
                if (choice < 40) {
                    cache.write(path, pageId, ByteBuffer.wrap(TestingPages.content(pageId, length)), TABLES.get(table));
                    fileIdsWritten.add(fileId);
                }
                else if (choice < 50) {
                    int from = random.nextInt(length);
                    int to = from + 1 + random.nextInt(length - from);
                    ByteBuffer part = ByteBuffer.wrap(TestingPages.content(pageId, length), from, to - from).slice();
                    cache.writePart(path, pageId, length, from, part, TABLES.get(table));
                    fileIdsWritten.add(fileId);
                }
                else if (choice < 90) {
                    cache.recordAccess(pageId);
                    int read = cache.read(pageId, 0, 1 + random.nextInt(PAGE_SIZE), target, 0);
                    if (read > 0) {
                        hits[table]++;
                        hitBytes[table] += read;
                    }
                }
                else if (choice < 93) {
                    cache.deleteFile(fileId);
                }
                else if (choice < 95) {
                    cache.expire(path);
                }
                else if (choice < 97) {
                    String prefix = "/warehouse/" + table + "/";
                    cache.invalidatePaths(candidate -> candidate.startsWith(prefix));
                }
                else if (choice < 98) {
                    cache.invalidateAll();
                }
                else {
                    // the file changes: a new file id
                    versions.merge("file-" + file, 1, Integer::sum);
                }
                assertAgrees(cache, fileIdsWritten, hits, hitBytes, start, "seed %s, operation %s".formatted(seed, operation));
            }
            assertThat(stats.getHits()).as("the cache must serve some reads, seed %s", seed).isPositive();
            long reported = cache.cachedTables().stream().mapToLong(CachedTableUsage::hits).sum();
            assertThat(reported).as("every hit belongs to a table while its pages are cached, seed %s", seed).isLessThanOrEqualTo(stats.getHits());
            assertThat(cache.cachedTables()).as("seed %s: something is cached at the end", seed).isNotEmpty();
        }
        return stats;
    }

    private static void assertAgrees(LocalPageCache cache, Set<String> fileIds, long[] hits, long[] hitBytes, long start, String context)
    {
        // what the cache managers hold, by the table each file belongs to
        Map<Integer, Expected> expected = new HashMap<>();
        for (String fileId : fileIds) {
            int table = Integer.parseInt(fileId.substring("file-".length(), fileId.indexOf('@'))) % TABLES.size();
            for (PageStoreDirectory directory : cache.directories()) {
                Set<PageInfo> pages = directory.pages(fileId);
                if (pages.isEmpty()) {
                    continue;
                }
                Expected sum = expected.getOrDefault(table, new Expected(new HashSet<>(), 0, 0));
                sum.files().add(fileId);
                expected.put(table, new Expected(sum.files(), sum.pages() + pages.size(), sum.bytes() + pages.stream().mapToLong(PageInfo::getPageSize).sum()));
            }
        }
        List<CachedTableUsage> reported = cache.cachedTables();
        assertThat(reported).as(context).hasSize(expected.size());
        long now = System.currentTimeMillis();
        for (CachedTableUsage usage : reported) {
            int table = indexOf(usage);
            Expected sum = expected.get(table);
            assertThat(sum).as("%s: %s reported but holds no page", context, usage).isNotNull();
            assertThat(usage.files()).as("%s: files of %s", context, usage).isEqualTo(sum.files().size());
            assertThat(usage.pages()).as("%s: pages of %s", context, usage).isEqualTo(sum.pages());
            assertThat(usage.bytes()).as("%s: bytes of %s", context, usage).isEqualTo(sum.bytes());
            assertThat(usage.hits()).as("%s: hits of %s", context, usage).isEqualTo(hits[table]);
            assertThat(usage.hitBytes()).as("%s: hit bytes of %s", context, usage).isEqualTo(hitBytes[table]);
            assertThat(usage.lastAccessMillis()).as("%s: last access of %s", context, usage).isBetween(start, now);
        }
        long cachedBytes = cache.directories().stream().mapToLong(PageStoreDirectory::usedBytes).sum();
        assertThat(reported.stream().mapToLong(CachedTableUsage::bytes).sum()).as("%s: bytes over all tables", context).isEqualTo(cachedBytes);
    }

    private static int indexOf(CachedTableUsage usage)
    {
        for (int i = 0; i < TABLES.size(); i++) {
            CacheReadContext table = TABLES.get(i);
            if (table.schema().equals(usage.schema()) && table.table().equals(usage.table())) {
                return i;
            }
        }
        throw new AssertionError("a table no read was for: " + usage);
    }
}
