package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.quota.CacheScope;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static com.google.common.util.concurrent.Uninterruptibles.awaitUninterruptibly;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker restarts: the pages a previous process left on disk are restored in the background with their file's path,
 * table and write time, so that flushes, quotas and the TTL apply to them as to new pages; torn, corrupt and orphaned
 * files are discarded and counted; reads during the restore are misses or the right bytes. The previous process exits
 * cleanly or is killed (SIGKILL) while it writes.
 */
class TestPageCacheRestart
{
    private static final Duration RESTORE_TIMEOUT = new Duration(2, MINUTES);

    @TempDir
    Path directory;

    @Test
    void cleanExitLeavesEveryPageReusable()
            throws Exception
    {
        Process writer = startWriter(200, "exit");
        assertThat(writer.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(writer.exitValue()).isZero();

        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = open(config(), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(stats.getRestoresRunning()).isZero();
            assertThat(stats.getRestoreProgress()).isEqualTo(1.0);
            assertThat(stats.getRestoreFilesFound()).isEqualTo(20);
            assertThat(stats.getPagesRestored()).isEqualTo(200);
            assertThat(stats.getBytesRecovered()).isEqualTo(stats.getBytesCached());
            // restored pages count for the tables they were read for
            assertThat(cache.cachedTables()).extracting(CachedTableUsage::table).map(Optional::orElseThrow).containsExactlyInAnyOrder("t1", "t2");
            assertThat(cache.cachedTables().stream().mapToLong(CachedTableUsage::files).sum()).isEqualTo(20);
            assertThat(cache.cachedTables().stream().mapToLong(CachedTableUsage::pages).sum()).isEqualTo(200);
            assertThat(cache.cachedTables().stream().mapToLong(CachedTableUsage::bytes).sum()).isEqualTo(stats.getBytesCached());
            for (int index = 0; index < 200; index++) {
                assertHit(cache, PageCacheWriterMain.pageId(index));
            }
            assertThat(stats.getMisses()).isZero();
            assertThat(cache.cachedTables().stream().mapToLong(CachedTableUsage::hits).sum()).isEqualTo(200);
        }
    }

    @Test
    void killedWriterAndTornPagesAreNeverServed()
            throws Exception
    {
        List<Path> pageFiles = killWriterAfter(150);
        // and tear three pages the way a crash mid-write can: cut short, or zeroed past the first half
        try (RandomAccessFile file = new RandomAccessFile(pageFiles.get(3).toFile(), "rw")) {
            file.setLength(PAGE_SIZE / 3);
        }
        try (RandomAccessFile file = new RandomAccessFile(pageFiles.get(7).toFile(), "rw")) {
            file.setLength(0);
        }
        try (RandomAccessFile file = new RandomAccessFile(pageFiles.get(11).toFile(), "rw")) {
            file.seek(file.length() / 2);
            file.write(new byte[(int) (file.length() - file.length() / 2)]);
        }
        // a page whose file record is gone, as pages of an Overdrive version before 2.0 have none
        Path orphan = Files.createDirectories(pageFiles.get(20).getParent().resolveSibling("unknown-file")).resolve("0");
        Files.copy(pageFiles.get(20), orphan);

        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = open(config(), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            // the page the writer was writing when it was killed may be torn too
            assertThat(stats.getRestoreDiscardedCorrupt()).isBetween(3L, 4L);
            // and the record the writer was writing may be left in its temporary file
            assertThat(stats.getRestoreDiscardedOrphans()).isBetween(1L, 2L);
            assertThat(stats.getPagesRestored()).isEqualTo(pageFiles.size() - stats.getRestoreDiscardedCorrupt());
            int hits = 0;
            byte[] target = new byte[PAGE_SIZE];
            for (Path pageFile : pageFiles) {
                PageId pageId = new PageId(pageFile.getParent().getFileName().toString(), Long.parseLong(pageFile.getFileName().toString()));
                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                if (read > 0) {
                    hits++;
                    assertThat(read).isEqualTo(TestingPages.length(pageId));
                    assertThat(Arrays.copyOf(target, read)).as("page %s", pageId).isEqualTo(TestingPages.content(pageId, read));
                }
            }
            assertThat((long) hits).isEqualTo(stats.getPagesRestored());
            assertThat(pageFiles()).as("discarded files are deleted").hasSize(hits);
        }
    }

    @Test
    void flushByTableRemovesRecoveredPagesOfThatTableOnly()
            throws Exception
    {
        List<Path> pageFiles = intact(killWriterAfter(120));
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = open(config(), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            // what flush_cache(schema => 's', table => 't1') does: the files under the table's location
            cache.invalidatePaths(path -> path.startsWith("/warehouse/s/t1/"));
            int t1 = 0;
            int t2 = 0;
            for (PageId pageId : pageIds(pageFiles)) {
                boolean hit = cache.read(pageId, 0, PAGE_SIZE, new byte[PAGE_SIZE], 0) > 0;
                if (TestingPages.table(pageId.getFileId()).equals("t1")) {
                    assertThat(hit).as("flushed %s", pageId).isFalse();
                    t1++;
                }
                else {
                    t2 += hit ? 1 : 0;
                }
            }
            assertThat(t1).isPositive();
            assertThat((long) t2).isEqualTo(stats.getPagesRestored() - t1);
        }
        // and they stay flushed after another restart
        PageCacheStats again = new PageCacheStats();
        try (LocalPageCache cache = open(config(), again)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(pageIds(pageFiles())).allMatch(pageId -> TestingPages.table(pageId.getFileId()).equals("t2"));
        }
    }

    @Test
    void quotaAppliesToRecoveredPages()
            throws Exception
    {
        killWriterAfter(160);
        long frame = PageFrame.frameLength(PAGE_SIZE);
        long quota = 30 * frame;
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = open(config().setTableQuota(DataSize.ofBytes(quota)), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(stats.getRestoreDiscardedNoRoom()).as("pages over the quota are not restored").isPositive();
            assertThat(tableBytes(cache, "t1")).isPositive().isLessThanOrEqualTo(quota);
            assertThat(tableBytes(cache, "t2")).isPositive().isLessThanOrEqualTo(quota);
            long t2Before = tableBytes(cache, "t2");

            // a new page of t1 makes room among t1's recovered pages, not t2's
            String newFile = IntStream.range(1000, 2000).mapToObj(index -> "file-" + index).filter(fileId -> TestingPages.table(fileId).equals("t1")).findFirst().orElseThrow();
            PageId pageId = new PageId(newFile, 0);
            cache.write(TestingPages.path(newFile), pageId, ByteBuffer.wrap(TestingPages.content(pageId, PAGE_SIZE)), TestingPages.context(newFile));
            assertHit(cache, pageId);
            assertThat(stats.getQuotaEvictions()).isPositive();
            assertThat(tableBytes(cache, "t1")).isLessThanOrEqualTo(quota);
            assertThat(tableBytes(cache, "t2")).isEqualTo(t2Before);
        }
    }

    @Test
    void ttlAppliesToRecoveredPagesFromTheirWriteTime()
            throws Exception
    {
        List<Path> pageFiles = intact(killWriterAfter(100));
        long now = System.currentTimeMillis();
        // some pages written two hours ago, some written just under an hour ago, the rest just now
        List<Path> old = pageFiles.subList(0, 30);
        List<Path> nearlyExpired = pageFiles.subList(30, 40);
        for (Path file : old) {
            Files.setLastModifiedTime(file, FileTime.fromMillis(now - HOURS.toMillis(2)));
        }
        for (Path file : nearlyExpired) {
            Files.setLastModifiedTime(file, FileTime.fromMillis(now - HOURS.toMillis(1) + SECONDS.toMillis(4)));
        }
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = open(config().setTtl(new Duration(1, HOURS)), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(stats.getRestoreDiscardedExpired()).isEqualTo(old.size());
            for (PageId pageId : pageIds(old)) {
                assertThat(cache.read(pageId, 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).isZero();
            }
            List<PageId> fresh = pageIds(pageFiles.subList(40, pageFiles.size()));
            fresh.forEach(pageId -> assertHit(cache, pageId));
            // served until an hour after they were written, not an hour after the restart
            long deadline = now + SECONDS.toMillis(4);
            for (PageId pageId : pageIds(nearlyExpired)) {
                if (System.currentTimeMillis() < deadline - 1000) {
                    assertHit(cache, pageId);
                }
            }
            while (System.currentTimeMillis() < deadline + 200) {
                Thread.sleep(100);
            }
            for (PageId pageId : pageIds(nearlyExpired)) {
                assertThat(cache.read(pageId, 0, PAGE_SIZE, new byte[PAGE_SIZE], 0)).as("expired %s", pageId).isZero();
            }
            fresh.forEach(pageId -> assertHit(cache, pageId));
        }
    }

    @Test
    void readsDuringTheRestoreAreHitsUnlessFlushed()
            throws Exception
    {
        int pages = 8_000;
        PageCacheConfig config = config();
        try (LocalPageCache cache = open(config, new PageCacheStats())) {
            for (int index = 0; index < pages; index++) {
                PageId pageId = PageCacheWriterMain.pageId(index);
                cache.write(TestingPages.path(pageId.getFileId()), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), TestingPages.context(pageId.getFileId()));
            }
        }
        List<PageId> order = new ArrayList<>(IntStream.range(0, pages).mapToObj(PageCacheWriterMain::pageId).toList());
        Collections.shuffle(order, new Random(7));

        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = open(config, stats)) {
            // readers start at once: the cache serves from the first read, while the restore runs
            double progressAtFirstRead = stats.getRestoreProgress();
            AtomicInteger readsDuringRestore = new AtomicInteger();
            AtomicBoolean flushed = new AtomicBoolean();
            ExecutorService readers = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int reader = 0; reader < 4; reader++) {
                    int first = reader;
                    done.add(readers.submit(() -> {
                        byte[] target = new byte[PAGE_SIZE];
                        // go over the pages again and again until the restore is over
                        boolean restoring = true;
                        while (restoring) {
                            restoring = stats.getRestoresRunning() > 0;
                            for (int index = first; index < order.size(); index += 4) {
                                PageId pageId = order.get(index);
                                boolean flushedBefore = flushed.get();
                                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                                if (TestingPages.table(pageId.getFileId()).equals("t1")) {
                                    if (flushedBefore) {
                                        assertThat(read).as("read after its table was flushed: %s", pageId).isZero();
                                    }
                                }
                                else {
                                    // restored or not yet, every page found at startup is served
                                    assertThat(read).as("page %s", pageId).isEqualTo(TestingPages.length(pageId));
                                }
                                if (read > 0) {
                                    assertThat(Arrays.copyOf(target, read)).as("page %s", pageId).isEqualTo(TestingPages.content(pageId, read));
                                }
                                if (restoring) {
                                    readsDuringRestore.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                // a flush of one table while the restore runs: its pages must not come back
                cache.invalidatePaths(path -> path.startsWith("/warehouse/s/t1/"));
                flushed.set(true);
                for (Future<?> future : done) {
                    future.get(5, MINUTES);
                }
            }
            finally {
                readers.shutdownNow();
            }
            assertThat(progressAtFirstRead).isLessThan(1.0);
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(stats.getRestoreProgress()).isEqualTo(1.0);
            assertThat(readsDuringRestore.get()).isPositive();
            assertThat(stats.getPagesRestoredOnRead()).as("pages the readers asked for before the restore reached them").isPositive();
            assertThat(stats.getPagesRestored()).isGreaterThanOrEqualTo(stats.getPagesRestoredOnRead());
            byte[] target = new byte[PAGE_SIZE];
            for (PageId pageId : order) {
                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                if (TestingPages.table(pageId.getFileId()).equals("t1")) {
                    assertThat(read).as("flushed during the restore: %s", pageId).isZero();
                }
                else {
                    assertThat(read).as("page %s", pageId).isEqualTo(TestingPages.length(pageId));
                }
            }
        }
    }

    @Test
    void aReadRestoresItsPageAheadOfTheRestoreWithTheSameChecks()
            throws Exception
    {
        List<Path> written = killWriterAfter(300);
        List<Path> pageFiles = intact(written);
        int torn = written.size() - pageFiles.size();
        List<PageId> pageIds = pageIds(pageFiles);
        List<PageId> asked = pageIds.subList(pageIds.size() - 20, pageIds.size());
        // one of them corrupt (a bit flip on disk), one expired: neither may be served, both are left to the restore
        Path corrupt = pageFiles.getLast();
        byte[] frame = Files.readAllBytes(corrupt);
        frame[5] ^= 0x10;
        Files.write(corrupt, frame);
        Path expired = pageFiles.get(pageFiles.size() - 2);
        Files.setLastModifiedTime(expired, FileTime.fromMillis(System.currentTimeMillis() - HOURS.toMillis(2)));
        Set<PageId> unservable = Set.of(pageIds.getLast(), pageIds.get(pageIds.size() - 2));

        PageCacheStats stats = new PageCacheStats();
        CountDownLatch restoreMayStart = new CountDownLatch(1);
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config().setTtl(new Duration(1, HOURS)), stats, () -> awaitUninterruptibly(restoreMayStart))) {
            byte[] target = new byte[PAGE_SIZE];
            // found on disk and not restored yet: a read-ahead need not fetch it
            assertThat(asked).allMatch(cache::contains);
            assertThat(cache.contains(new PageId(asked.getFirst().getFileId(), 1_000))).isFalse();
            for (PageId pageId : asked) {
                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                if (unservable.contains(pageId)) {
                    assertThat(read).as("corrupt or expired %s", pageId).isZero();
                    continue;
                }
                assertThat(read).as("page %s", pageId).isEqualTo(TestingPages.length(pageId));
                assertThat(Arrays.copyOf(target, read)).isEqualTo(TestingPages.content(pageId, read));
                // a second read is a plain hit
                assertHit(cache, pageId);
            }
            assertThat(stats.getRestoreProgress()).isZero();
            assertThat(stats.getPagesRestoredOnRead()).isEqualTo(asked.size() - unservable.size());
            assertThat(stats.getPagesRestored()).isEqualTo(asked.size() - unservable.size());
            assertThat(stats.getRestoreDiscardedCorrupt() + stats.getRestoreDiscardedExpired()).isZero();

            restoreMayStart.countDown();
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            // each page counted once, whichever restored it; the damaged and the expired one deleted and counted by the restore
            assertThat(stats.getPagesRestored()).isEqualTo(pageFiles.size() - unservable.size());
            assertThat(stats.getPagesRestoredOnRead()).isEqualTo(asked.size() - unservable.size());
            assertThat(stats.getRestoreDiscardedCorrupt()).isEqualTo(1 + torn);
            assertThat(stats.getRestoreDiscardedExpired()).isEqualTo(1);
            assertThat(corrupt).doesNotExist();
            assertThat(expired).doesNotExist();
            assertThat(stats.getBytesRecovered()).isEqualTo(stats.getBytesCached());
            // pages restored on read carry their file's path: a flush of their schema removes them
            cache.invalidatePaths(path -> path.startsWith("/warehouse/s/"));
            for (PageId pageId : asked) {
                assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).isZero();
            }
        }
        finally {
            restoreMayStart.countDown();
        }
    }

    @Test
    void aFlushBeforeTheRestoreReachesAFileKeepsReadsFromRestoringIt()
            throws Exception
    {
        List<PageId> pageIds = pageIds(intact(killWriterAfter(200)));
        PageCacheStats stats = new PageCacheStats();
        CountDownLatch restoreMayStart = new CountDownLatch(1);
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats, () -> awaitUninterruptibly(restoreMayStart))) {
            cache.invalidatePaths(path -> path.startsWith("/warehouse/s/t1/"));
            byte[] target = new byte[PAGE_SIZE];
            for (PageId pageId : pageIds) {
                int read = cache.read(pageId, 0, PAGE_SIZE, target, 0);
                if (TestingPages.table(pageId.getFileId()).equals("t1")) {
                    assertThat(read).as("flushed %s", pageId).isZero();
                }
                else {
                    assertThat(read).as("page %s", pageId).isEqualTo(TestingPages.length(pageId));
                }
            }
            restoreMayStart.countDown();
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(stats.getRestoreDiscardedFlushed()).isPositive();
            assertThat(pageIds(pageFiles())).allMatch(pageId -> TestingPages.table(pageId.getFileId()).equals("t2"));
        }
        finally {
            restoreMayStart.countDown();
        }
    }

    @Test
    void manyFlushesDuringARestoreAreRememberedInBoundedMemoryAndForgottenWhenItEnds()
            throws Exception
    {
        Process writer = startWriter(200, "exit");
        assertThat(writer.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(writer.exitValue()).isZero();
        List<PageId> pageIds = pageIds(pageFiles());
        assertThat(pageIds).hasSize(200);

        PageCacheStats stats = new PageCacheStats();
        CountDownLatch restoreMayStart = new CountDownLatch(1);
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config(), stats, () -> awaitUninterruptibly(restoreMayStart))) {
            // a busy catalog while the restore is held back: every file written through it expires its path
            for (int file = 0; file < 100_000; file++) {
                cache.expire("/warehouse/s/t3/written-by-a-long-running-insert-" + file);
            }
            // and the files of table t1 are rewritten, and expired, before the restore reaches them
            pageIds.stream()
                    .map(PageId::getFileId)
                    .filter(fileId -> TestingPages.table(fileId).equals("t1"))
                    .distinct()
                    .forEach(fileId -> cache.expire(TestingPages.path(fileId)));
            cache.invalidatePaths(path -> path.startsWith("/warehouse/s/t4/"));
            assertThat(cache.flushesDuringRestoreRetainedBytes()).isLessThan(DataSize.of(1, DataSize.Unit.MEGABYTE).toBytes());

            restoreMayStart.countDown();
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(cache.flushesDuringRestoreRetainedBytes()).as("forgotten when the restore ends").isZero();
            long t1Pages = pageIds.stream().filter(pageId -> TestingPages.table(pageId.getFileId()).equals("t1")).count();
            assertThat(t1Pages).isPositive();
            assertThat(stats.getRestoreDiscardedFlushed()).isEqualTo(t1Pages);
            assertThat(stats.getPagesRestored()).isEqualTo(pageIds.size() - t1Pages);
            byte[] target = new byte[PAGE_SIZE];
            for (PageId pageId : pageIds) {
                if (TestingPages.table(pageId.getFileId()).equals("t1")) {
                    assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).as("flushed %s", pageId).isZero();
                }
                else {
                    assertHit(cache, pageId);
                }
            }
            // a flush after the restore is not remembered
            cache.expire("/warehouse/s/t3/written-after-the-restore");
            assertThat(cache.flushesDuringRestoreRetainedBytes()).isZero();
        }
        finally {
            restoreMayStart.countDown();
        }
    }

    private PageCacheConfig config()
    {
        return TestingPages.config(100_000L * PAGE_SIZE, directory);
    }

    private LocalPageCache open(PageCacheConfig config, PageCacheStats stats)
    {
        return new LocalPageCache(TestingPages.CATALOG, config, stats);
    }

    // starts a writer process, kills it (SIGKILL) once it has written at least this many pages, and lists its pages
    private List<Path> killWriterAfter(int pages)
            throws Exception
    {
        Process writer = startWriter(pages, "forever");
        Path marker = directory.resolve("written-" + pages);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!Files.exists(marker) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(marker).exists();
        writer.destroyForcibly();
        assertThat(writer.waitFor(1, TimeUnit.MINUTES)).isTrue();
        List<Path> pageFiles = pageFiles();
        assertThat(pageFiles.size()).isGreaterThanOrEqualTo(pages);
        return pageFiles;
    }

    // the pages the killed writer finished: the one it was writing may be torn, which the restore discards
    private static List<Path> intact(List<Path> pageFiles)
            throws IOException
    {
        List<Path> intact = new ArrayList<>();
        for (Path file : pageFiles) {
            byte[] frame = Files.readAllBytes(file);
            if (PageFrame.verify(frame, frame.length) >= 0) {
                intact.add(file);
            }
        }
        assertThat(intact.size()).isGreaterThanOrEqualTo(pageFiles.size() - 1);
        return intact;
    }

    private Process startWriter(int pages, String mode)
            throws IOException
    {
        return new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                PageCacheWriterMain.class.getName(),
                directory.toString(), Integer.toString(pages), mode)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("writer.log").toFile())
                .start();
    }

    private List<Path> pageFiles()
            throws IOException
    {
        return TestingPages.pageFiles(directory);
    }

    private static List<PageId> pageIds(List<Path> pageFiles)
    {
        return pageFiles.stream()
                .map(TestingPages::pageId)
                .toList();
    }

    private static long tableBytes(LocalPageCache cache, String table)
    {
        CacheScope scope = CacheScope.create("s." + table);
        return cache.directories().stream().mapToLong(directory -> directory.scopeBytes(scope)).sum();
    }

    private static void assertHit(PageCache cache, PageId pageId)
    {
        byte[] target = new byte[PAGE_SIZE];
        int length = TestingPages.length(pageId);
        assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).as("page %s", pageId).isEqualTo(length);
        assertThat(Arrays.copyOf(target, length)).isEqualTo(TestingPages.content(pageId, length));
    }
}
