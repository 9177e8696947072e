package io.overdrive.cache;

import io.airlift.units.DataSize;
import io.opentelemetry.api.OpenTelemetry;
import io.overdrive.cache.hedge.HedgedReadConfig;
import io.overdrive.cache.hedge.HedgedReadStats;
import io.overdrive.cache.hedge.HedgedReads;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.page.TableFilter;
import io.overdrive.cache.scan.SharedScanConfig;
import io.overdrive.cache.scan.SharedScanStats;
import io.overdrive.cache.session.QueryReadStats;
import io.overdrive.cache.session.ReadOptions;
import io.overdrive.cache.session.ReadOptions.Populate;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.catalog.CatalogName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a query's session properties change at the cache's entry point, for each reader the cache uses (shared scans,
 * Trino's own page readers): {@code cache_enabled=false} reads storage only, {@code cache_populate=NEVER} reads cached
 * pages and writes none, {@code ALWAYS} writes past the admission rule, {@code shared_scans_enabled=false} leaves
 * shared scans out. The bytes read are always the file's.
 */
class TestSessionReadOptions
{
    private static final int PAGE_SIZE = 4096;
    private static final int FILE_SIZE = 10 * PAGE_SIZE + 123;
    private static final String KEY = "local:///data.bin#1#" + FILE_SIZE;

    private static final CacheReadContext DEFAULT = CacheReadContext.forTable("sales", "orders", true);

    @TempDir
    Path directory;

    private byte[] data;
    private TrinoInputFile file;
    private PageCacheStats stats;
    private SharedScanStats sharedScanStats;
    private OverdriveFileSystemCache cache;

    @BeforeEach
    void setUp()
            throws IOException
    {
        data = new byte[FILE_SIZE];
        new Random(17).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        file = new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin"));
        stats = new PageCacheStats();
        sharedScanStats = new SharedScanStats();
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        if (cache != null) {
            cache.shutdown();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void bypassReadsStorageOnlyAndLeavesTheCacheAsItWas(String reader)
            throws IOException
    {
        startCache(reader, 64 * 1024 * 1024, false);
        CacheReadContext bypass = DEFAULT.withOptions(new ReadOptions(false, Populate.AUTO, true, true));
        assertThat(readInput(bypass)).isEqualTo(data);
        assertThat(stats.getNotCachedSessionBypass()).isEqualTo(1);
        assertThat(stats.getBytesFromRemote()).isEqualTo(FILE_SIZE);
        assertThat(stats.getMisses()).as("no lookup").isZero();
        assertThat(stats.getPagesWritten()).as("no write").isZero();

        // a cached file is not read from the cache either, and stays cached
        assertThat(readInput(DEFAULT)).isEqualTo(data);
        long cached = stats.getBytesCached();
        assertThat(cached).isPositive();
        long fromCache = stats.getBytesFromCache();
        assertThat(readStream(bypass)).isEqualTo(data);
        assertThat(stats.getNotCachedSessionBypass()).isEqualTo(2);
        assertThat(stats.getBytesFromCache()).isEqualTo(fromCache);
        assertThat(stats.getBytesFromRemote()).isEqualTo(3L * FILE_SIZE);
        assertThat(stats.getBytesCached()).isEqualTo(cached);
        assertThat(readInput(DEFAULT)).isEqualTo(data);
        assertThat(stats.getBytesFromCache() - fromCache).as("still cached").isEqualTo(FILE_SIZE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void populateNeverReadsCachedPagesAndWritesNone(String reader)
            throws IOException
    {
        startCache(reader, 64 * 1024 * 1024, false);
        CacheReadContext never = DEFAULT.withOptions(new ReadOptions(true, Populate.NEVER, true, true));
        assertThat(readInput(never)).isEqualTo(data);
        assertThat(stats.getPagesWritten()).isZero();
        assertThat(stats.getBytesCached()).isZero();
        assertThat(stats.getNotCachedSessionNever()).isPositive();
        assertThat(stats.getBytesFromRemote()).isEqualTo(FILE_SIZE);

        assertThat(readInput(DEFAULT)).as("an ordinary query fills the cache").isEqualTo(data);
        long written = stats.getPagesWritten();
        assertThat(written).isPositive();
        long remote = stats.getBytesFromRemote();
        long fromCache = stats.getBytesFromCache();
        assertThat(readStream(never)).isEqualTo(data);
        assertThat(stats.getBytesFromCache() - fromCache).as("hits are served").isEqualTo(FILE_SIZE);
        assertThat(stats.getBytesFromRemote()).isEqualTo(remote);
        assertThat(stats.getPagesWritten()).isEqualTo(written);
    }

    // admission (TinyLFU) turns away a one-off scan of a full cache; a query that asks for ALWAYS is written
    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void populateAlwaysWritesPastAdmission(String reader)
            throws IOException
    {
        // room for 4 of the file's 11 pages (each with its frame), admission on: the rest would evict
        startCache(reader, 4 * PAGE_SIZE + 3000, true);
        assertThat(readInput(DEFAULT)).isEqualTo(data);
        long rejected = stats.getAdmissionRejections();
        assertThat(rejected).as("AUTO: admission turned pages away").isPositive();
        long written = stats.getPagesWritten();

        CacheReadContext always = DEFAULT.withOptions(new ReadOptions(true, Populate.ALWAYS, true, true));
        assertThat(readInput(always)).isEqualTo(data);
        assertThat(stats.getAdmissionRejections()).as("ALWAYS: no admission").isEqualTo(rejected);
        assertThat(stats.getPagesWritten()).isGreaterThan(written);
    }

    @Test
    void sharedScansOffReadsThroughTrinosReaders()
            throws IOException
    {
        startCache("shared-scans", 64 * 1024 * 1024, false);
        CacheReadContext unshared = DEFAULT.withOptions(new ReadOptions(true, Populate.AUTO, true, false));
        assertThat(readInput(unshared)).isEqualTo(data);
        assertThat(sharedScanStats.getFetches()).as("no shared fetch").isZero();
        assertThat(stats.getPagesWritten()).as("still cached").isPositive();
        assertThat(readInput(DEFAULT)).isEqualTo(data);
        assertThat(stats.getBytesFromCache()).isEqualTo(FILE_SIZE);
        assertThat(sharedScanStats.getFetches()).as("all hits: nothing to fetch").isZero();

        // and a shared scan of an uncached file does fetch (the counter counts)
        cache.pageCache().invalidateAll();
        assertThat(readInput(DEFAULT)).isEqualTo(data);
        assertThat(sharedScanStats.getFetches()).isPositive();
    }

    // what a page source reports as its metrics: its own reads, from storage, then from the cache
    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void readsAreCountedForTheirPageSource(String reader)
            throws IOException
    {
        startCache(reader, 64 * 1024 * 1024, false);
        QueryReadStats cold = new QueryReadStats();
        assertThat(readInput(withStats(DEFAULT, cold))).isEqualTo(data);
        assertThat(cold.bytesFromStorage()).isEqualTo(FILE_SIZE);
        assertThat(cold.bytesFromCache()).isZero();

        QueryReadStats warm = new QueryReadStats();
        assertThat(readStream(withStats(DEFAULT, warm))).isEqualTo(data);
        assertThat(warm.bytesFromCache()).isEqualTo(FILE_SIZE);
        assertThat(warm.bytesFromStorage()).isZero();
        assertThat(cold.bytesFromCache()).as("the other page source's").isZero();

        QueryReadStats bypass = new QueryReadStats();
        assertThat(readInput(withStats(DEFAULT.withOptions(new ReadOptions(false, Populate.AUTO, true, true)), bypass))).isEqualTo(data);
        assertThat(bypass.bytesFromStorage()).isEqualTo(FILE_SIZE);
        assertThat(bypass.bytesFromCache()).isZero();
    }

    private static CacheReadContext withStats(CacheReadContext context, QueryReadStats readStats)
    {
        return new CacheReadContext(context.schema(), context.table(), context.cacheable(), context.options(), readStats);
    }

    private void startCache(String reader, long maxSize, boolean admission)
    {
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes(DataSize.ofBytes(maxSize).toString())
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(admission)
                // pages on disk once written, as the counts of this test expect
                .setAsyncWriteEnabled(false);
        Optional<SharedScanConfig> sharedScans = reader.equals("shared-scans") ? Optional.of(new SharedScanConfig().setReadAhead(0)) : Optional.empty();
        HedgedReads hedging = new HedgedReads(new CatalogName("lake"), new HedgedReadConfig(), new FileSystemConfig(), new HedgedReadStats());
        PageCache pageCache = PageCache.create("lake", config, stats);
        cache = new OverdriveFileSystemCache(OpenTelemetry.noop().getTracer("test"), "lake", pageCache, TableFilter.create(config), stats, hedging, sharedScans, sharedScanStats);
    }

    // page by page, as a reader reads column chunks
    private byte[] readInput(CacheReadContext context)
            throws IOException
    {
        byte[] read = new byte[FILE_SIZE];
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context); TrinoInput input = cache.cacheInput(file, KEY)) {
            for (int offset = 0; offset < FILE_SIZE; offset += PAGE_SIZE) {
                input.readFully(offset, read, offset, Math.min(PAGE_SIZE, FILE_SIZE - offset));
            }
        }
        return read;
    }

    private byte[] readStream(CacheReadContext context)
            throws IOException
    {
        try (CacheReadContext.Scope _ = CacheReadContext.enter(context); TrinoInputStream stream = cache.cacheStream(file, KEY)) {
            return stream.readAllBytes();
        }
    }
}
