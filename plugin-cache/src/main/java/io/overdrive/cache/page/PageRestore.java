package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.quota.CacheScope;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
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
 * <p>
 * The cache writes, evicts, fills and deletes pages in the same folders meanwhile, so any file or folder may vanish,
 * appear or change between the walk listing it and looking at, reading or deleting it. Each entry is looked at once
 * ({@link #stat}) and what it is then decides what happens to it; one gone since it was listed is passed over, and
 * one that vanishes later is treated as deleted already. Such races are never I/O errors: they neither stop the walk
 * nor count toward taking the directory out of use.
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

    /**
     * Points in the walk where tests make the file system change under it, exactly between two of its steps. They run
     * on the thread that walks (the restore's, or a reader's for {@link #beforeRead}).
     */
    interface Hooks
    {
        Hooks NONE = new Hooks() {};

        /** A folder's entries were listed; none has been looked at yet. */
        default void listed(Path folder, List<Path> entries) {}

        /** A page file was looked at and is about to be read. */
        default void beforeRead(Path pageFile) {}
    }

    private record PageFile(Path path, PageId pageId, long size, long writtenMillis) {}

    private final PageStoreDirectory directory;
    private final int pageSize;
    private final int maxFrameSize;
    private final Optional<Duration> ttl;
    private final Owner owner;
    private final PageCacheStats stats;
    private final BooleanSupplier stopped;
    private final Hooks hooks;
    // records and temporary files written since are this process's own; the margin covers the file system's coarser
    // clock, and no previous process wrote anything a second before this one started
    private final long startMillis = System.currentTimeMillis() - 1000;

    PageRestore(PageStoreDirectory directory, int pageSize, Optional<Duration> ttl, Owner owner, PageCacheStats stats, BooleanSupplier stopped, Hooks hooks)
    {
        this.directory = requireNonNull(directory, "directory is null");
        this.pageSize = pageSize;
        this.maxFrameSize = PageFrame.frameLength(pageSize);
        this.ttl = requireNonNull(ttl, "ttl is null");
        this.owner = requireNonNull(owner, "owner is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.stopped = requireNonNull(stopped, "stopped is null");
        this.hooks = requireNonNull(hooks, "hooks is null");
    }

    void run()
    {
        long start = System.nanoTime();
        try {
            restore();
        }
        catch (IOException | RuntimeException e) {
            // a real I/O error (files vanishing meanwhile are no error): what was registered stays usable; what was not
            // is left on disk, outside cache.max-size, for the next restart
            stats.recordRestoreFailed();
            log.error(e, "Restoring the cache directory %s failed; the pages it had not reached are left on disk until the next restart", directory.path());
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
        CachedFiles.Lookup record = directory.cachedFiles().read(fileId, startMillis);
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
                default -> {
                    if (!directory.discardUnregistered(page.pageId(), page.path())) {
                        // written again since the start: the file is the new page (a torn read of it is no damage)
                        outcome = RestoreOutcome.PRESENT;
                    }
                }
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
        hooks.beforeRead(page.path());
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
                // pages of another cache.page-size, which this cache cannot serve (and never writes)
                discardStray(entry);
            }
        }
        for (Path bucket : list(pagesOfThisSize)) {
            Optional<BasicFileAttributes> bucketAttributes = stat(bucket);
            if (bucketAttributes.isEmpty()) {
                continue;
            }
            if (!bucketAttributes.get().isDirectory()) {
                discardStray(bucket);
                continue;
            }
            for (Path fileDirectory : list(bucket)) {
                // gone since it was listed: its file's last page was evicted or deleted (the record is swept at the end)
                Optional<BasicFileAttributes> attributes = stat(fileDirectory);
                if (attributes.isEmpty()) {
                    continue;
                }
                if (attributes.get().isDirectory()) {
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
            if (pageId.isPresent()) {
                Optional<BasicFileAttributes> attributes = stat(path);
                if (attributes.isEmpty()) {
                    // deleted since it was listed (evicted, flushed): nothing to restore or delete
                    continue;
                }
                if (attributes.get().isRegularFile()) {
                    pages.add(new PageFile(path, pageId.get(), attributes.get().size(), attributes.get().lastModifiedTime().toMillis()));
                    continue;
                }
            }
            Optional<PageId> filling = directory.pageIdOfFill(path);
            if (filling.isPresent()) {
                // a fill's new frame, renamed over the page when it is complete. A fill of this process creates, renames
                // and deletes it only while it holds the page's fill lock: while the restore holds that lock, a .fill
                // file there belongs to no fill in flight (it is one an earlier process left, or one whose fill failed
                // to delete it), so deleting it then can never take a fill's file away. After the lock is released, a new
                // fill writes its file anew
                stats.recordRestoreDiscarded(RestoreOutcome.ORPHAN, directory.whileNoFill(filling.get(), () -> deleteTree(path)));
                continue;
            }
            // not a file the cache writes there: left by an earlier build, or by hand
            discardStray(path);
        }
        return pages;
    }

    // the folder's entries; none when it is gone (or no longer a folder): its entries went with it
    private List<Path> list(Path folder)
            throws IOException
    {
        List<Path> entries;
        try (Stream<Path> stream = Files.list(folder)) {
            entries = stream.toList();
        }
        catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        }
        hooks.listed(folder, entries);
        return entries;
    }

    // what the entry is now, itself (a link is not followed); empty when it is gone
    private static Optional<BasicFileAttributes> stat(Path path)
            throws IOException
    {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW_LINKS));
        }
        catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    // an entry that is not the cache's, where nothing this process writes can be: deleted and counted
    private void discardStray(Path path)
            throws IOException
    {
        stats.recordRestoreDiscarded(RestoreOutcome.ORPHAN, deleteTree(path));
    }

    /**
     * Deletes {@code path} and, if it is a folder, everything in it: how many files it deleted. Whatever vanishes
     * meanwhile counts as deleted already; a folder something was created in meanwhile is left (it is swept at the next
     * restart).
     */
    static long deleteTree(Path path)
            throws IOException
    {
        Optional<BasicFileAttributes> attributes = stat(path);
        if (attributes.isEmpty()) {
            return 0;
        }
        long deleted = 0;
        if (attributes.get().isDirectory()) {
            List<Path> entries;
            try (Stream<Path> stream = Files.list(path)) {
                entries = stream.toList();
            }
            catch (NoSuchFileException | NotDirectoryException e) {
                entries = List.of();
            }
            for (Path entry : entries) {
                deleted += deleteTree(entry);
            }
        }
        try {
            if (Files.deleteIfExists(path) && !attributes.get().isDirectory()) {
                deleted++;
            }
        }
        catch (DirectoryNotEmptyException e) {
            // an entry was created in it since it was listed
        }
        return deleted;
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
