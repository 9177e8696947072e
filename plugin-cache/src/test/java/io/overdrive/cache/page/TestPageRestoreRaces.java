package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageStore;
import com.google.common.base.Ticker;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static com.google.common.io.MoreFiles.deleteRecursively;
import static com.google.common.io.RecursiveDeleteOption.ALLOW_INSECURE;
import static com.google.common.util.concurrent.Uninterruptibles.awaitUninterruptibly;
import static io.overdrive.cache.page.PageFrame.CHUNK_SIZE;
import static io.overdrive.cache.page.TestingPages.CATALOG;
import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The restore walks a cache directory while the cache writes, evicts, fills and deletes pages in it, so files and folders
 * vanish, appear and change between the walk listing them and looking at, reading or deleting them. Each race here is
 * made to happen exactly between two steps of the walk ({@link PageRestore.Hooks}, or a fill held between writing its
 * {@code .fill} file and renaming it), never by timing luck. The walk must go on with the rest of the directory,
 * register what is still there, delete what must go, and count no race as an I/O error: one error takes the directory
 * out of use here.
 */
class TestPageRestoreRaces
{
    private static final Duration RESTORE_TIMEOUT = new Duration(1, MINUTES);
    private static final int FILES = 12;
    private static final int PAGES_PER_FILE = 5;
    // two chunks: a page written in part is filled in later through a .fill file
    private static final int FILL_PAGE_SIZE = 2 * CHUNK_SIZE;

    @TempDir
    Path directory;

    @Test
    void pageDeletedBetweenListingAndLookingAtIt()
            throws Exception
    {
        seed();
        AtomicReference<Path> removed = new AtomicReference<>();
        PageCacheStats stats = restoreAndCheck(new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                if (isFileFolder(folder) && removed.compareAndSet(null, entries.getFirst())) {
                    remove(entries.getFirst());
                }
            }
        });
        assertThat(removed.get()).isNotNull();
        assertThat(stats.getPagesRestored()).isEqualTo(FILES * PAGES_PER_FILE - 1);
        assertNothingDiscarded(stats);
    }

    @Test
    void fileFolderDeletedBetweenListingAndLookingAtIt()
            throws Exception
    {
        seed();
        AtomicInteger removedPages = new AtomicInteger(-1);
        PageCacheStats stats = restoreAndCheck(new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                if (isBucket(folder) && removedPages.compareAndSet(-1, fileCount(entries.getFirst()))) {
                    remove(entries.getFirst());
                }
            }
        });
        assertThat(removedPages.get()).isEqualTo(PAGES_PER_FILE);
        assertThat(stats.getPagesRestored()).isEqualTo(FILES * PAGES_PER_FILE - PAGES_PER_FILE);
        assertThat(stats.getRestoreDiscardedCorrupt()).isZero();
        // the record of the file whose pages went is swept at the end
        assertThat(stats.getRestoreDiscardedOrphans()).isEqualTo(1);
    }

    @Test
    void bucketDeletedBetweenListingAndLookingAtIt()
            throws Exception
    {
        seed();
        AtomicInteger removedPages = new AtomicInteger(-1);
        AtomicInteger removedFiles = new AtomicInteger();
        PageCacheStats stats = restoreAndCheck(new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                if (folder.equals(pagesOfThisSize()) && removedPages.compareAndSet(-1, fileCount(entries.getFirst()))) {
                    removedFiles.set(entriesOf(entries.getFirst()).size());
                    remove(entries.getFirst());
                }
            }
        });
        assertThat(removedFiles.get()).isPositive();
        assertThat(stats.getPagesRestored()).isEqualTo(FILES * PAGES_PER_FILE - removedPages.get());
        assertThat(stats.getRestoreDiscardedCorrupt()).isZero();
        assertThat(stats.getRestoreDiscardedOrphans()).isEqualTo(removedFiles.get());
    }

    @Test
    void fileFoldersDeletedAfterTheyWereFoundAndBeforeTheirTurn()
            throws Exception
    {
        seed();
        AtomicReference<Path> first = new AtomicReference<>();
        PageCacheStats stats = restoreAndCheck(new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                // while the first file is restored, the pages of every other one go (evicted or flushed)
                if (isFileFolder(folder) && first.compareAndSet(null, folder)) {
                    for (Path bucket : entriesOf(pagesOfThisSize())) {
                        entriesOf(bucket).stream()
                                .filter(fileFolder -> !fileFolder.equals(folder))
                                .forEach(TestPageRestoreRaces::remove);
                    }
                }
            }
        });
        assertThat(stats.getRestoreFilesFound()).isEqualTo(FILES);
        assertThat(stats.getPagesRestored()).isEqualTo(PAGES_PER_FILE);
        assertNothingDiscarded(stats);
        // the records of the files whose pages went are deleted with them
        assertThat(fileCount(TestingPages.catalogDirectory(directory).resolve(CachedFiles.DIRECTORY))).isEqualTo(1);
    }

    @Test
    void pageDeletedBetweenLookingAtItAndReadingIt()
            throws Exception
    {
        seed();
        AtomicReference<Path> removed = new AtomicReference<>();
        PageCacheStats stats = restoreAndCheck(new PageRestore.Hooks()
        {
            @Override
            public void beforeRead(Path pageFile)
            {
                if (removed.compareAndSet(null, pageFile)) {
                    remove(pageFile);
                }
            }
        });
        assertThat(removed.get()).isNotNull();
        assertThat(stats.getPagesRestored()).isEqualTo(FILES * PAGES_PER_FILE - 1);
        assertNothingDiscarded(stats);
    }

    @Test
    void straysAreDeletedAndCounted()
            throws Exception
    {
        seed();
        Set<Path> strays = addStrays();
        PageCacheStats stats = restoreAndCheck(PageRestore.Hooks.NONE);
        assertThat(strays).allMatch(stray -> !Files.exists(stray));
        assertThat(stats.getPagesRestored()).isEqualTo(FILES * PAGES_PER_FILE);
        // a page of another page size, a file where a file's folder belongs, a file that is no page, a stray fill
        assertThat(stats.getRestoreDiscardedOrphans()).isEqualTo(4);
    }

    @Test
    void straysGoneBeforeTheRestoreDeletesThem()
            throws Exception
    {
        seed();
        Set<Path> strays = addStrays();
        AtomicInteger removed = new AtomicInteger();
        PageCacheStats stats = restoreAndCheck(new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                entries.stream().filter(strays::contains).forEach(stray -> {
                    remove(stray);
                    removed.incrementAndGet();
                });
            }
        });
        assertThat(removed.get()).isEqualTo(strays.size());
        assertThat(stats.getPagesRestored()).isEqualTo(FILES * PAGES_PER_FILE);
        assertNothingDiscarded(stats);
    }

    @Test
    void fillInFlightIsNeverDeleted()
            throws Exception
    {
        String fileId = "file-f";
        PageId filled = new PageId(fileId, 0);
        byte[] content = TestingPages.content(filled, FILL_PAGE_SIZE);
        // an earlier run left three pages of the file, and a .fill file of page 1
        try (LocalPageCache cache = new LocalPageCache(CATALOG, fillConfig(), new PageCacheStats())) {
            for (int index = 0; index < 3; index++) {
                PageId pageId = new PageId(fileId, index);
                cache.write(TestingPages.path(fileId), pageId, ByteBuffer.wrap(TestingPages.content(pageId, FILL_PAGE_SIZE)), TestingPages.context(fileId));
            }
        }
        Path fileFolder = TestingPages.pageFiles(directory).getFirst().getParent();
        Path strayFill = Files.copy(fileFolder.resolve("1"), fileFolder.resolve("1.fill"));
        TestingPages.writtenAnHourAgo(directory);

        PageCacheStats stats = new PageCacheStats();
        CountDownLatch restoreMayStart = new CountDownLatch(1);
        CountDownLatch fileFolderListed = new CountDownLatch(1);
        AtomicReference<Thread> restoreThread = new AtomicReference<>();
        PageRestore.Hooks hooks = new PageRestore.Hooks()
        {
            @Override
            public void listed(Path folder, List<Path> entries)
            {
                if (folder.equals(fileFolder)) {
                    fileFolderListed.countDown();
                }
            }
        };
        Runnable beforeRestore = () -> {
            restoreThread.set(Thread.currentThread());
            awaitUninterruptibly(restoreMayStart);
        };
        ExecutorService filler = Executors.newSingleThreadExecutor();
        try (LocalPageCache cache = new LocalPageCache(CATALOG, fillConfig(), stats, beforeRestore, hooks)) {
            PageStoreDirectory store = cache.directories().getFirst();
            // page 0 written again in part before the restore reaches it, so that the next part fills it in
            cache.writePart(TestingPages.path(fileId), filled, FILL_PAGE_SIZE, 0, ByteBuffer.wrap(content, 0, CHUNK_SIZE), TestingPages.context(fileId));
            // the fill is held with its .fill file written until the restore has listed the file's folder and then
            // either waits for the fill (parked) or is done
            CountDownLatch fillWritten = new CountDownLatch(1);
            store.setBeforeFillRename(_ -> {
                fillWritten.countDown();
                waitUntil(() -> fileFolderListed.getCount() == 0);
                waitUntil(() -> !store.restoring() || isParked(restoreThread.get()));
            });
            Future<?> fill = filler.submit(() -> cache.writePart(TestingPages.path(fileId), filled, FILL_PAGE_SIZE, CHUNK_SIZE, ByteBuffer.wrap(content, CHUNK_SIZE, CHUNK_SIZE), TestingPages.context(fileId)));
            assertThat(fillWritten.await(30, SECONDS)).isTrue();
            restoreMayStart.countDown();
            fill.get(1, MINUTES);
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();

            assertThat(stats.getPutErrors()).as("the fill's rename found its file").isZero();
            assertThat(stats.getDirectoriesDisabled()).isZero();
            assertThat(stats.getRestoresFailed()).isZero();
            byte[] target = new byte[FILL_PAGE_SIZE];
            assertThat(cache.read(filled, 0, FILL_PAGE_SIZE, target, 0)).as("both parts of the filled page").isEqualTo(FILL_PAGE_SIZE);
            assertThat(target).isEqualTo(content);
            // the earlier run's fill is deleted all the same
            assertThat(strayFill).doesNotExist();
            assertThat(stats.getRestoreDiscardedOrphans()).isEqualTo(1);
            assertThat(stats.getPagesRestored()).isEqualTo(2);
            TestingPages.assertEveryPageFileRegistered(cache, directory);
        }
        finally {
            restoreMayStart.countDown();
            filler.shutdownNow();
        }
    }

    @Test
    void fillWhoseFileVanishesIsNoDiskFault()
            throws Exception
    {
        String fileId = "file-v";
        PageId pageId = new PageId(fileId, 0);
        byte[] content = TestingPages.content(pageId, FILL_PAGE_SIZE);
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(CATALOG, fillConfig(), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            cache.writePart(TestingPages.path(fileId), pageId, FILL_PAGE_SIZE, 0, ByteBuffer.wrap(content, 0, CHUNK_SIZE), TestingPages.context(fileId));
            // deleted by something else between its write and its rename
            cache.directories().getFirst().setBeforeFillRename(TestPageRestoreRaces::remove);
            cache.writePart(TestingPages.path(fileId), pageId, FILL_PAGE_SIZE, CHUNK_SIZE, ByteBuffer.wrap(content, CHUNK_SIZE, CHUNK_SIZE), TestingPages.context(fileId));

            assertThat(stats.getPutErrors()).isZero();
            assertThat(stats.getDirectoriesDisabled()).isZero();
            assertThat(cache.directories().getFirst().isEnabled()).isTrue();
            // the page keeps the part it had
            byte[] target = new byte[CHUNK_SIZE];
            assertThat(cache.read(pageId, 0, CHUNK_SIZE, target, 0)).isEqualTo(CHUNK_SIZE);
            assertThat(target).isEqualTo(Arrays.copyOf(content, CHUNK_SIZE));
            assertThat(cache.read(pageId, CHUNK_SIZE, CHUNK_SIZE, target, 0)).isZero();
            TestingPages.assertEveryPageFileRegistered(cache, directory);
        }
    }

    @Test
    void fillWhoseCacheDirectoryVanishesIsADiskFault()
            throws Exception
    {
        String fileId = "file-d";
        PageId pageId = new PageId(fileId, 0);
        byte[] content = TestingPages.content(pageId, FILL_PAGE_SIZE);
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(CATALOG, fillConfig(), stats)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            cache.writePart(TestingPages.path(fileId), pageId, FILL_PAGE_SIZE, 0, ByteBuffer.wrap(content, 0, CHUNK_SIZE), TestingPages.context(fileId));
            // every page file gone with its folders: the disk was swapped or wiped under the cache
            cache.directories().getFirst().setBeforeFillRename(_ -> remove(TestingPages.pageRoot(directory)));
            cache.writePart(TestingPages.path(fileId), pageId, FILL_PAGE_SIZE, CHUNK_SIZE, ByteBuffer.wrap(content, CHUNK_SIZE, CHUNK_SIZE), TestingPages.context(fileId));

            assertThat(stats.getPutErrors()).isEqualTo(1);
            assertThat(stats.getDirectoriesDisabled()).isEqualTo(1);
        }
    }

    @Test
    void pageFileGoneWhenTheCacheDeletesItIsNoDiskFault()
            throws Exception
    {
        // the cache manager forgets a page, then deletes its file; the restore deletes the file of a page the cache
        // manager does not hold, in between: the store then finds the file gone between looking for it and deleting it
        PageCacheStats stats = new PageCacheStats();
        DirectoryHealth health = new DirectoryHealth(directory, 1, new Duration(1, MINUTES), Ticker.systemTicker(), stats);
        PageStore vanished = (PageStore) Proxy.newProxyInstance(PageStore.class.getClassLoader(), new Class<?>[] {PageStore.class}, (_, method, arguments) -> {
            if (method.getName().equals("delete")) {
                throw new NoSuchFileException(directory.resolve("LOCAL/4096/0/file/" + ((PageId) arguments[0]).getPageIndex()).toString());
            }
            throw new UnsupportedOperationException(method.getName());
        });
        FaultReportingPageStore store = new FaultReportingPageStore(vanished, health, stats);
        store.delete(new PageId("file", 0), false);
        assertThat(health.isEnabled()).isTrue();
        assertThat(stats.getDirectoriesDisabled()).isZero();

        // any other failure to delete is one
        PageStore failing = (PageStore) Proxy.newProxyInstance(PageStore.class.getClassLoader(), new Class<?>[] {PageStore.class}, (_, _, _) -> {
            throw new AccessDeniedException(directory.toString());
        });
        FaultReportingPageStore failingStore = new FaultReportingPageStore(failing, health, stats);
        assertThatThrownBy(() -> failingStore.delete(new PageId("file", 0), false)).isInstanceOf(AccessDeniedException.class);
        assertThat(health.isEnabled()).isFalse();
    }

    // an earlier run's pages, written an hour ago
    private void seed()
            throws IOException
    {
        try (LocalPageCache cache = new LocalPageCache(CATALOG, config(), new PageCacheStats())) {
            for (int file = 0; file < FILES; file++) {
                String fileId = "file-" + file;
                for (int index = 0; index < PAGES_PER_FILE; index++) {
                    PageId pageId = new PageId(fileId, index);
                    cache.write(TestingPages.path(fileId), pageId, ByteBuffer.wrap(TestingPages.content(pageId, TestingPages.length(pageId))), TestingPages.context(fileId));
                }
            }
        }
        assertThat(TestingPages.pageFiles(directory)).hasSize(FILES * PAGES_PER_FILE);
        TestingPages.writtenAnHourAgo(directory);
    }

    // files the cache never writes where the restore walks: each is one file to delete
    private Set<Path> addStrays()
            throws IOException
    {
        Path firstPage = TestingPages.pageFiles(directory).getFirst();
        Path fileFolder = firstPage.getParent();
        Path otherPageSize = TestingPages.pageRoot(directory).resolve(Integer.toString(2 * PAGE_SIZE));
        Files.createDirectories(otherPageSize.resolve("0").resolve("file-0"));
        Files.copy(firstPage, otherPageSize.resolve("0").resolve("file-0").resolve("0"));
        Path notAFolder = Files.writeString(fileFolder.getParent().resolve("notes.txt"), "not a file's folder");
        Path notAPage = Files.writeString(fileFolder.resolve("notes.txt"), "not a page");
        Path fill = Files.copy(firstPage, fileFolder.resolve(firstPage.getFileName() + ".fill"));
        TestingPages.writtenAnHourAgo(directory);
        return Set.of(otherPageSize, notAFolder, notAPage, fill);
    }

    // restores the seeded directory with the hooks, and checks what no race may change: the restore neither failed nor
    // counted an I/O error, every page file left on disk is registered and served with its bytes
    private PageCacheStats restoreAndCheck(PageRestore.Hooks hooks)
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        try (LocalPageCache cache = new LocalPageCache(CATALOG, config(), stats, () -> {}, hooks)) {
            assertThat(cache.awaitRestore(RESTORE_TIMEOUT)).isTrue();
            assertThat(stats.getRestoresFailed()).isZero();
            assertThat(stats.getDirectoriesDisabled()).isZero();
            assertThat(stats.getGetErrors() + stats.getPutErrors()).isZero();
            TestingPages.assertEveryPageFileRegistered(cache, directory);
            List<Path> pageFiles = TestingPages.pageFiles(directory);
            assertThat((long) pageFiles.size()).isEqualTo(stats.getPagesRestored());
            byte[] target = new byte[PAGE_SIZE];
            for (Path pageFile : pageFiles) {
                PageId pageId = TestingPages.pageId(pageFile);
                int length = TestingPages.length(pageId);
                assertThat(cache.read(pageId, 0, PAGE_SIZE, target, 0)).as("page %s", pageId).isEqualTo(length);
                assertThat(Arrays.copyOf(target, length)).as("page %s", pageId).isEqualTo(TestingPages.content(pageId, length));
            }
        }
        return stats;
    }

    private static void assertNothingDiscarded(PageCacheStats stats)
    {
        assertThat(stats.getRestoreDiscardedCorrupt()).isZero();
        assertThat(stats.getRestoreDiscardedOrphans()).isZero();
        assertThat(stats.getRestoreDiscardedNoRoom()).isZero();
        assertThat(stats.getRestoreDiscardedFlushed()).isZero();
    }

    private PageCacheConfig config()
    {
        return TestingPages.config(100L * FILES * PAGES_PER_FILE * PAGE_SIZE, directory).setDirectoryFailureThreshold(1);
    }

    private PageCacheConfig fillConfig()
    {
        return TestingPages.config(100L * FILL_PAGE_SIZE, directory)
                .setPageSize(DataSize.ofBytes(FILL_PAGE_SIZE))
                .setDirectoryFailureThreshold(1);
    }

    private Path pagesOfThisSize()
    {
        return TestingPages.pageRoot(directory).resolve(Integer.toString(PAGE_SIZE));
    }

    private boolean isBucket(Path folder)
    {
        return pagesOfThisSize().equals(folder.getParent());
    }

    private boolean isFileFolder(Path folder)
    {
        return folder.getParent() != null && pagesOfThisSize().equals(folder.getParent().getParent());
    }

    private static boolean isParked(Thread thread)
    {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }

    private static void waitUntil(BooleanSupplier condition)
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(30);
        while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    private static List<Path> entriesOf(Path folder)
    {
        try (var entries = Files.list(folder)) {
            return entries.toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int fileCount(Path path)
    {
        try (var paths = Files.walk(path)) {
            return (int) paths.filter(Files::isRegularFile).count();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void remove(Path path)
    {
        try {
            deleteRecursively(path, ALLOW_INSECURE);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
