package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bytes damaged on a cache disk while the worker runs (a bad sector, a stray write): a hit verifies the checksums of
 * the chunks it reads, so damaged bytes are never served. A read covering a damaged chunk is a miss (the caller reads
 * storage), the page is deleted and counted. Reads of the page's other chunks before that still hit: their bytes are
 * verified, and the damaged bytes are not among them.
 */
class TestPageCacheChecksums
{
    // a page of four chunks, the last one short
    private static final int CHUNK = 16 * 1024;
    private static final int PAGE_SIZE = 4 * CHUNK;
    private static final int CHUNK_FRAME = CHUNK + 4;

    @TempDir
    Path directory;

    @Test
    void chunkSizeIsTheFormats()
    {
        assertThat(PageFrame.CHUNK_SIZE).isEqualTo(CHUNK);
    }

    @Test
    void damageAtTheStartOfThePage()
            throws Exception
    {
        assertDamagedChunkIsNeverServed(0, 0);
    }

    @Test
    void damageInTheMiddleOfThePage()
            throws Exception
    {
        assertDamagedChunkIsNeverServed(CHUNK_FRAME + CHUNK / 2, 1);
    }

    @Test
    void damageAtTheEndOfThePage()
            throws Exception
    {
        // the last 8 bytes of the page's last, short chunk
        int pageLength = PAGE_SIZE - 1000;
        int lastChunkLength = pageLength - 3 * CHUNK;
        assertDamagedChunkIsNeverServed(3 * CHUNK_FRAME + lastChunkLength - 8, 3);
    }

    @Test
    void damageInAChunksChecksum()
            throws Exception
    {
        // the last 4 bytes of chunk 2 and its checksum
        assertDamagedChunkIsNeverServed(2 * CHUNK_FRAME + CHUNK - 4, 2);
    }

    @Test
    void damageInTheTrailerIsNeverServedAndFoundAtRestart()
            throws Exception
    {
        PageId page = new PageId("file", 0);
        byte[] content = content(page);
        PageCacheStats stats = new PageCacheStats();
        Path file;
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats)) {
            write(cache, page, content);
            file = pageFile(page);
            // the page's length, chunk size and magic number: hits read only chunks, which are intact
            damage(file, Files.size(file) - 12, 8);
            for (int offset = 0; offset < content.length; offset += 5000) {
                assertThat(readThroughCache(cache, page, offset, 3000, content)).isTrue();
            }
            assertThat(stats.getChecksumFailures()).isZero();
        }
        PageCacheStats restarted = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), restarted)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            assertThat(restarted.getRestoreDiscardedCorrupt()).isEqualTo(1);
            assertThat(Files.exists(file)).isFalse();
            assertThat(cache.read(page, 0, 10, new byte[10], 0)).isZero();
        }
    }

    // flips 8 bytes at frameOffset of a cached page, inside the given chunk (its data or its checksum)
    private void assertDamagedChunkIsNeverServed(long frameOffset, int damagedChunk)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats)) {
            PageId page = new PageId("file", 0);
            PageId other = new PageId("file", 1);
            byte[] content = content(page);
            byte[] otherContent = content(other);
            write(cache, page, content);
            write(cache, other, otherContent);
            Path file = pageFile(page);
            damage(file, frameOffset, 8);

            // partial reads of the chunks that are intact still hit, with the page's bytes
            for (int chunk = 0; chunk < 4; chunk++) {
                if (chunk == damagedChunk) {
                    continue;
                }
                int offset = chunk * CHUNK + 100;
                int length = Math.min(CHUNK - 200, content.length - offset);
                assertThat(readThroughCache(cache, page, offset, length, content)).as("chunk %s is intact", chunk).isTrue();
            }
            assertThat(stats.getChecksumFailures()).isZero();

            // a read covering the damaged chunk is a miss, served from storage, and the page is deleted and counted
            int offset = Math.max(0, damagedChunk * CHUNK - 10);
            assertThat(readThroughCache(cache, page, offset, 50, content)).as("a read covering the damaged chunk").isFalse();
            assertThat(stats.getChecksumFailures()).isEqualTo(1);
            assertThat(stats.getCorruptPages()).isEqualTo(1);
            assertThat(stats.getPagesDeleted()).isEqualTo(1);
            // the miss wrote the storage's page again: every read hits with the right bytes
            for (int start = 0; start < content.length; start += 7000) {
                assertThat(readThroughCache(cache, page, start, 9000, content)).isTrue();
            }
            assertThat(readThroughCache(cache, other, 0, PAGE_SIZE, otherContent)).isTrue();
            assertThat(stats.getChecksumFailures()).isEqualTo(1);
        }
    }

    @Test
    void damagedPageIsDeletedWhenNotWrittenAgain()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats)) {
            PageId page = new PageId("file", 0);
            byte[] content = content(page);
            write(cache, page, content);
            Path file = pageFile(page);
            damage(file, CHUNK_FRAME + 3, 8);
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(page, 0, PAGE_SIZE, target, 0)).isZero();
            assertThat(Files.exists(file)).as("the damaged page's file is deleted").isFalse();
            assertThat(cache.contains(page)).isFalse();
            assertThat(cache.read(page, 0, 100, target, 0)).as("the first chunk is gone with the page").isZero();
            assertThat(stats.getChecksumFailures()).isEqualTo(1);
            assertThat(stats.getMisses()).isEqualTo(2);
        }
    }

    /**
     * Model-based: random pages, random damage (flips and overwrites anywhere in the page files, the trailer included),
     * random ranged reads through a reader that does what Trino's does (a miss reads storage and offers the page
     * again). Every read returns the storage's bytes; a page is deleted only for damage, which is counted.
     */
    @Test
    void randomDamageAndRandomReadsAlwaysReturnTheStoragesBytes()
            throws Exception
    {
        for (long seed = 1; seed <= 4; seed++) {
            randomRun(seed);
        }
    }

    private void randomRun(long seed)
            throws Exception
    {
        Random random = new Random(seed);
        Path base = directory.resolve("seed-" + seed);
        PageCacheStats stats = new PageCacheStats();
        List<PageId> pages = new ArrayList<>();
        for (int file = 0; file < 6; file++) {
            for (int index = 0; index < 4; index++) {
                pages.add(new PageId("file-" + file, index));
            }
        }
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(base), stats)) {
            long damages = 0;
            for (int operation = 0; operation < 3_000; operation++) {
                PageId page = pages.get(random.nextInt(pages.size()));
                byte[] content = randomContent(page, seed);
                if (random.nextInt(10) == 0) {
                    Path file = pageFile(base, page);
                    if (file != null && Files.size(file) > 0) {
                        damage(file, random.nextLong(Files.size(file)), 1 + random.nextInt(16));
                        damages++;
                    }
                    continue;
                }
                int offset = random.nextInt(content.length);
                int length = 1 + random.nextInt(random.nextBoolean() ? 64 : content.length - offset);
                readThroughCache(cache, page, offset, length, content);
            }
            assertThat(damages).isPositive();
            assertThat(stats.getHits()).isPositive();
            assertThat(stats.getChecksumFailures()).as("seed %s", seed).isPositive().isLessThanOrEqualTo(damages);
            assertThat(stats.getGetErrors()).isZero();
            assertThat(stats.getDirectoriesDisabled()).isZero();
        }
        // what is left after the restart is intact, or discarded at the restore
        PageCacheStats restarted = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(base), restarted)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            for (PageId page : pages) {
                byte[] content = randomContent(page, seed);
                byte[] target = new byte[content.length];
                int read = cache.read(page, 0, content.length, target, 0);
                if (read > 0) {
                    assertThat(target).as("seed %s, %s after the restart", seed, page).isEqualTo(content);
                }
            }
        }
    }

    /**
     * A hit reads through the file's channel, which an interrupt of the reading thread (a cancelled query) closes: at
     * worst a miss, never an error counted against the disk (one would take this directory out of use).
     */
    @Test
    void interruptedReaderMissesWithoutBlamingTheDisk()
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config().setDirectoryFailureThreshold(1), stats)) {
            PageId page = new PageId("file", 1);
            byte[] content = content(page);
            write(cache, page, content);
            byte[] target = new byte[PAGE_SIZE];
            Thread.currentThread().interrupt();
            try {
                int read = cache.read(page, 0, PAGE_SIZE, target, 0);
                if (read > 0) {
                    assertThat(Arrays.copyOf(target, read)).isEqualTo(content);
                }
            }
            finally {
                assertThat(Thread.interrupted()).as("the interrupt is left to the caller").isTrue();
            }
            assertThat(stats.getGetErrors()).isZero();
            assertThat(stats.getChecksumFailures()).isZero();
            assertThat(stats.getDirectoriesDisabled()).isZero();
            // the directory still serves
            readThroughCache(cache, page, 0, PAGE_SIZE, content);
            assertThat(readThroughCache(cache, page, 0, PAGE_SIZE, content)).isTrue();
        }
    }

    /**
     * Many readers of random ranges of multi-chunk pages (each offering the page again on a miss) while another thread
     * damages page files: every read returns the storage's bytes, however the damage interleaves with the reads.
     */
    @Test
    void concurrentReadersNeverSeeDamagedBytes()
            throws Exception
    {
        int threads = 8;
        PageCacheStats stats = new PageCacheStats();
        List<PageId> pages = new ArrayList<>();
        for (int index = 0; index < 12; index++) {
            pages.add(new PageId("file-" + index % 3, index));
        }
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats)) {
            ExecutorService executor = Executors.newFixedThreadPool(threads + 1);
            try {
                CountDownLatch start = new CountDownLatch(1);
                AtomicBoolean readersDone = new AtomicBoolean();
                List<Future<?>> readers = new ArrayList<>();
                for (int thread = 0; thread < threads; thread++) {
                    long seed = thread;
                    readers.add(executor.submit(() -> {
                        Random random = new Random(seed);
                        start.await();
                        for (int operation = 0; operation < 1_500; operation++) {
                            PageId page = pages.get(random.nextInt(pages.size()));
                            byte[] content = randomContent(page, 0);
                            int offset = random.nextInt(content.length);
                            readThroughCache(cache, page, offset, 1 + random.nextInt(content.length - offset), content);
                        }
                        return null;
                    }));
                }
                Future<Long> damager = executor.submit(() -> {
                    Random random = new Random(99);
                    long damages = 0;
                    start.await();
                    while (!readersDone.get()) {
                        try {
                            Path file = pageFile(directory, pages.get(random.nextInt(pages.size())));
                            if (file != null) {
                                damage(file, random.nextLong(Math.max(1, Files.size(file))), 1 + random.nextInt(8));
                                damages++;
                            }
                        }
                        catch (IOException | UncheckedIOException e) {
                            // deleted meanwhile (dropped or written again): damage another
                        }
                        Thread.yield();
                    }
                    return damages;
                });
                start.countDown();
                for (Future<?> reader : readers) {
                    reader.get(5, MINUTES);
                }
                readersDone.set(true);
                assertThat(damager.get(1, MINUTES)).isPositive();
            }
            finally {
                executor.shutdownNow();
            }
            assertThat(stats.getHits()).isPositive();
            assertThat(stats.getChecksumFailures()).isPositive();
            assertThat(stats.getGetErrors()).isZero();
        }
    }

    @Test
    void pagesOfTheEarlierFormatAreDiscardedAtRestart()
            throws Exception
    {
        List<PageId> pages = List.of(new PageId("file", 0), new PageId("file", 1), new PageId("other", 0));
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), new PageCacheStats())) {
            for (PageId page : pages) {
                write(cache, page, content(page));
            }
        }
        // what an earlier build left: the page's bytes, then its CRC32C, its length and "ODPG"
        for (PageId page : pages) {
            byte[] content = content(page);
            CRC32C crc = new CRC32C();
            crc.update(content);
            ByteBuffer old = ByteBuffer.allocate(content.length + 12).order(LITTLE_ENDIAN);
            old.put(content).putInt((int) crc.getValue()).putInt(content.length).putInt(0x4F445047);
            Files.write(pageFile(page), old.array());
        }
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats)) {
            assertThat(cache.awaitRestore(new Duration(1, MINUTES))).isTrue();
            assertThat(stats.getRestoreDiscardedCorrupt()).isEqualTo(pages.size());
            assertThat(stats.getPagesRestored()).isZero();
            for (PageId page : pages) {
                assertThat(cache.read(page, 0, 100, new byte[100], 0)).isZero();
                assertThat(pageFile(directory, page)).isNull();
            }
            // cached again in the new format
            for (PageId page : pages) {
                assertThat(readThroughCache(cache, page, 0, PAGE_SIZE, content(page))).isFalse();
                assertThat(readThroughCache(cache, page, 0, PAGE_SIZE, content(page))).isTrue();
            }
        }
    }

    /**
     * Reads {@code length} bytes of the page from {@code offset} as Trino's reader does: from the cache, or on a miss
     * from storage ({@code content}), offering the page to the cache. Asserts the bytes are the storage's; whether it hit.
     */
    private static boolean readThroughCache(PageCache cache, PageId page, int offset, int length, byte[] content)
    {
        int expected = Math.min(length, content.length - offset);
        byte[] target = new byte[length + 20];
        Arrays.fill(target, (byte) 0x77);
        int read = cache.read(page, offset, length, target, 10);
        if (read > 0) {
            assertThat(read).isEqualTo(expected);
            assertThat(Arrays.copyOfRange(target, 10, 10 + read)).as("bytes %s..%s of %s", offset, offset + read, page).isEqualTo(Arrays.copyOfRange(content, offset, offset + read));
            assertThat(target[9]).isEqualTo((byte) 0x77);
            assertThat(target[10 + read]).isEqualTo((byte) 0x77);
            return true;
        }
        cache.write("/" + page.getFileId(), page, ByteBuffer.wrap(content), CacheReadContext.UNKNOWN);
        return false;
    }

    private static void write(PageCache cache, PageId page, byte[] content)
    {
        cache.write("/" + page.getFileId(), page, ByteBuffer.wrap(content), CacheReadContext.UNKNOWN);
        assertThat(cache.contains(page)).isTrue();
    }

    // pages of 4 chunks; page 0 of a file ends 1000 bytes short of the page size (its last chunk is short)
    private static byte[] content(PageId page)
    {
        return TestingPages.content(page, page.getPageIndex() == 0 ? PAGE_SIZE - 1000 : PAGE_SIZE);
    }

    private static byte[] randomContent(PageId page, long seed)
    {
        int length = 1 + Math.floorMod(page.getFileId().hashCode() * 31 + page.getPageIndex() * 7919 + (int) seed, PAGE_SIZE);
        return TestingPages.content(page, length);
    }

    // overwrites length bytes from offset (as far as the file goes) with other values. The file may be deleted or written
    // again, shorter, by the cache meanwhile: a file that is gone is not created again (NoSuchFileException), and one
    // that now ends before offset is left alone
    private static void damage(Path file, long offset, int length)
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, READ, WRITE)) {
            int bytes = (int) Math.min(length, channel.size() - offset);
            if (bytes <= 0) {
                return;
            }
            ByteBuffer buffer = ByteBuffer.allocate(bytes);
            while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) >= 0) {
                // until the range is read, or the file ends
            }
            buffer.flip();
            for (int i = 0; i < buffer.limit(); i++) {
                buffer.put(i, (byte) (buffer.get(i) ^ (0x5A + i)));
            }
            channel.write(buffer, offset);
        }
    }

    private PageCacheConfig config()
    {
        return config(directory);
    }

    private static PageCacheConfig config(Path base)
    {
        return TestingPages.config(1000L * PAGE_SIZE, base).setPageSize(DataSize.ofBytes(PAGE_SIZE));
    }

    private Path pageFile(PageId page)
            throws IOException
    {
        Path file = pageFile(directory, page);
        assertThat(file).as("file of %s", page).isNotNull();
        return file;
    }

    // <base>/<catalog>/LOCAL/<page size>/<bucket>/<file id>/<page index>, or null when it is not there
    private static Path pageFile(Path base, PageId page)
            throws IOException
    {
        Path root = TestingPages.catalogDirectory(base).resolve("LOCAL").resolve(Integer.toString(PAGE_SIZE));
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .filter(file -> file.getFileName().toString().equals(Long.toString(page.getPageIndex())) && file.getParent().getFileName().toString().equals(page.getFileId()))
                    .findFirst()
                    .orElse(null);
        }
    }
}
