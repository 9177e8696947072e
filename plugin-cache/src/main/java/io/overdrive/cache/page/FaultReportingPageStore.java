package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageStore;
import alluxio.client.file.cache.store.LocalPageStore;
import alluxio.exception.PageCorruptedException;
import alluxio.exception.PageNotFoundException;
import alluxio.exception.status.ResourceExhaustedException;
import alluxio.file.ReadTargetBuffer;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;

import static java.util.Objects.requireNonNull;

/**
 * The directory's Alluxio page store, seen from the disk boundary: the one place where a real I/O failure can be told
 * apart from the cache manager declining a page (already queued, already present, a lost eviction race), which its
 * {@code put} reports with the same {@code false}. Only I/O failures count toward taking the directory out of use.
 * Counts pages as written when they reach the disk, also for asynchronous writes.
 */
final class FaultReportingPageStore
        implements PageStore
{
    private static final int FOLDER_RACE_ATTEMPTS = 3;

    // replaced when Alluxio resets the directory (it opens a new store then)
    private volatile PageStore delegate;
    private final DirectoryHealth health;
    private final PageCacheStats stats;
    // set when an operation on this thread failed with an I/O error or an interrupt (counted here): the cache manager
    // answers a failed put with the same false as a declined one, and a failed get with the same -1 as a lost page
    private final ThreadLocal<Boolean> failedOnThisThread = ThreadLocal.withInitial(() -> false);
    // for tests: runs before each read of a page (a slow disk)
    private volatile Runnable beforeGet = () -> {};

    FaultReportingPageStore(PageStore delegate, DirectoryHealth health, PageCacheStats stats)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.health = requireNonNull(health, "health is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    /** The store on the disk itself, past this one: for probes, which must count nothing. */
    PageStore disk()
    {
        return delegate;
    }

    /** For tests: {@code hook} runs before each read of a page from now on, a sleep making the disk slow, say. */
    void beforeGet(Runnable hook)
    {
        this.beforeGet = requireNonNull(hook, "hook is null");
    }

    void replaceDelegate(PageStore delegate)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** Whether an operation on this thread failed (an I/O error or an interrupt) since the last call; clears the flag. */
    boolean takeFailure()
    {
        boolean failed = failedOnThisThread.get();
        if (failed) {
            failedOnThisThread.set(false);
        }
        return failed;
    }

    @Override
    public void put(PageId pageId, ByteBuffer page, boolean isTemporary)
            throws ResourceExhaustedException, IOException
    {
        int bytes = page.remaining();
        try {
            putAgainIfFolderVanished(pageId, page, isTemporary);
        }
        catch (ResourceExhaustedException e) {
            // a full disk is not a failing disk: the cache manager evicts and retries
            throw e;
        }
        catch (IOException | RuntimeException e) {
            failedOnThisThread.set(true);
            if (DirectoryHealth.isInterrupt(e)) {
                // a cancelled query or split, not the disk: the page is not cached, and no step is taken toward taking
                // the directory out of use
                stats.recordPutInterrupted();
                throw e;
            }
            stats.recordPutError();
            health.failed("write", e);
            throw e;
        }
        stats.recordWrite(bytes);
        health.succeeded();
    }

    // Alluxio removes a file's folder with its last page, holding only that page's lock: a put of another page of the
    // file racing with it finds the folder gone between creating it and opening its own file, or gone again when
    // checking that it exists. That is no disk failure: the put is tried again (the folder is created anew), and a real
    // failure fails every time
    private void putAgainIfFolderVanished(PageId pageId, ByteBuffer page, boolean isTemporary)
            throws IOException
    {
        for (int attempt = 1; ; attempt++) {
            try {
                // each attempt from the page's start
                delegate.put(pageId, page.duplicate(), isTemporary);
                return;
            }
            catch (ResourceExhaustedException e) {
                throw e;
            }
            catch (IOException e) {
                if (attempt == FOLDER_RACE_ATTEMPTS || !(e.getCause() instanceof FileNotFoundException || e.getCause() instanceof NoSuchFileException || e.getCause() instanceof FileAlreadyExistsException)) {
                    throw e;
                }
            }
        }
    }

    @Override
    public int get(PageId pageId, int pageOffset, int bytesToRead, ReadTargetBuffer buffer, boolean isTemporary)
            throws IOException, PageNotFoundException
    {
        try {
            beforeGet.run();
            int read = delegate.get(pageId, pageOffset, bytesToRead, buffer, isTemporary);
            health.succeeded();
            return read;
        }
        catch (PageNotFoundException | PageCorruptedException e) {
            // a missing or short page file is a lost page, not a failing disk; the cache manager forgets it
            throw e;
        }
        catch (ClosedByInterruptException e) {
            // hits read through the file's channel, which an interrupt of the reading thread closes: a miss, not a
            // failing disk
            failedOnThisThread.set(true);
            throw e;
        }
        catch (IOException | RuntimeException e) {
            failedOnThisThread.set(true);
            if (!DirectoryHealth.isInterrupt(e)) {
                // an interrupted read is a miss, no error (Alluxio reads pages with RandomAccessFile, which interrupts do not stop)
                stats.recordGetError();
                health.failed("read", e);
            }
            throw e;
        }
    }

    @Override
    public void delete(PageId pageId, boolean isTemporary)
            throws IOException, PageNotFoundException
    {
        try {
            delegate.delete(pageId, isTemporary);
        }
        catch (DirectoryNotEmptyException e) {
            // the page's file is deleted; its file's folder is not, as another page of the file was just written into it
        }
        catch (NoSuchFileException e) {
            // the file vanished between the store finding it and deleting it: the restore deletes the file of a page the
            // cache manager does not hold, which this page no longer is once the cache manager forgot it, just before
            // this. Gone either way, which is no disk fault; its folder goes if that was its file's last page, as the
            // store would have done
            try {
                removeFolderIfEmpty(pageId, isTemporary);
            }
            catch (IOException | RuntimeException folderFailure) {
                health.failed("delete", folderFailure);
                throw folderFailure;
            }
        }
        catch (IOException | RuntimeException e) {
            health.failed("delete", e);
            throw e;
        }
    }

    private void removeFolderIfEmpty(PageId pageId, boolean isTemporary)
            throws IOException
    {
        if (!(delegate instanceof LocalPageStore disk)) {
            return;
        }
        try {
            Files.deleteIfExists(disk.getPagePath(pageId, isTemporary).getParent());
        }
        catch (DirectoryNotEmptyException | NoSuchFileException e) {
            // other pages of the file are there, or the folder went with them
        }
    }

    @Override
    public void close()
            throws Exception
    {
        delegate.close();
    }
}
