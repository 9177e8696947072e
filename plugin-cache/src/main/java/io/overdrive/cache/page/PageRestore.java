package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.quota.CacheScope;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * Restores the pages a previous process left in a cache directory, in the background while the cache serves: a page
 * is served once it is registered. Each page is registered with what a new write of it would get: its file's path (for
 * flushes by path, schema or table), its table's scope (for quotas) and its write time, the file's modification time
 * (for {@code cache.ttl}). Every chunk's checksum and
 * the trailer are verified here (hits verify only the chunks they read). Torn or corrupt pages, pages of the earlier
 * on-disk format (one checksum per page), pages whose {@link CachedFile} record
 * is missing (orphans), expired pages and pages that no longer fit are deleted and counted. Files are restored one at a
 * time; progress is counted in files. A page a reader asks for before the restore reaches it is restored there and then
 * ({@link #restoreOnRead}), so that the read is a hit.
 */
final class PageRestore
{
    private static final Logger log = Logger.get(PageRestore.class);

    /** What the catalog's cache decides for a recovered page, as it would for a new write. */
    interface Owner
    {
        /** The scope its pages are accounted in ({@link CacheScope#GLOBAL} without quotas). */
        CacheScope scope(CachedFile file);

        /** Whether {@code bytes} more of the scope fit within its quotas. */
        boolean fitsQuota(CacheScope scope, long bytes);

        /** Whether a flush since the start removed the file at {@code path}: its pages are then not restored. */
        boolean flushed(String path);

        /** The file's pages may be found in this cache from now on: index its path. */
        void indexFile(String path, String fileId);

        /** None of the file's pages was restored. */
        void unindexFile(String fileId);
    }

    private record PageFile(Path path, PageId pageId, long size, long writtenMillis) {}

    private final PageStoreDirectory directory;
    private final int pageSize;
    private final int maxFrameSize;
    private final Optional<Duration> ttl;
    private final Owner owner;
    private final PageCacheStats stats;
    private final BooleanSupplier stopped;
    // records and temporary files written since are this process's own; the margin covers the file system's coarser
    // clock, and no previous process wrote anything a second before this one started
    private final long startMillis = System.currentTimeMillis() - 1000;

    PageRestore(PageStoreDirectory directory, int pageSize, Optional<Duration> ttl, Owner owner, PageCacheStats stats, BooleanSupplier stopped)
    {
        this.directory = requireNonNull(directory, "directory is null");
        this.pageSize = pageSize;
        this.maxFrameSize = PageFrame.frameLength(pageSize);
        this.ttl = requireNonNull(ttl, "ttl is null");
        this.owner = requireNonNull(owner, "owner is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.stopped = requireNonNull(stopped, "stopped is null");
    }

    void run()
    {
        long start = System.nanoTime();
        try {
            restore();
        }
        catch (IOException | RuntimeException e) {
            // what was registered stays usable; what was not is left on disk for the next restart
            log.error(e, "Restoring the cache directory %s failed", directory.path());
        }
        finally {
            directory.endRestore();
            stats.recordRestoreFinished();
            log.info("Restored cache directory %s in %s", directory.path(), Duration.nanosSince(start).convertToMostSuccinctTimeUnit());
        }
    }

    /**
     * Restores a page a reader asks for before the restore reaches it, with the same checks: whether the page is
     * registered now. A page that cannot be restored (corrupt, expired, no room, its file flushed, no record) is left to
     * the restore, which deletes and counts it when its turn comes.
     */
    boolean restoreOnRead(PageId pageId)
    {
        if (!directory.restoring()) {
            // it ended after the reader's miss, having registered the page meanwhile or not
            return directory.contains(pageId);
        }
        Optional<Path> path = directory.pagePath(pageId);
        if (path.isEmpty()) {
            return false;
        }
        try {
            BasicFileAttributes attributes = Files.readAttributes(path.get(), BasicFileAttributes.class);
            Optional<CachedFile> file = directory.cachedFiles().peek(pageId.getFileId());
            // as the restore does: registered in the set a flush withdraws from, then indexed, then checked for flushes
            if (file.isEmpty()) {
                return false;
            }
            if (!directory.beginRestore(pageId.getFileId())) {
                return directory.contains(pageId);
            }
            owner.indexFile(file.get().path(), pageId.getFileId());
            PageFile page = new PageFile(path.get(), pageId, attributes.size(), attributes.lastModifiedTime().toMillis());
            return switch (restore(page, file.get())) {
                case RESTORED -> {
                    stats.recordRestoredPage(RestoreOutcome.RESTORED);
                    stats.recordRestoredOnRead();
                    yield true;
                }
                case PRESENT -> true;
                default -> false;
            };
        }
        catch (NoSuchFileException e) {
            // not on disk: a plain miss
            return false;
        }
        catch (IOException | RuntimeException e) {
            // the read goes to remote storage; the restore deals with the page when its turn comes
            log.debug(e, "Restoring page %s of %s on read failed", pageId, directory.path());
            return false;
        }
    }

    /**
     * Whether the page's file is on disk, waiting for the restore (or for a read, which restores it): a read-ahead need not
     * fetch it. Its checks come with the read.
     */
    boolean waiting(PageId pageId)
    {
        return directory.restoring() && directory.pagePath(pageId).map(Files::isRegularFile).orElse(false);
    }

    private void restore()
            throws IOException
    {
        // a file's record and pages are read only when its turn comes, so that the first pages are served within moments
        List<Path> fileDirectories = listFileDirectories();
        stats.recordRestoreFound(fileDirectories.size());
        Set<String> listed = new HashSet<>();
        for (Path fileDirectory : fileDirectories) {
            if (stopped.getAsBoolean()) {
                return;
            }
            String fileId = fileDirectory.getFileName().toString();
            listed.add(fileId);
            restoreFile(fileId, fileDirectory);
            stats.recordRestoreFileDone();
        }
        // records of files with no page left (evicted before the restart), damaged records, temporary files
        CachedFiles.Swept swept = directory.cachedFiles().sweep(fileId -> listed.contains(fileId) || directory.hasPages(fileId), startMillis);
        stats.recordRestoreDiscarded(RestoreOutcome.ORPHAN, swept.unused() + swept.strays());
        stats.recordRestoreDiscarded(RestoreOutcome.CORRUPT, swept.damaged());
    }

    private void restoreFile(String fileId, Path fileDirectory)
            throws IOException
    {
        CachedFiles.Lookup record = directory.cachedFiles().read(fileId);
        if (record.damaged()) {
            stats.recordRestoreDiscarded(RestoreOutcome.CORRUPT, 1);
        }
        Optional<CachedFile> file = record.file();
        if (file.isPresent()) {
            // indexed before its pages are registered, so that a flush meanwhile finds the file and withdraws it
            if (!directory.beginRestore(fileId)) {
                return;
            }
            owner.indexFile(file.get().path(), fileId);
        }
        boolean restored = false;
        for (PageFile page : listPages(fileDirectory)) {
            RestoreOutcome outcome = restore(page, file.orElse(null));
            switch (outcome) {
                case RESTORED -> restored = true;
                case PRESENT -> {}
                default -> directory.discardUnregistered(page.pageId(), page.path());
            }
            stats.recordRestoredPage(outcome);
        }
        if (file.isPresent() && !restored && directory.discardRecordIfUnused(fileId, startMillis)) {
            owner.unindexFile(fileId);
        }
    }

    private RestoreOutcome restore(PageFile page, CachedFile file)
    {
        if (file == null) {
            return RestoreOutcome.ORPHAN;
        }
        if (owner.flushed(file.path())) {
            return RestoreOutcome.FLUSHED;
        }
        if (ttl.isPresent() && System.currentTimeMillis() - page.writtenMillis() >= ttl.get().toMillis()) {
            return RestoreOutcome.EXPIRED;
        }
        if (page.size() > maxFrameSize) {
            return RestoreOutcome.CORRUPT;
        }
        byte[] frame;
        try {
            frame = Files.readAllBytes(page.path());
        }
        catch (NoSuchFileException e) {
            // deleted since it was listed (an eviction of the page written again since the start, a flush)
            return RestoreOutcome.PRESENT;
        }
        catch (IOException e) {
            // a reader interrupted while it restores the page on read (a cancelled query) found no disk error
            if (!DirectoryHealth.isInterrupt(e)) {
                stats.recordGetError();
                directory.health().failed("restore", e);
            }
            return RestoreOutcome.CORRUPT;
        }
        if (frame.length != page.size() || PageFrame.verify(frame, frame.length) < 0) {
            return RestoreOutcome.CORRUPT;
        }
        CacheScope scope = owner.scope(file);
        if (!owner.fitsQuota(scope, frame.length)) {
            return RestoreOutcome.NO_ROOM;
        }
        return switch (directory.register(page.pageId(), frame.length, scope, page.writtenMillis())) {
            case REGISTERED -> RestoreOutcome.RESTORED;
            case PRESENT -> RestoreOutcome.PRESENT;
            case NO_ROOM -> RestoreOutcome.NO_ROOM;
            case WITHDRAWN -> RestoreOutcome.FLUSHED;
        };
    }

    // the directories of cached files: <page root>/<page size>/<bucket>/<file id>; anything else there is deleted
    private List<Path> listFileDirectories()
            throws IOException
    {
        Path pagesOfThisSize = directory.pageRoot().resolve(Integer.toString(pageSize));
        List<Path> fileDirectories = new ArrayList<>();
        for (Path entry : list(directory.pageRoot())) {
            if (!entry.equals(pagesOfThisSize)) {
                // pages of another cache.page-size, which this cache cannot serve
                discardStray(entry);
            }
        }
        for (Path bucket : list(pagesOfThisSize)) {
            if (!Files.isDirectory(bucket)) {
                discardStray(bucket);
                continue;
            }
            for (Path fileDirectory : list(bucket)) {
                if (Files.isDirectory(fileDirectory)) {
                    fileDirectories.add(fileDirectory);
                }
                else {
                    discardStray(fileDirectory);
                }
            }
        }
        return fileDirectories;
    }

    private List<PageFile> listPages(Path fileDirectory)
            throws IOException
    {
        List<PageFile> pages = new ArrayList<>();
        for (Path path : list(fileDirectory)) {
            Optional<PageId> pageId = directory.pageIdOf(path);
            if (pageId.isEmpty() || !Files.isRegularFile(path)) {
                discardStray(path);
                continue;
            }
            try {
                BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
                pages.add(new PageFile(path, pageId.get(), attributes.size(), attributes.lastModifiedTime().toMillis()));
            }
            catch (NoSuchFileException e) {
                // deleted since it was listed
            }
        }
        return pages;
    }

    private static List<Path> list(Path directory)
            throws IOException
    {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.toList();
        }
    }

    private void discardStray(Path path)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(path)) {
            List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
            stats.recordRestoreDiscarded(RestoreOutcome.ORPHAN, all.stream().filter(Files::isRegularFile).count());
            for (Path file : all) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** What became of a page file found at startup. */
    enum RestoreOutcome
    {
        RESTORED,
        /** Written again since the start: the new page is kept. */
        PRESENT,
        /**
         * Torn, cut short, unreadable, failing a checksum or of the earlier on-disk format; or a damaged
         * {@link CachedFile} record.
         */
        CORRUPT,
        /** No {@link CachedFile} record (for example pages of an earlier Overdrive version), or not a page file. */
        ORPHAN,
        /** Older than {@code cache.ttl}. */
        EXPIRED,
        /** Over {@code cache.max-size} or a quota (both may have shrunk), or the space was taken by new pages. */
        NO_ROOM,
        /** Its file was flushed while the restore ran. */
        FLUSHED,
    }
}
