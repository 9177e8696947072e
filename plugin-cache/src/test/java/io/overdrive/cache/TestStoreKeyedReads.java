package io.overdrive.cache;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
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
import io.trino.filesystem.cache.DefaultCacheKeyProvider;
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
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page cache keys a file by its store as well as by Trino's key: files of the same relative path in two buckets are
 * cached apart; and an object whose modification time is too recent to tell a same-second rewrite apart is read from
 * storage, neither looked up nor cached, until it is {@code cache.min-file-age} old.
 */
class TestStoreKeyedReads
{
    private static final int PAGE_SIZE = 4096;
    private static final int FILE_SIZE = 3 * PAGE_SIZE + 17;
    private static final CacheReadContext TABLE = CacheReadContext.forTable("sales", "orders", true);
    // an object store's modification time: whole seconds
    private static final Instant MODIFIED = Instant.parse("2026-12-06T10:00:00Z");

    @TempDir
    Path directory;

    private final PageCacheStats stats = new PageCacheStats();
    private final AtomicReference<Instant> now = new AtomicReference<>(MODIFIED.plusSeconds(3600));
    private OverdriveFileSystemCache cache;

    @BeforeEach
    void setUp()
            throws IOException
    {
        Files.createDirectories(directory.resolve("storage/a"));
        Files.createDirectories(directory.resolve("storage/b"));
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
    void theSamePathInTwoBucketsIsCachedApart(String reader)
            throws IOException
    {
        startCache(reader);
        byte[] inA = write("a", (byte) 'a');
        byte[] inB = write("b", (byte) 'b');
        TrinoInputFile fileA = object("a");
        TrinoInputFile fileB = object("b");
        // Trino's key names the path alone: the two files' keys are equal
        assertThat(key(fileA)).isEqualTo(key(fileB));

        for (int pass = 1; pass <= 2; pass++) {
            assertThat(read(fileA)).as("bucket a, pass %s", pass).isEqualTo(inA);
            assertThat(read(fileB)).as("bucket b, pass %s", pass).isEqualTo(inB);
            assertThat(stream(fileB)).as("bucket b as a stream, pass %s", pass).isEqualTo(inB);
            assertThat(stream(fileA)).as("bucket a as a stream, pass %s", pass).isEqualTo(inA);
        }
        assertThat(stats.getHits()).as("the second pass, from the cache").isPositive();
        assertThat(stats.getNotCachedRecentlyModified()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void anObjectRewrittenWithinItsSecondIsNeverServedStale(String reader)
            throws IOException
    {
        startCache(reader);
        // read half a second after the write: the object may still be rewritten within its second
        now.set(MODIFIED.plusMillis(500));
        byte[] version1 = write("a", (byte) '1');
        assertThat(read(object("a"))).isEqualTo(version1);
        assertThat(stats.getNotCachedRecentlyModified()).isEqualTo(1);

        // rewritten within the same second at the same length: the same key
        byte[] version2 = write("a", (byte) '2');
        now.set(MODIFIED.plusMillis(900));
        assertThat(read(object("a"))).isEqualTo(version2);
        assertThat(stream(object("a"))).isEqualTo(version2);
        assertThat(stats.getNotCachedRecentlyModified()).isEqualTo(3);
        assertThat(stats.getHits()).as("nothing looked up").isZero();
        assertThat(stats.getMisses()).isZero();
        assertThat(stats.getBytesCached()).as("nothing cached").isZero();

        // once the key's time is cache.min-file-age old, no rewrite can keep the key: cached, then served from the cache
        now.set(MODIFIED.plusSeconds(5));
        assertThat(read(object("a"))).isEqualTo(version2);
        long remote = stats.getBytesFromRemote();
        assertThat(read(object("a"))).isEqualTo(version2);
        assertThat(stats.getBytesFromRemote()).as("the warm read sent nothing to storage").isEqualTo(remote);
        assertThat(stats.getHits()).isPositive();
        assertThat(stats.getNotCachedRecentlyModified()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-scans", "trino-readers"})
    void aClockBehindTheStoresHoldsTheObjectBackToo(String reader)
            throws IOException
    {
        startCache(reader);
        now.set(MODIFIED.minusSeconds(2));
        byte[] content = write("a", (byte) 'x');
        assertThat(read(object("a"))).isEqualTo(content);
        assertThat(stats.getNotCachedRecentlyModified()).isEqualTo(1);
        assertThat(stats.getBytesCached()).isZero();
    }

    private void startCache(String reader)
    {
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes("64MB")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false);
        assertThat(config.getMinFileAge()).isEqualTo(new Duration(5, SECONDS));
        Optional<SharedScanConfig> sharedScans = reader.equals("shared-scans") ? Optional.of(new SharedScanConfig().setReadAhead(0)) : Optional.empty();
        HedgedReads noHedging = new HedgedReads(new CatalogName("lake"), new HedgedReadConfig().setThreadPoolSize(0), new FileSystemConfig(), new HedgedReadStats());
        PageCache pageCache = PageCache.create("lake", config, stats);
        InstantSource clock = now::get;
        cache = new OverdriveFileSystemCache(OpenTelemetry.noop().getTracer("test"), "lake", pageCache, TableFilter.create(config), stats, noHedging, sharedScans, new SharedScanStats(), config.getMinFileAge(), clock);
    }

    private byte[] write(String bucket, byte fill)
            throws IOException
    {
        byte[] content = new byte[FILE_SIZE];
        Arrays.fill(content, fill);
        Files.write(directory.resolve("storage").resolve(bucket).resolve("part-0.orc"), content);
        return content;
    }

    // the object s3://<bucket>/part-0.orc, its bytes in a local directory per bucket, its status as S3 lists it
    private TrinoInputFile object(String bucket)
    {
        TrinoInputFile local = new LocalFileSystem(directory.resolve("storage").resolve(bucket))
                .newInputFile(Location.of("local:///part-0.orc"), FILE_SIZE, MODIFIED);
        return new RenamedInputFile(Location.of("s3://" + bucket + "/part-0.orc"), local);
    }

    private static String key(TrinoInputFile file)
            throws IOException
    {
        return new DefaultCacheKeyProvider().getCacheKey(file).orElseThrow();
    }

    private byte[] read(TrinoInputFile file)
            throws IOException
    {
        byte[] read = new byte[FILE_SIZE];
        try (CacheReadContext.Scope _ = CacheReadContext.enter(TABLE); TrinoInput input = cache.cacheInput(file, key(file))) {
            for (int offset = 0; offset < FILE_SIZE; offset += PAGE_SIZE) {
                input.readFully(offset, read, offset, Math.min(PAGE_SIZE, FILE_SIZE - offset));
            }
        }
        return read;
    }

    private byte[] stream(TrinoInputFile file)
            throws IOException
    {
        try (CacheReadContext.Scope _ = CacheReadContext.enter(TABLE); TrinoInputStream stream = cache.cacheStream(file, key(file))) {
            return stream.readAllBytes();
        }
    }
}
