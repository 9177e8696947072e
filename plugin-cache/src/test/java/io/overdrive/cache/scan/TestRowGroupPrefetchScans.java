package io.overdrive.cache.scan;

import io.airlift.units.DataSize;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.page.PageFrame;
import io.overdrive.cache.scan.RowGroupLayout.Range;
import io.overdrive.cache.scan.TestRowGroupPrefetch.Read;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

import static java.lang.Math.toIntExact;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Row-group prefetch through shared scans, replaying the reads Trino's Parquet reader makes of a real file (footer,
 * then one projected column's chunks row group by row group): once the footer was read, reading a column chunk of one
 * row group fetches the same column's chunk of the next in the background, so that the reader's next read hits.
 */
@Timeout(120)
class TestRowGroupPrefetchScans
{
    private static final int PAGE_SIZE = 4 * PageFrame.CHUNK_SIZE;

    @TempDir
    Path directory;

    @Test
    void theNextRowGroupsChunksOfTheColumnsReadAreFetchedAhead()
            throws Exception
    {
        for (int round = 0; round < 20; round++) {
            Replay replay = replay(true, round);
            // every read of a column chunk after the first row group's was served without remote storage
            assertThat(replay.readsThatWentRemote()).as("round %s, reads that went to storage: the footer and the first row group's chunk; %s", round, replay.diagnostics()).isEqualTo(2);
        }
        Replay replay = replay(true, 20);
        assertThat(replay.scanStats().getRowGroupPrefetches()).isPositive();
        // only the chunks of the column read were fetched ahead, each at most a chunk wider at each end
        assertThat(replay.scanStats().getRowGroupPrefetchBytes()).isLessThanOrEqualTo(replay.columnBytes() + 2L * PageFrame.CHUNK_SIZE * replay.chunkReads());
        assertThat(replay.scanStats().getReadAheadMemoryBytes()).as("prefetch memory given back").isZero();
    }

    @Test
    void withoutPrefetchEveryRowGroupWaitsForStorage()
            throws Exception
    {
        Replay replay = replay(false, 0);
        // the footer's read (Trino's reader reads the last 48 KiB) may hold the last row group's chunk
        assertThat(replay.readsThatWentRemote()).isGreaterThanOrEqualTo(replay.chunkReads());
        assertThat(replay.scanStats().getRowGroupPrefetches()).isZero();
    }

    @Test
    void prefetchBytesCountOnlyThePrefetchsOwnReads()
            throws Exception
    {
        byte[] file = TestRowGroupPrefetch.writeParquet(5);
        Files.write(directory.resolve("data.parquet"), file);
        ParquetReaderOptions options = ParquetReaderOptions.builder().withMaxMergeDistance(DataSize.ofBytes(0)).build();
        // the footer, then "price" (column 2) of each row group; "name" (column 1) of row group 3, never planned
        List<Read> reads = TestRowGroupPrefetch.readWithTrino(file, options, List.of(2));
        Read footer = reads.getFirst();
        Read price = reads.get(1);
        RowGroupLayout layout = RowGroupLayout.parse(file.length, file, 0, file.length).orElseThrow();
        Range nextPrice = layout.columnChunk(1, 2);
        Range name = layout.columnChunk(3, 1);
        StorageBoundary storage = new StorageBoundary(new LocalFileSystem(directory).newInputFile(Location.of("local:///data.parquet")), PageFrame.CHUNK_SIZE);
        PageCacheStats cacheStats = new PageCacheStats();
        SharedScanStats stats = new SharedScanStats();
        PageCacheConfig config = cacheConfig(directory, PageFrame.CHUNK_SIZE);
        try (PageCache pageCache = PageCache.create("lake", config, cacheStats);
                SharedScans warmUp = new SharedScans("lake", pageCache, new SharedScanConfig().setReadAhead(0).setRowGroupPrefetch(false), new SharedScanStats(), cacheStats);
                SharedScans scans = new SharedScans("lake", pageCache, new SharedScanConfig().setReadAhead(0), stats, cacheStats)) {
            // the footer and row group 0's chunk cached, nothing prefetched
            try (TrinoInput input = warmUp.input(storage, "data", file.length, CacheReadContext.UNKNOWN)) {
                input.readFully(footer.position(), new byte[footer.length()], 0, footer.length());
                input.readFully(price.position(), new byte[price.length()], 0, price.length());
            }
            try (TrinoInput input = scans.input(storage, "data", file.length, CacheReadContext.UNKNOWN)) {
                input.readFully(footer.position(), new byte[footer.length()], 0, footer.length());
                // a hit, whose prefetch of row group 1's chunk is the next read to reach storage: held there
                storage.blockNextRead(null);
                input.readFully(price.position(), new byte[price.length()], 0, price.length());
                storage.awaitBlockedRead();
                // meanwhile the reader reads from storage itself
                long before = storage.bytesRead();
                byte[] buffer = new byte[toIntExact(name.length())];
                input.readFully(name.start(), buffer, 0, buffer.length);
                assertThat(buffer).isEqualTo(Arrays.copyOfRange(file, toIntExact(name.start()), toIntExact(name.end())));
                long readerBytes = storage.bytesRead() - before;
                assertThat(readerBytes).isGreaterThanOrEqualTo(name.length());
                storage.release();
                awaitSettled(stats);
                assertThat(stats.getRowGroupPrefetches()).isEqualTo(1);
                // the prefetch's own bytes: row group 1's chunk, widened to whole chunks; not the reader's
                assertThat(stats.getRowGroupPrefetchBytes())
                        .isGreaterThanOrEqualTo(nextPrice.length())
                        .isLessThanOrEqualTo(nextPrice.length() + 2L * PageFrame.CHUNK_SIZE)
                        .isEqualTo(storage.bytesRead() - before - readerBytes);
            }
        }
    }

    @Test
    void readAheadStaysWithinTheColumnChunkRead()
            throws Exception
    {
        byte[] file = TestRowGroupPrefetch.writeParquet(5);
        Files.write(directory.resolve("data.parquet"), file);
        RowGroupLayout layout = RowGroupLayout.parse(file.length, file, 0, file.length).orElseThrow();
        // the longest chunk of the first row group, read in two halves as a sequential reader does; more row groups follow
        Range chunk = IntStream.range(0, layout.columnCount())
                .mapToObj(column -> layout.columnChunk(0, column))
                .max(Comparator.comparingLong(Range::length))
                .orElseThrow();
        int pageSize = PageFrame.CHUNK_SIZE;
        assertThat(file.length - chunk.end()).isGreaterThan(4L * pageSize);
        Read footer = TestRowGroupPrefetch.readWithTrino(file, ParquetReaderOptions.builder().build(), List.of(2)).getFirst();
        long middle = chunk.start() + chunk.length() / 2;
        for (boolean footerRead : List.of(false, true)) {
            Path data = directory.resolve("footer-" + footerRead);
            Files.createDirectories(data);
            Files.write(data.resolve("data.parquet"), file);
            StorageBoundary storage = new StorageBoundary(new LocalFileSystem(data).newInputFile(Location.of("local:///data.parquet")), pageSize);
            PageCacheStats cacheStats = new PageCacheStats();
            SharedScanStats stats = new SharedScanStats();
            try (PageCache pageCache = PageCache.create("lake", cacheConfig(data, pageSize), cacheStats);
                    SharedScans scans = new SharedScans("lake", pageCache, new SharedScanConfig().setReadAhead(4).setRowGroupPrefetch(false), stats, cacheStats);
                    TrinoInput input = scans.input(storage, "data", file.length, CacheReadContext.UNKNOWN)) {
                if (footerRead) {
                    input.readFully(footer.position(), new byte[footer.length()], 0, footer.length());
                }
                long before = storage.bytesRead();
                for (Range half : List.of(new Range(chunk.start(), middle - chunk.start()), new Range(middle, chunk.end() - middle))) {
                    byte[] buffer = new byte[toIntExact(half.length())];
                    input.readFully(half.start(), buffer, 0, buffer.length);
                    assertThat(buffer).isEqualTo(Arrays.copyOfRange(file, toIntExact(half.start()), toIntExact(half.end())));
                }
                awaitSettled(stats);
                long lastPageOfChunk = (chunk.end() - 1) / pageSize;
                long firstPageOfChunk = chunk.start() / pageSize;
                if (footerRead) {
                    // the layout known: nothing past the chunk's last page was fetched, ahead or otherwise
                    assertThat(stats.getReadAheadPages()).isZero();
                    assertThat(storage.bytesRead() - before).isLessThanOrEqualTo((lastPageOfChunk - firstPageOfChunk + 1) * pageSize);
                }
                else {
                    // a file whose layout is unknown (not Parquet or ORC, or its footer not read): pages past the read, ahead
                    assertThat(stats.getReadAheadPages()).isEqualTo(4);
                    assertThat(storage.bytesRead() - before).isGreaterThan((lastPageOfChunk - firstPageOfChunk + 1) * pageSize);
                }
            }
        }
    }

    private Replay replay(boolean prefetch, int round)
            throws Exception
    {
        byte[] file = TestRowGroupPrefetch.writeParquet(5);
        Path data = directory.resolve("round-" + round);
        Files.createDirectories(data);
        Files.write(data.resolve("data.parquet"), file);
        // the reads Trino's reader makes to read column 2 (price), in order; the first is the footer
        // (on a file this small the reader would merge them all into one read: not with row groups megabytes apart)
        ParquetReaderOptions options = ParquetReaderOptions.builder().withMaxMergeDistance(DataSize.ofBytes(0)).build();
        List<Read> reads = TestRowGroupPrefetch.readWithTrino(file, options, List.of(2));
        assertThat(reads).hasSize(6);
        assertThat(reads.getFirst().position() + reads.getFirst().length()).isEqualTo(file.length);
        StorageBoundary storage = new StorageBoundary(new LocalFileSystem(data).newInputFile(Location.of("local:///data.parquet")), PAGE_SIZE);
        PageCacheStats cacheStats = new PageCacheStats();
        SharedScanStats stats = new SharedScanStats();
        PageCacheConfig config = cacheConfig(data, PAGE_SIZE);
        int remote = 0;
        StringBuilder diagnostics = new StringBuilder();
        long columnBytes = 0;
        try (PageCache pageCache = PageCache.create("lake", config, cacheStats);
                SharedScans scans = new SharedScans("lake", pageCache, new SharedScanConfig().setReadAhead(0).setRowGroupPrefetch(prefetch), stats, cacheStats);
                TrinoInput input = scans.input(storage, "data", file.length, CacheReadContext.UNKNOWN)) {
            for (Read read : reads) {
                // a miss is a read of remote storage by the reader (the prefetch this read starts reads it too, at once)
                long before = cacheStats.getMisses();
                byte[] buffer = new byte[read.length()];
                input.readFully(read.position(), buffer, 0, read.length());
                assertThat(buffer).isEqualTo(Arrays.copyOfRange(file, (int) read.position(), (int) read.position() + read.length()));
                if (cacheStats.getMisses() > before) {
                    remote++;
                    diagnostics.append("remote read %s after %s prefetches (%s skipped), %s partial writes, %s puts refused, %s partial misses, %s corrupt, %s get errors, %s misses, %s hits, %s pages written, %s deleted; ".formatted(
                            read, stats.getRowGroupPrefetches(), stats.getRowGroupPrefetchesSkipped(), cacheStats.getPartialPageWrites(), cacheStats.getPutsRefused(), cacheStats.getPartialPageMisses(),
                            cacheStats.getCorruptPages(), cacheStats.getGetErrors(), cacheStats.getMisses(), cacheStats.getHits(), cacheStats.getPagesWritten(), cacheStats.getPagesDeleted()));
                }
                if (read != reads.getFirst()) {
                    columnBytes += read.length();
                }
                awaitSettled(stats);
            }
        }
        return new Replay(remote, reads.size() - 1, columnBytes, stats, diagnostics.toString());
    }

    // a cache of small pages under the directory, every page admitted
    private static PageCacheConfig cacheConfig(Path directory, int pageSize)
    {
        return new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.resolve("cache").toString())
                .setMaxSizes("64MB")
                .setPageSize(DataSize.ofBytes(pageSize))
                .setAdmissionEnabled(false)
                // pages on disk once written, as the counts of this test expect
                .setAsyncWriteEnabled(false);
    }

    // the prefetches run in the background: wait until they are done
    private static void awaitSettled(SharedScanStats stats)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while ((stats.getReadAheadMemoryBytes() > 0 || stats.getPagesInFlight() > 0) && System.nanoTime() < deadline) {
            MILLISECONDS.sleep(1);
        }
        assertThat(stats.getReadAheadMemoryBytes()).as("prefetches settled").isZero();
    }

    private record Replay(int readsThatWentRemote, int chunkReads, long columnBytes, SharedScanStats scanStats, String diagnostics) {}
}
