package io.overdrive.cache.coordinator;

import io.airlift.units.DataSize;
import io.overdrive.cache.RenamedInputFile;
import io.overdrive.cache.page.PageCacheConfig;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.cache.CacheFileSystem;
import io.trino.filesystem.cache.DefaultCacheKeyProvider;
import io.trino.filesystem.memory.MemoryFileSystem;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCoordinatorFileCache
{
    private static final Location TABLE = Location.of("memory:///warehouse/tpch/orders");
    private static final Location SCHEMA_FILE = TABLE.appendPath(".trinoSchema");
    private static final Location PERMISSIONS_FILE = TABLE.appendPath(".trinoPermissions").appendPath("user_admin");

    private final MemoryFileSystem storage = new MemoryFileSystem();
    private final CoordinatorCacheStats stats = new CoordinatorCacheStats();

    @Test
    void aFileIsReadFromStorageOnceThenFromMemory()
            throws IOException
    {
        write(SCHEMA_FILE, "{\"columns\":[\"orderkey\"]}");
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        CountingInputFile file = new CountingInputFile(storage.newInputFile(SCHEMA_FILE));

        for (int read = 0; read < 3; read++) {
            try (InputStream stream = cache.cacheStream(file, key(file))) {
                assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("{\"columns\":[\"orderkey\"]}");
            }
        }
        assertThat(file.opens.get()).as("storage opened by the first read only").isEqualTo(1);
        assertThat(stats.getMisses()).isEqualTo(1);
        assertThat(stats.getHits()).isEqualTo(2);
        assertThat(stats.getBytesFromStorage()).isEqualTo(24);
        assertThat(stats.getBytesFromMemory()).isEqualTo(3 * 24);
        assertThat(stats.getEntries()).isEqualTo(1);
        assertThat(stats.getBytesCached()).isGreaterThanOrEqualTo(24);
    }

    @Test
    void aChangedFileIsNeverServedItsOldContent()
            throws IOException
    {
        TrinoFileSystem fileSystem = cachedFileSystem(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "version 1");
        assertThat(read(fileSystem, SCHEMA_FILE)).isEqualTo("version 1");

        // another writer (another catalog, another process) replaces the file behind the cache's back: no expire()
        write(SCHEMA_FILE, "version 2 is longer");
        assertThat(read(fileSystem, SCHEMA_FILE)).isEqualTo("version 2 is longer");
        // same length: the modification time tells the versions apart
        sleepPastModificationTime();
        write(SCHEMA_FILE, "version 3 is longer");
        assertThat(read(fileSystem, SCHEMA_FILE)).isEqualTo("version 3 is longer");
        assertThat(read(fileSystem, SCHEMA_FILE)).isEqualTo("version 3 is longer");
        assertThat(stats.getMisses()).isEqualTo(3);
        assertThat(stats.getHits()).isEqualTo(1);
    }

    @Test
    void writesRenamesAndDeletesThroughTheCatalogDropTheEntries()
            throws IOException
    {
        TrinoFileSystem fileSystem = cachedFileSystem(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "schema");
        write(PERMISSIONS_FILE, "permissions");
        read(fileSystem, SCHEMA_FILE);
        read(fileSystem, PERMISSIONS_FILE);
        assertThat(stats.getEntries()).isEqualTo(2);

        // the file metastore rewrites a table's schema file in place
        sleepPastModificationTime();
        fileSystem.newOutputFile(SCHEMA_FILE).createOrOverwrite("schema v2".getBytes(UTF_8));
        assertThat(stats.getExpirations()).isEqualTo(1);
        assertThat(stats.getEntries()).isEqualTo(1);
        assertThat(read(fileSystem, SCHEMA_FILE)).isEqualTo("schema v2");

        // DROP TABLE deletes the table's metadata directory: every file below it goes
        fileSystem.deleteDirectory(TABLE);
        assertThat(stats.getEntries()).isZero();
        assertThat(stats.getExpirations()).isEqualTo(3);
        assertThatThrownBy(() -> read(fileSystem, SCHEMA_FILE)).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void filesOverTheMaxFileSizeAreReadFromStorageEveryTime()
            throws IOException
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig().setMaxFileSize(DataSize.of(1, KILOBYTE)));
        write(SCHEMA_FILE, "x".repeat(1025));
        CountingInputFile file = new CountingInputFile(storage.newInputFile(SCHEMA_FILE));
        for (int read = 0; read < 2; read++) {
            try (InputStream stream = cache.cacheStream(file, key(file))) {
                assertThat(stream.readAllBytes()).hasSize(1025);
            }
            try (TrinoInput input = cache.cacheInput(file, key(file))) {
                assertThat(input.readTail(10).toStringUtf8()).isEqualTo("x".repeat(10));
            }
        }
        assertThat(file.opens.get()).isEqualTo(4);
        assertThat(stats.getFilesTooLarge()).isEqualTo(4);
        assertThat(stats.getEntries()).isZero();
    }

    @Test
    void theTotalStaysWithinTheMaxSize()
            throws IOException
    {
        DataSize maxSize = DataSize.of(16, KILOBYTE);
        TrinoFileSystem fileSystem = cachedFileSystem(new CoordinatorCacheConfig().setMaxSize(maxSize).setMaxFileSize(DataSize.of(4, KILOBYTE)));
        List<Location> files = IntStream.range(0, 20).mapToObj(index -> TABLE.appendPath("partition-" + index).appendPath(".trinoSchema")).toList();
        for (Location file : files) {
            write(file, "p".repeat(3000));
            assertThat(read(fileSystem, file)).hasSize(3000);
            assertThat(stats.getBytesCached()).isLessThanOrEqualTo(maxSize.toBytes());
        }
        assertThat(stats.getEntries()).isBetween(1L, 5L);
        assertThat(stats.getEvictions()).isEqualTo(20 - stats.getEntries());
        // the most recent file is still there, and whatever was evicted reads correctly from storage again
        long misses = stats.getMisses();
        assertThat(read(fileSystem, files.getLast())).hasSize(3000);
        assertThat(stats.getMisses()).isEqualTo(misses);
        assertThat(read(fileSystem, files.getFirst())).isEqualTo("p".repeat(3000));
        assertThat(stats.getMisses()).isEqualTo(misses + 1);
    }

    @Test
    void aFileWhoseLengthIsNotItsKeysIsNotKept()
            throws IOException
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "the file as it is now, longer than its status said");
        // the status (and so the key) was taken before the file was replaced with a longer one
        TrinoInputFile stale = storage.newInputFile(SCHEMA_FILE, 9, Instant.ofEpochMilli(1));
        String key = SCHEMA_FILE.path() + "#1#9";
        try (InputStream stream = cache.cacheStream(stale, key)) {
            assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("the file as it is now, longer than its status said");
        }
        assertThat(cache.isCached(SCHEMA_FILE, key)).isFalse();
        assertThat(stats.getChangedWhileLoading()).isEqualTo(1);

        // and shorter
        TrinoInputFile shorter = storage.newInputFile(SCHEMA_FILE, 100, Instant.ofEpochMilli(2));
        try (TrinoInput input = cache.cacheInput(shorter, SCHEMA_FILE.path() + "#2#100")) {
            assertThat(input.readTail(5).toStringUtf8()).isEqualTo(" said");
        }
        assertThat(cache.isCached(SCHEMA_FILE, SCHEMA_FILE.path() + "#2#100")).isFalse();
        assertThat(stats.getChangedWhileLoading()).isEqualTo(2);
        assertThat(stats.getEntries()).isZero();
    }

    @Test
    void theSamePathInTwoBucketsIsKeptApart()
            throws IOException
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        Location inA = Location.of("memory:///a/t/.trinoSchema");
        Location inB = Location.of("memory:///b/t/.trinoSchema");
        write(inA, "schema a");
        write(inB, "schema b");
        // an object store's modification time, long past
        Instant modified = Instant.parse("2026-01-01T10:00:00Z");
        TrinoInputFile fileA = new RenamedInputFile(Location.of("s3://a/t/.trinoSchema"), storage.newInputFile(inA, 8, modified));
        TrinoInputFile fileB = new RenamedInputFile(Location.of("s3://b/t/.trinoSchema"), storage.newInputFile(inB, 8, modified));
        assertThat(key(fileA)).as("Trino's key names the path alone").isEqualTo(key(fileB));
        for (int pass = 0; pass < 2; pass++) {
            try (InputStream stream = cache.cacheStream(fileA, key(fileA))) {
                assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("schema a");
            }
            try (InputStream stream = cache.cacheStream(fileB, key(fileB))) {
                assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("schema b");
            }
        }
        assertThat(stats.getMisses()).isEqualTo(2);
        assertThat(stats.getHits()).isEqualTo(2);

        // an expire of one bucket's file leaves the other's
        cache.expire(Location.of("s3://a/t"));
        assertThat(cache.isCached(fileA.location(), key(fileA))).isFalse();
        assertThat(cache.isCached(fileB.location(), key(fileB))).isTrue();
    }

    @Test
    void anObjectModifiedWithinMinFileAgeIsReadFromStorageAndNotKept()
            throws IOException
    {
        Instant modified = Instant.parse("2026-12-06T10:00:00Z");
        AtomicReference<Instant> now = new AtomicReference<>(modified.plusMillis(300));
        CoordinatorFileCache cache = new CoordinatorFileCache(new CoordinatorCacheConfig(), new PageCacheConfig().getMinFileAge(), now::get, stats);
        write(SCHEMA_FILE, "version 1");
        TrinoInputFile object = new RenamedInputFile(Location.of("s3://bucket/t/.trinoSchema"), storage.newInputFile(SCHEMA_FILE, 9, modified));
        try (InputStream stream = cache.cacheStream(object, key(object))) {
            assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("version 1");
        }
        // rewritten within the same second at the same length: the key is the same
        write(SCHEMA_FILE, "version 2");
        try (InputStream stream = cache.cacheStream(object, key(object))) {
            assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("version 2");
        }
        assertThat(stats.getRecentlyModified()).isEqualTo(2);
        assertThat(stats.getEntries()).isZero();

        now.set(modified.plusSeconds(5));
        for (int read = 0; read < 2; read++) {
            try (InputStream stream = cache.cacheStream(object, key(object))) {
                assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("version 2");
            }
        }
        assertThat(stats.getMisses()).isEqualTo(1);
        assertThat(stats.getHits()).isEqualTo(1);
    }

    @Test
    void anExpireDuringALoadKeepsTheLoadedBytesOut()
            throws Exception
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "version 1");
        // a rewrite within the modification time's resolution and of the same length keeps the key: only expire() can
        // tell the versions apart
        String key = key(storage.newInputFile(SCHEMA_FILE));
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        TrinoInputFile blocking = new BlockingInputFile(storage.newInputFile(SCHEMA_FILE), loading, proceed);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<String> load = executor.submit(() -> {
                try (InputStream stream = cache.cacheStream(blocking, key)) {
                    return new String(stream.readAllBytes(), UTF_8);
                }
            });
            // the load has read version 1 and not yet finished
            assertThat(loading.await(2, MINUTES)).isTrue();
            write(SCHEMA_FILE, "version 2");
            cache.expire(SCHEMA_FILE);
            proceed.countDown();
            // the load began before the write: it may return what it read
            assertThat(load.get(2, MINUTES)).isEqualTo("version 1");
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(cache.isCached(SCHEMA_FILE, key)).as("the load that raced the expire is not kept").isFalse();
        try (InputStream stream = cache.cacheStream(storage.newInputFile(SCHEMA_FILE), key)) {
            assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("version 2");
        }
    }

    @Test
    void concurrentOpensOfAFileLoadItOnce()
            throws Exception
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "schema");
        CountingInputFile file = new CountingInputFile(storage.newInputFile(SCHEMA_FILE));
        String key = key(file);
        int threads = 8;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<String>> reads = IntStream.range(0, threads)
                        .mapToObj(_ -> executor.submit(() -> {
                            start.await();
                            try (InputStream stream = cache.cacheStream(file, key)) {
                                return new String(stream.readAllBytes(), UTF_8);
                            }
                        }))
                        .toList();
                for (Future<String> read : reads) {
                    assertThat(read.get(2, MINUTES)).isEqualTo("schema");
                }
                cache.expire(SCHEMA_FILE);
            }
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(file.opens.get()).as("one load per round").isEqualTo(20);
        assertThat(stats.getMisses()).isEqualTo(20);
        assertThat(stats.getHits()).isEqualTo(20 * (threads - 1));
    }

    @Test
    void positionalReadsFromMemory()
            throws IOException
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "0123456789");
        TrinoInputFile file = storage.newInputFile(SCHEMA_FILE);
        cache.cacheInput(file, key(file)).close();
        try (TrinoInput input = cache.cacheInput(file, key(file))) {
            assertThat(input.readFully(3, 4).toStringUtf8()).isEqualTo("3456");
            assertThat(input.readTail(3).toStringUtf8()).isEqualTo("789");
            assertThat(input.readTail(64).toStringUtf8()).isEqualTo("0123456789");
            byte[] buffer = new byte[6];
            input.readFully(8, buffer, 4, 2);
            assertThat(Arrays.copyOfRange(buffer, 4, 6)).isEqualTo("89".getBytes(UTF_8));
            assertThatThrownBy(() -> input.readFully(8, 3)).isInstanceOf(EOFException.class);
            assertThatThrownBy(() -> input.readFully(-1, 1)).isInstanceOf(IOException.class);
        }
        assertThat(stats.getHits()).isEqualTo(1);
    }

    @Test
    void streamReadsFromMemory()
            throws IOException
    {
        CoordinatorFileCache cache = cache(new CoordinatorCacheConfig());
        write(SCHEMA_FILE, "0123456789");
        TrinoInputFile file = storage.newInputFile(SCHEMA_FILE);
        cache.cacheStream(file, key(file)).close();
        TrinoInputStream stream = cache.cacheStream(file, key(file));
        assertThat(stream.read()).isEqualTo('0');
        assertThat(stream.skip(2)).isEqualTo(2);
        assertThat(stream.getPosition()).isEqualTo(3);
        assertThat(stream.available()).isEqualTo(7);
        byte[] buffer = new byte[4];
        assertThat(stream.read(buffer, 0, 4)).isEqualTo(4);
        assertThat(new String(buffer, UTF_8)).isEqualTo("3456");
        stream.seek(9);
        assertThat(stream.read()).isEqualTo('9');
        assertThat(stream.read()).isEqualTo(-1);
        assertThat(stream.read(buffer, 0, 4)).isEqualTo(-1);
        assertThat(stream.skip(5)).isZero();
        assertThatThrownBy(() -> stream.seek(11)).isInstanceOf(EOFException.class);
        stream.seek(0);
        assertThat(new String(stream.readAllBytes(), UTF_8)).isEqualTo("0123456789");
        long fromMemoryBeforeClose = stats.getBytesFromMemory();
        stream.close();
        assertThat(stats.getBytesFromMemory() - fromMemoryBeforeClose).isEqualTo(1 + 4 + 1 + 10);
        assertThatThrownBy(stream::read).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    private CoordinatorFileCache cache(CoordinatorCacheConfig config)
    {
        return new CoordinatorFileCache(config, new PageCacheConfig().getMinFileAge(), InstantSource.system(), stats);
    }

    // the catalog's file system as Trino builds it on the coordinator: CacheFileSystem over storage, keyed by path,
    // modification time and length
    private TrinoFileSystem cachedFileSystem(CoordinatorCacheConfig config)
    {
        return new CacheFileSystem(storage, cache(config), new DefaultCacheKeyProvider());
    }

    private void write(Location location, String content)
    {
        try {
            storage.newOutputFile(location).createOrOverwrite(content.getBytes(UTF_8));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(TrinoFileSystem fileSystem, Location location)
            throws IOException
    {
        try (InputStream stream = fileSystem.newInputFile(location).newStream()) {
            return new String(stream.readAllBytes(), UTF_8);
        }
    }

    private static String key(TrinoInputFile file)
            throws IOException
    {
        return new DefaultCacheKeyProvider().getCacheKey(file).orElseThrow();
    }

    // MemoryFileSystem stamps a file with Instant.now(); HDFS with the NameNode's clock in milliseconds
    private static void sleepPastModificationTime()
    {
        try {
            Thread.sleep(2);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    /** Forwards everything to another file; the tests' files override what they watch or hold back. */
    private abstract static class ForwardingInputFile
            implements TrinoInputFile
    {
        protected final TrinoInputFile delegate;

        ForwardingInputFile(TrinoInputFile delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public TrinoInput newInput()
                throws IOException
        {
            return delegate.newInput();
        }

        @Override
        public TrinoInputStream newStream()
                throws IOException
        {
            return delegate.newStream();
        }

        @Override
        public long length()
                throws IOException
        {
            return delegate.length();
        }

        @Override
        public Instant lastModified()
                throws IOException
        {
            return delegate.lastModified();
        }

        @Override
        public boolean exists()
                throws IOException
        {
            return delegate.exists();
        }

        @Override
        public Location location()
        {
            return delegate.location();
        }
    }

    /** Reads the file whole when opened, then holds the stream back until {@code proceed}. */
    private static final class BlockingInputFile
            extends ForwardingInputFile
    {
        private final CountDownLatch loading;
        private final CountDownLatch proceed;

        BlockingInputFile(TrinoInputFile delegate, CountDownLatch loading, CountDownLatch proceed)
        {
            super(delegate);
            this.loading = loading;
            this.proceed = proceed;
        }

        @Override
        public TrinoInput newInput()
        {
            throw new UnsupportedOperationException("the tier loads files as streams");
        }

        @Override
        public TrinoInputStream newStream()
                throws IOException
        {
            byte[] content;
            try (TrinoInputStream stream = delegate.newStream()) {
                content = stream.readAllBytes();
            }
            loading.countDown();
            try {
                if (!proceed.await(2, MINUTES)) {
                    throw new IOException("never released");
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException();
            }
            return new MemoryFileInputStream(location(), content, new CoordinatorCacheStats());
        }
    }

    /** Counts the opens of the file on storage. */
    private static final class CountingInputFile
            extends ForwardingInputFile
    {
        private final AtomicInteger opens = new AtomicInteger();

        CountingInputFile(TrinoInputFile delegate)
        {
            super(delegate);
        }

        @Override
        public TrinoInput newInput()
                throws IOException
        {
            opens.incrementAndGet();
            return delegate.newInput();
        }

        @Override
        public TrinoInputStream newStream()
                throws IOException
        {
            opens.incrementAndGet();
            return delegate.newStream();
        }
    }
}
