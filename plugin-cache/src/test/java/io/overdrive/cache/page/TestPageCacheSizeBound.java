package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

import static io.overdrive.cache.page.TestingPages.PAGE_SIZE;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache must keep its size on disk, not only in its own accounting. Many threads write far more than the cache
 * holds into two directories of different sizes (with reads, file deletions and flushes mixed in) while a sampler walks
 * each directory on disk and adds up the sizes of the files it finds.
 * <p>
 * Bound during the storm: per directory, bytes on disk &le; max size + one frame ({@link PageFrame#frameLength} of a page)
 * per thread that can change the cache at that moment. Alluxio 2.9.6's {@code LocalCacheManager.putAttempt} decides
 * under the metadata lock: without eviction it adds the new page to the metadata (reserving its bytes) before the file
 * is written, so the disk holds less than the accounting; with eviction, phase 1 removes the victim from the metadata and
 * adds the new page (the accounting never passes Alluxio's capacity, which is {@code cache.max-size} less a share
 * for file system overhead), and only afterwards, outside the metadata lock, is the victim's file deleted and the new
 * one written. In between, the victim's file is on disk but no longer counted: at most one page per thread in a put, as
 * each attempt evicts one victim and deletes it before the next. Deletions do the same (metadata first, then the file,
 * one page at a time), and a failed read forgets one page. Hence at most one unaccounted frame per thread.
 * <p>
 * Everything under the catalog's subdirectory is counted, not only the page tree: a stray file (a temporary, a probe
 * page) would take space all the same. Outside the page tree there are only the directory's claim
 * ({@link DirectoryOwner#FILE_NAME}, a few bytes, added to the bound, and its empty {@link DirectoryOwner#LOCK_FILE_NAME}) and the file records ({@link CachedFiles}, one
 * small file per cached file, documented as outside {@code cache.max-size}, so not summed); any other is reported.
 * <p>
 * A walk is not a snapshot: it may count a victim seen early and the page that replaced it seen late, although the two
 * never were on disk together. So the asserted figure counts only the files last modified before the walk began (by the
 * file system's own clock, read from a marker file written just before the walk in the same file system): such a file
 * existed when the marker was written and still exists when visited, so all of them were on disk together at that
 * moment, and their sum never exceeds what was truly on disk then. The naive sum of the walk is reported alongside.
 */
class TestPageCacheSizeBound
{
    private static final int FRAME = PageFrame.frameLength(PAGE_SIZE);
    private static final int THREADS = 24;
    // two directories of different sizes; the files spread over both, so both evict all the time
    private static final long[] MAX_SIZES = {96L * PAGE_SIZE, 40L * PAGE_SIZE};
    private static final int FILES = 400;
    private static final int PAGES_PER_FILE = 8;
    // the storm lasts until it has written this many times the cache's size, at least MIN and at most MAX (a slow,
    // shared machine writes a few megabytes a second)
    private static final int TIMES_THE_SIZE = 20;
    private static final long MIN_STORM_NANOS = SECONDS.toNanos(3);
    private static final long MAX_STORM_NANOS = SECONDS.toNanos(15);

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void bytesOnDiskStayWithinTheSizeDuringAWriteStorm()
            throws Exception
    {
        PageCacheStats stats = new PageCacheStats();
        PageCacheConfig config = TestingPages.config(PAGE_SIZE, first, second)
                .setMaxSizes(MAX_SIZES[0] + "B," + MAX_SIZES[1] + "B");
        try (LocalPageCache cache = new LocalPageCache(TestingPages.CATALOG, config, stats)) {
            List<PageStoreDirectory> directories = cache.directories();
            assertThat(directories).hasSize(2);
            List<Path> bases = List.of(first, second);
            long[] bounds = new long[2];
            long[] capacities = new long[2];
            for (int i = 0; i < 2; i++) {
                assertThat(directories.get(i).path()).isEqualTo(TestingPages.catalogDirectory(bases.get(i)).toAbsolutePath());
                // Alluxio's own capacity: the configured size less a share for file system overhead (5%)
                capacities[i] = directories.get(i).availableBytes();
                assertThat(capacities[i]).isBetween(MAX_SIZES[i] * 9 / 10, MAX_SIZES[i]);
                long ownerBytes = Files.size(directories.get(i).path().resolve(DirectoryOwner.FILE_NAME));
                bounds[i] = MAX_SIZES[i] + (long) THREADS * FRAME + ownerBytes;
            }

            AtomicBoolean stormOver = new AtomicBoolean();
            Sampler sampler = new Sampler(directories, bases, bounds, stormOver);
            Thread samplerThread = Thread.ofPlatform().name("size-sampler").start(sampler);

            ExecutorService executor = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            AtomicLong hits = new AtomicLong();
            AtomicLong flushes = new AtomicLong();
            long capacity = MAX_SIZES[0] + MAX_SIZES[1];
            long startNanos = System.nanoTime();
            BooleanSupplier stormGoesOn = () -> {
                long elapsed = System.nanoTime() - startNanos;
                return elapsed < MIN_STORM_NANOS || (elapsed < MAX_STORM_NANOS && stats.getBytesWritten() < TIMES_THE_SIZE * capacity);
            };
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                int threadNumber = thread;
                futures.add(executor.submit(() -> {
                    start.await();
                    storm(cache, threadNumber, stormGoesOn, hits, flushes);
                    return null;
                }));
            }
            start.countDown();
            try {
                for (Future<?> future : futures) {
                    future.get(2, MINUTES);
                }
            }
            finally {
                stormOver.set(true);
                executor.shutdownNow();
                samplerThread.join(MINUTES.toMillis(1));
            }
            assertThat(executor.awaitTermination(1, MINUTES)).isTrue();
            assertThat(sampler.failure).as("the sampler failed").isNull();

            System.out.printf("page cache size bound: %s threads, %.1f s, %s bytes written (%.0fx the cache), %s pages written, %s hits, %s full flushes, %s puts refused, %s put errors, %s get errors, %s corrupt pages%n",
                    THREADS, (System.nanoTime() - startNanos) / 1e9, stats.getBytesWritten(), (double) stats.getBytesWritten() / capacity, stats.getPagesWritten(), hits.get(), flushes.get(), stats.getPutsRefused(),
                    stats.getPutErrors(), stats.getGetErrors(), stats.getCorruptPages());
            for (int i = 0; i < 2; i++) {
                System.out.printf("  directory %s: max size %s, Alluxio capacity %s, bound %s; %s samples; largest settled sum %s (over the max size by %s, %.1f frames); largest naive walk sum %s (over by %s, %.1f frames)%n",
                        i, MAX_SIZES[i], capacities[i], bounds[i], sampler.samples.get(i), sampler.maxSettled.get(i), sampler.maxSettled.get(i) - MAX_SIZES[i],
                        (double) (sampler.maxSettled.get(i) - MAX_SIZES[i]) / FRAME, sampler.maxNaive.get(i), sampler.maxNaive.get(i) - MAX_SIZES[i],
                        (double) (sampler.maxNaive.get(i) - MAX_SIZES[i]) / FRAME);
            }

            assertThat(stats.getBytesWritten()).as("the storm must write far more than the cache holds").isGreaterThanOrEqualTo(TIMES_THE_SIZE * capacity);
            assertThat(stats.getBytesEvicted()).isPositive();
            assertThat(flushes.get()).as("full flushes during the storm").isPositive();
            for (int i = 0; i < 2; i++) {
                assertThat(sampler.samples.get(i)).as("samples of directory %s", i).isGreaterThanOrEqualTo(20);
            }
            assertThat(sampler.violations).as("samples over the bound").isEmpty();
            assertThat(sampler.strayFiles).as("files outside the page tree other than the claim and the file records").isEmpty();
            assertThat(stats.getCorruptPages()).isZero();
            assertThat(stats.getDirectoriesDisabled()).isZero();

            // at rest: the disk holds exactly what the cache accounts for, within the size, and every page is intact
            long cachedBytes = 0;
            for (int i = 0; i < 2; i++) {
                PageStoreDirectory directory = directories.get(i);
                Map<PageId, Long> pages = pageFiles(directory.path());
                long onDisk = pages.values().stream().mapToLong(Long::longValue).sum();
                assertThat(onDisk).as("page bytes on disk in directory %s", i).isEqualTo(directory.usedBytes());
                assertThat(onDisk).as("page bytes on disk in directory %s", i).isLessThanOrEqualTo(capacities[i]);
                for (PageId pageId : pages.keySet()) {
                    assertThat(cache.contains(pageId)).as("the file of %s is known to the cache", pageId).isTrue();
                    byte[] stored = Files.readAllBytes(pagePath(directory.path(), pageId));
                    assertThat(PageFrame.decode(stored, stored.length)).as("stored bytes of %s", pageId).isEqualTo(expected(pageId));
                }
                cachedBytes += onDisk;
            }
            assertThat(stats.getBytesCached()).isEqualTo(cachedBytes);
        }
    }

    // a mix of what queries do: read a page, write it on a miss; now and then offer a page again, delete a file, flush
    private static void storm(LocalPageCache cache, int thread, BooleanSupplier goesOn, AtomicLong hits, AtomicLong flushes)
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] target = new byte[PAGE_SIZE];
        long operations = 0;
        while (goesOn.getAsBoolean()) {
            operations++;
            String fileId = "file-" + random.nextInt(FILES);
            int choice = random.nextInt(1000);
            if (choice < 15) {
                cache.deleteFile(fileId);
                continue;
            }
            if (choice < 20) {
                cache.expire(path(fileId));
                continue;
            }
            if (choice < 21) {
                int modulus = 2 + random.nextInt(20);
                cache.invalidatePaths(path -> path.hashCode() % modulus == 0);
                continue;
            }
            if (thread == 0 && operations % 40 == 0) {
                // flush_cache without arguments: Alluxio walks the directories on disk while the others keep writing
                cache.invalidateAll();
                flushes.incrementAndGet();
                continue;
            }
            PageId pageId = new PageId(fileId, random.nextInt(PAGES_PER_FILE));
            byte[] expected = expected(pageId);
            if (choice < 120) {
                // a page offered although it may be cached already (a footer read alone, then within a larger read)
                write(cache, pageId, expected);
                continue;
            }
            int offset = random.nextInt(expected.length);
            cache.recordAccess(pageId);
            int read = cache.read(pageId, offset, PAGE_SIZE, target, 0);
            if (read > 0) {
                hits.incrementAndGet();
                assertThat(read).as("bytes read of %s from %s", pageId, offset).isEqualTo(expected.length - offset);
                assertThat(Arrays.copyOf(target, read)).as("bytes of %s from %s", pageId, offset).isEqualTo(Arrays.copyOfRange(expected, offset, expected.length));
            }
            else {
                write(cache, pageId, expected);
            }
        }
    }

    private static void write(LocalPageCache cache, PageId pageId, byte[] page)
    {
        cache.write(path(pageId.getFileId()), pageId, ByteBuffer.wrap(page), CacheReadContext.UNKNOWN);
    }

    private static String path(String fileId)
    {
        return "/" + fileId;
    }

    // the bytes of a page are a pure function of its id (as a file id names one version of a file)
    private static byte[] expected(PageId pageId)
    {
        return TestingPages.content(pageId, TestingPages.length(pageId));
    }

    // <catalog directory>/LOCAL/<page size>/<bucket>/<file id>/<page index>
    private static Path pageTree(Path directory)
    {
        return directory.resolve("LOCAL").resolve(Integer.toString(PAGE_SIZE));
    }

    private static Path pagePath(Path directory, PageId pageId)
    {
        Path tree = pageTree(directory);
        try (var buckets = Files.list(tree)) {
            return buckets.map(bucket -> bucket.resolve(pageId.getFileId()).resolve(Long.toString(pageId.getPageIndex())))
                    .filter(Files::isRegularFile)
                    .findFirst()
                    .orElseThrow();
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The page files under a directory at rest, by page id, with their sizes. */
    private static Map<PageId, Long> pageFiles(Path directory)
            throws IOException
    {
        Path tree = pageTree(directory);
        Map<PageId, Long> pages = new HashMap<>();
        try (var files = Files.walk(directory)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (file.equals(directory.resolve(DirectoryOwner.FILE_NAME)) || file.equals(directory.resolve(DirectoryOwner.LOCK_FILE_NAME)) || file.startsWith(directory.resolve(CachedFiles.DIRECTORY))) {
                    continue;
                }
                assertThat(file.startsWith(tree)).as("%s is a page file", file).isTrue();
                Path relative = tree.relativize(file);
                assertThat(relative.getNameCount()).as("%s is a page file", file).isEqualTo(3);
                PageId pageId = new PageId(relative.getName(1).toString(), Long.parseLong(relative.getName(2).toString()));
                assertThat(pages.put(pageId, Files.size(file))).as("%s is stored once", pageId).isNull();
            }
        }
        return pages;
    }

    /** Walks each directory in turn until the storm is over, keeping the largest sums and any sample over its bound. */
    private static final class Sampler
            implements Runnable
    {
        private final List<PageStoreDirectory> directories;
        private final List<Path> bases;
        private final long[] bounds;
        private final AtomicBoolean stormOver;
        final AtomicLongArray samples = new AtomicLongArray(2);
        final AtomicLongArray maxSettled = new AtomicLongArray(2);
        final AtomicLongArray maxNaive = new AtomicLongArray(2);
        final List<String> violations = new ArrayList<>();
        final Set<Path> strayFiles = ConcurrentHashMap.newKeySet();
        volatile Throwable failure;

        Sampler(List<PageStoreDirectory> directories, List<Path> bases, long[] bounds, AtomicBoolean stormOver)
        {
            this.directories = requireNonNull(directories, "directories is null");
            this.bases = requireNonNull(bases, "bases is null");
            this.bounds = bounds.clone();
            this.stormOver = requireNonNull(stormOver, "stormOver is null");
        }

        @Override
        public void run()
        {
            try {
                while (!stormOver.get()) {
                    for (int i = 0; i < directories.size(); i++) {
                        sample(i);
                    }
                }
            }
            catch (Throwable e) {
                failure = e;
            }
        }

        private void sample(int index)
                throws IOException
        {
            Path directory = directories.get(index).path();
            // the marker is in the same file system as the pages (outside the catalog's subdirectory), so that both
            // carry time stamps of the same clock and granularity
            Path marker = bases.get(index).resolve("sampler-clock");
            Files.writeString(marker, "now");
            FileTime walkStart = Files.getLastModifiedTime(marker);
            Path owner = directory.resolve(DirectoryOwner.FILE_NAME);
            Path lock = directory.resolve(DirectoryOwner.LOCK_FILE_NAME);
            Path pageRoot = directory.resolve("LOCAL");
            Path records = directory.resolve(CachedFiles.DIRECTORY);
            long[] sums = new long[2];
            Files.walkFileTree(directory, new SimpleFileVisitor<>()
            {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                {
                    if (!attributes.isRegularFile()) {
                        return FileVisitResult.CONTINUE;
                    }
                    if (file.startsWith(records)) {
                        return FileVisitResult.CONTINUE;
                    }
                    if (!file.startsWith(pageRoot) && !file.equals(owner) && !file.equals(lock)) {
                        strayFiles.add(file);
                    }
                    sums[0] += attributes.size();
                    // strictly older than the marker: a file modified in the same clock tick may be newer
                    if (attributes.lastModifiedTime().compareTo(walkStart) < 0) {
                        sums[1] += attributes.size();
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e)
                        throws IOException
                {
                    // deleted between listing and looking at it: gone, so not on disk
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path file, IOException e)
                        throws IOException
                {
                    // a page's folder removed while it was listed (Alluxio removes a file's folder with its last page)
                    if (e == null || e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
            samples.incrementAndGet(index);
            maxNaive.accumulateAndGet(index, sums[0], Math::max);
            maxSettled.accumulateAndGet(index, sums[1], Math::max);
            if (sums[1] > bounds[index]) {
                synchronized (violations) {
                    violations.add("directory %s: %s bytes on disk, bound %s".formatted(index, sums[1], bounds[index]));
                }
            }
        }
    }
}
