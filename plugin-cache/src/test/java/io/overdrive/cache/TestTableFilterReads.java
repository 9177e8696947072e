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
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.catalog.CatalogName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * {@code cache.include-tables} and {@code cache.exclude-tables} at the cache's entry point: an excluded table's file is
 * read from remote storage every time, with no cache lookup and no write, whichever reader the cache uses (shared
 * scans, Trino's own page readers, the dry run); an included table's file is cached as before.
 */
class TestTableFilterReads
{
    private static final int PAGE_SIZE = 4096;
    private static final int FILE_SIZE = 10 * PAGE_SIZE + 123;
    private static final String KEY = "local:///data.bin#1#" + FILE_SIZE;

    private static final CacheReadContext INCLUDED = CacheReadContext.forTable("sales", "orders", true);
    private static final CacheReadContext EXCLUDED = CacheReadContext.forTable("sales", "orders_staging", true);

    @TempDir
    Path directory;

    private byte[] data;
    private TrinoInputFile file;
    private PageCacheStats stats;
    private OverdriveFileSystemCache cache;

    @BeforeEach
    void setUp()
            throws IOException
    {
        data = new byte[FILE_SIZE];
        new Random(11).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        file = new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin"));
        stats = new PageCacheStats();
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        if (cache != null) {
            cache.shutdown();
        }
    }

    // the readers: shared scans, Trino's own page-aligned readers, the dry run
    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers", "dry-run"})
    void excludedTableIsReadFromRemoteStorageEveryTime(String reader)
            throws IOException
    {
        startCache(reader);
        for (int read = 1; read <= 2; read++) {
            assertThat(readInput(EXCLUDED)).isEqualTo(data);
            assertThat(stats.getNotCachedExcludedTable()).isEqualTo(read);
            assertThat(stats.getBytesFromRemote()).as("read %s", read).isEqualTo((long) read * FILE_SIZE);
        }
        assertThat(readStream(EXCLUDED)).isEqualTo(data);
        assertThat(stats.getNotCachedExcludedTable()).as("streams too").isEqualTo(3);
        assertThat(stats.getBytesFromRemote()).isEqualTo(3L * FILE_SIZE);

        // no cache work at all: nothing looked up, written, admitted or counted as a would-be hit
        assertThat(stats.getHits()).isZero();
        assertThat(stats.getMisses()).isZero();
        assertThat(stats.getBytesFromCache()).isZero();
        assertThat(stats.getPagesWritten()).isZero();
        assertThat(stats.getBytesCached()).isZero();
        assertThat(stats.getDryRunWouldBeHits()).isZero();
        assertThat(stats.getNotCachedNotPreferred()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers", "dry-run"})
    void includedTableIsCachedAsBefore(String reader)
            throws IOException
    {
        startCache(reader);
        assertThat(readInput(INCLUDED)).isEqualTo(data);
        long remoteAfterFirst = stats.getBytesFromRemote();
        long cacheAfterFirst = stats.getBytesFromCache();
        assertThat(remoteAfterFirst).isPositive();
        assertThat(readInput(INCLUDED)).isEqualTo(data);
        assertThat(stats.getNotCachedExcludedTable()).isZero();
        if (reader.equals("dry-run")) {
            assertThat(stats.getDryRunWouldBeHits()).isPositive();
            assertThat(stats.getHits()).isZero();
        }
        else {
            assertThat(stats.getHits()).isPositive();
            assertThat(stats.getBytesFromCache() - cacheAfterFirst).as("the second read, from the cache").isEqualTo(FILE_SIZE);
            assertThat(stats.getBytesFromRemote()).as("the first read only").isEqualTo(remoteAfterFirst);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void readOfNoKnownTableBypassesTheCacheOnlyUnderAnIncludeList(String reader)
            throws IOException
    {
        startCache(reader);
        readInput(CacheReadContext.UNKNOWN);
        assertThat(stats.getNotCachedExcludedTable()).as("include list sales.*").isEqualTo(1);
        assertThat(stats.getMisses()).isZero();
    }

    private void startCache(String reader)
    {
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes("64MB")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false)
                .setDryRun(reader.equals("dry-run"))
                .setIncludeTables("sales.*")
                .setExcludeTables("*.*_staging");
        Optional<SharedScanConfig> sharedScans = reader.equals("shared-scans") ? Optional.of(new SharedScanConfig().setReadAhead(0)) : Optional.empty();
        HedgedReads noHedging = new HedgedReads(new CatalogName("lake"), new HedgedReadConfig(), new FileSystemConfig(), new HedgedReadStats());
        PageCache pageCache = PageCache.create("lake", config, stats);
        cache = new OverdriveFileSystemCache(OpenTelemetry.noop().getTracer("test"), "lake", pageCache, TableFilter.create(config), stats, noHedging, sharedScans, new SharedScanStats());
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
