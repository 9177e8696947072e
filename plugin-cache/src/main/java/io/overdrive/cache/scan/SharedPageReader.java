package io.overdrive.cache.scan;

import alluxio.client.file.cache.PageId;
import io.airlift.log.Logger;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageFrame;
import io.overdrive.cache.scan.InFlightPages.Claim;
import io.overdrive.cache.scan.PageFetch.PageBytes;
import io.overdrive.cache.scan.ReadAhead.Held;
import io.overdrive.cache.scan.ReadAhead.Reservation;
import io.overdrive.cache.scan.RowGroupLayout.Range;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Reads one opened file page by page: from the page cache, else from another reader's fetch of the page in flight on
 * this node, else from remote storage, claiming the fetch so that readers arriving meanwhile wait for it instead of
 * reading the same bytes again. A reader first fetches what it claimed, then waits for what others fetch: it never
 * waits while holding a claim, so readers cannot wait on each other in a cycle. A fetch that fails or is abandoned is
 * taken over by its waiters; a waiter never waits longer than {@code cache.shared-scans.max-wait} in all.
 * <p>
 * Sequential readers also fetch {@code cache.read-ahead} pages ahead in the background (one such fetch at a time per
 * reader), so that they, and readers that join the same scan, find them in flight or cached. A page fetched ahead counts
 * as this reader's access for admission when it is claimed, as if the reader had fetched it itself; one the cache does
 * not keep anyway is held in read-ahead memory until the reader reads it, so that it is never fetched twice.
 */
final class SharedPageReader
        implements Closeable
{
    private static final Logger log = Logger.get(SharedPageReader.class);

    // a run of missing pages is one remote read, as with Trino's own reader: each read costs a storage round trip. It
    // completes all its pages at once, so it is bounded, lest waiters for its first pages wait for a huge read
    static final int MAX_PAGES_PER_FETCH = 64;
    // claimed pages this close go into one remote read, re-reading the page between them (cached, or fetched by another
    // reader): a round trip to remote storage costs more than a page, as Trino's own readers judge
    // (parquet.max-merge-distance is 1MB, and its cache reads from the first missing page to the end)
    static final int MAX_GAP_PAGES = 1;
    // and at most this many bytes (with cache.page-size up to 64MB, 64 pages would pass the 2GB of a Java array)
    static final long MAX_BYTES_PER_FETCH = 1L << 30;
    // a footer larger than the reader's first read of the file's end takes a second read of it (Trino's readers)
    private static final int MAX_FOOTER_TRIES = 2;

    private final SharedScans scans;
    private final PageCache cache;
    private final TrinoInputFile remoteFile;
    private final String path;
    private final String fileId;
    private final long fileLength;
    private final int pageSize;
    private final CacheReadContext context;
    // what a remote read of this file's storage costs, learned from every fetch of it
    private final FetchCost fetchCost;
    // pages of this opened file already counted for admission (once per opening, as PageCache#recordAccess asks)
    private final Set<Long> accessedPages = ConcurrentHashMap.newKeySet();
    private final AtomicLong cacheBytes = new AtomicLong();
    private final AtomicLong sharedBytes = new AtomicLong();
    private final AtomicLong remoteBytes = new AtomicLong();
    // pages fetched ahead that the cache did not keep, held for this reader: dropped when it closes
    private final Map<PageId, Held> held = new ConcurrentHashMap<>();

    private TrinoInput remote;
    // sequential access, guarded by this
    private long lastPageRead = -2;
    private long lastReadEnd = -1;
    // row-group prefetch: the plan from the file's footer once the reader read it (tries: reads of the file's end)
    private volatile RowGroupPrefetch rowGroups;
    private int footerTries;
    private long readAheadEnd;
    private boolean readAheadRunning;
    private boolean closed;

    SharedPageReader(SharedScans scans, TrinoInputFile remoteFile, String fileId, long fileLength, CacheReadContext context)
    {
        this.scans = requireNonNull(scans, "scans is null");
        this.cache = scans.cache();
        this.remoteFile = requireNonNull(remoteFile, "remoteFile is null");
        this.path = remoteFile.location().toString();
        this.fileId = requireNonNull(fileId, "fileId is null");
        this.fileLength = fileLength;
        this.pageSize = cache.pageSize();
        this.context = requireNonNull(context, "context is null");
        this.fetchCost = scans.fetchCost(remoteFile.location());
    }

    long fileLength()
    {
        return fileLength;
    }

    String path()
    {
        return path;
    }

    long cacheBytes()
    {
        return cacheBytes.get();
    }

    long sharedBytes()
    {
        return sharedBytes.get();
    }

    long remoteBytes()
    {
        return remoteBytes.get();
    }

    /** Reads {@code length} bytes at {@code position}, which the caller checked lie inside the file. */
    void readFully(long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        if (length == 0) {
            return;
        }
        Request request = new Request(position, buffer, offset, length, continuesLastRead(position, length));
        long first = position / pageSize;
        long last = (position + length - 1) / pageSize;
        List<Long> missing = new ArrayList<>();
        for (long page = first; page <= last; page++) {
            if (!readCached(page, request) && !readHeld(page, request)) {
                missing.add(page);
            }
        }
        if (!missing.isEmpty()) {
            readMissing(missing, request);
        }
        RowGroupPrefetch plan = rowGroups;
        if (plan == null) {
            learnRowGroups(position, buffer, offset, length);
        }
        readAheadAfter(first, last, plan == null ? Optional.empty() : Optional.of(plan.layout()), position + length);
        if (plan != null && scans.rowGroupPrefetch()) {
            prefetchAfter(plan, position, length);
        }
    }

    // a read that starts where the last one ended is part of a stream, which will want the rest of its pages
    private synchronized boolean continuesLastRead(long position, int length)
    {
        boolean continues = position == lastReadEnd;
        lastReadEnd = position + length;
        return continues;
    }

    private void readMissing(List<Long> pages, Request request)
            throws IOException
    {
        long deadline = System.nanoTime() + scans.maxWaitNanos();
        List<Long> pending = pages;
        boolean lookInCache = false;
        while (!pending.isEmpty()) {
            List<Claim> claimed = new ArrayList<>();
            List<Claim> joined = new ArrayList<>();
            for (long page : pending) {
                if (lookInCache && (readCached(page, request) || readHeld(page, request))) {
                    continue;
                }
                Claim claim = scans.inFlight().claimOrJoin(pageId(page), false);
                if (!claim.claimed()) {
                    joined.add(claim);
                }
                // its last fetch may have cached it, or held it for its reader, between our look and the claim
                else if ((cache.contains(claim.pageId()) && readCached(page, request)) || readHeld(page, request)) {
                    scans.inFlight().fail(claim, PageFetch.GIVEN_UP);
                }
                else {
                    claimed.add(claim);
                }
            }
            fetch(this::remote, claimed, request, request.wanted(), null);
            pending = new ArrayList<>();
            for (Claim claim : joined) {
                if (!awaitFetch(claim, deadline, request)) {
                    pending.add(claim.pageId().getPageIndex());
                }
            }
            lookInCache = true;
        }
    }

    // false when the fetch failed or was given up: the caller then looks again (cache, new fetch, or its own)
    private boolean awaitFetch(Claim claim, long deadline, Request request)
            throws IOException
    {
        long start = System.nanoTime();
        long page = claim.pageId().getPageIndex();
        PageBytes bytes;
        try {
            bytes = claim.fetch().await(Math.max(0, deadline - start));
        }
        catch (ExecutionException e) {
            if (e.getCause() != PageFetch.GIVEN_UP) {
                scans.stats().recordTakeOver();
            }
            return false;
        }
        catch (TimeoutException e) {
            scans.stats().recordWaitTimeout(System.nanoTime() - start);
            readAlone(page, request);
            return true;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for another reader's fetch of " + path);
        }
        int copied = request.copy(page, pageSize, pageLength(page), bytes);
        if (copied < 0) {
            // the fetch was of another part of the page (another reader's read): look again
            return false;
        }
        scans.stats().recordCoalescedRead(bytes.length(), System.nanoTime() - start);
        scans.readAhead().read(claim.pageId());
        sharedBytes.addAndGet(copied);
        context.readStats().recordFromSharedFetch(copied);
        return true;
    }

    // after waiting too long for another reader's fetch: this page only, not shared, not cached (the fetch caches it)
    private void readAlone(long page, Request request)
            throws IOException
    {
        int length = pageLength(page);
        byte[] data = new byte[length];
        TrinoInput input = remote();
        long start = System.nanoTime();
        input.readFully(page * pageSize, data, 0, length);
        long nanos = System.nanoTime() - start;
        fetchCost.record(length, nanos);
        scans.recordRemoteRead(length, nanos);
        remoteBytes.addAndGet(length);
        context.readStats().recordFromStorage(length);
        request.copy(page, pageSize, length, new PageBytes(data, 0, length));
    }

    /**
     * Fetches the claimed pages (ascending), one remote read per run of close pages ({@link #runs}), resolving every
     * claim whatever happens: completed with its bytes, or failed with the error, which is then thrown. A read-ahead
     * passes its memory {@code reservation}, which covers every run, and no {@code request}. A reader's own read that
     * does not continue a stream fetches only the chunks it needs of the run's first and last pages
     * ({@link #runSpan}), unless the rest of them costs less than a later request would ({@code cache.fetch-rest-of-page});
     * the cache keeps them as parts of those pages. Returns the bytes read from remote storage.
     */
    private long fetch(RemoteInput remoteInput, List<Claim> claims, Request request, Wanted wanted, Reservation reservation)
            throws IOException
    {
        if (claims.isEmpty()) {
            return 0;
        }
        int resolved = 0;
        long bytes = 0;
        try {
            // opened only when this reader fetches: readers served by others' fetches never open the remote file
            TrinoInput input = remoteInput.open();
            for (List<Claim> run : runs(claims, pageSize)) {
                bytes += fetchRun(input, run, request, wanted, reservation);
                resolved += run.size();
            }
            return bytes;
        }
        catch (IOException | RuntimeException | Error e) {
            for (Claim claim : claims.subList(resolved, claims.size())) {
                scans.inFlight().fail(claim, e);
            }
            scans.stats().recordFetchFailure();
            throw e;
        }
    }

    /**
     * The remote reads of the claimed pages (ascending): runs of pages at most {@link #MAX_GAP_PAGES} apart (a read
     * spans the pages between), each within {@link #MAX_PAGES_PER_FETCH} pages and {@link #MAX_BYTES_PER_FETCH} bytes.
     */
    static List<List<Claim>> runs(List<Claim> claims, long pageSize)
    {
        long maxPages = Math.clamp(MAX_BYTES_PER_FETCH / pageSize, 1, MAX_PAGES_PER_FETCH);
        List<List<Claim>> runs = new ArrayList<>();
        int start = 0;
        while (start < claims.size()) {
            long firstPage = claims.get(start).pageId().getPageIndex();
            int end = start + 1;
            while (end < claims.size()
                    && claims.get(end).pageId().getPageIndex() - firstPage < maxPages
                    && claims.get(end).pageId().getPageIndex() - claims.get(end - 1).pageId().getPageIndex() <= MAX_GAP_PAGES + 1) {
                end++;
            }
            runs.add(claims.subList(start, end));
            start = end;
        }
        return runs;
    }

    // the bytes one remote read of the run reads: from its first page to the end of its last, pages between included
    private long runLength(List<Claim> run)
    {
        long start = run.getFirst().pageId().getPageIndex() * pageSize;
        return Math.min(fileLength, (run.getLast().pageId().getPageIndex() + 1) * pageSize) - start;
    }

    /**
     * The bytes one remote read of the run reads, {@code [start, end)} in the file: from its first page to the end of
     * its last, pages between included; for a reader's own read that does not continue a stream, only from the chunk
     * ({@link PageFrame#CHUNK_SIZE}, counted from the page's start) where the read starts to the one where it ends, as a
     * reader without a cache would read about the same bytes, and whole pages again when the bytes that adds cost
     * less than half a request to the storage ({@link FetchCost}; a reader's own read, {@code cache.fetch-rest-of-page}).
     * The pages between are inside the read.
     */
    private long[] runSpan(List<Claim> run, Wanted wanted, boolean ownRead)
    {
        long firstPageStart = run.getFirst().pageId().getPageIndex() * pageSize;
        long lastPageStart = run.getLast().pageId().getPageIndex() * pageSize;
        long end = Math.min(fileLength, lastPageStart + pageSize);
        if (wanted.wholePages()) {
            return new long[] {firstPageStart, end};
        }
        long start = firstPageStart + alignDown(Math.max(0, wanted.start() - firstPageStart));
        long wantedEnd = Math.min(end, lastPageStart + alignUp(Math.max(0, wanted.end() - lastPageStart)));
        long restOfPages = (start - firstPageStart) + (end - wantedEnd);
        if (ownRead && restOfPages > 0 && scans.fetchRestOfPage() && fetchCost.worthFetching(restOfPages)) {
            scans.stats().recordRestOfPageFetch(restOfPages);
            return new long[] {firstPageStart, end};
        }
        return new long[] {start, wantedEnd};
    }

    private static long alignDown(long pageOffset)
    {
        return pageOffset - pageOffset % PageFrame.CHUNK_SIZE;
    }

    private static long alignUp(long pageOffset)
    {
        return alignDown(pageOffset + PageFrame.CHUNK_SIZE - 1);
    }

    // returns the bytes read
    private long fetchRun(TrinoInput input, List<Claim> run, Request request, Wanted wanted, Reservation reservation)
            throws IOException
    {
        long[] span = runSpan(run, wanted, request != null);
        long start = span[0];
        // at most MAX_BYTES_PER_FETCH; for a read-ahead, within its reservation
        int length = toIntExact(span[1] - start);
        byte[] data = new byte[length];
        // a worker the coordinator named may cache these bytes (the file's own worker, for a split placed elsewhere; the
        // one that held them before a worker joined): asked first, for at most cache.peer.read-timeout
        if (!context.peers().isEmpty() && scans.peers().read(context.peers(), fileId, pageSize, start, data, 0, length)) {
            context.readStats().recordFromPeer(length);
        }
        else {
            // peers that ask for these pages meanwhile may wait for this read instead of reading storage themselves
            run.forEach(claim -> claim.fetch().readingStorage());
            long readStart = System.nanoTime();
            input.readFully(start, data, 0, length);
            long nanos = System.nanoTime() - readStart;
            fetchCost.record(length, nanos);
            scans.stats().recordFetch(run.size(), length);
            scans.recordRemoteRead(length, nanos);
            remoteBytes.addAndGet(length);
            context.readStats().recordFromStorage(length);
        }

        List<PageBytes> pages = new ArrayList<>(run.size());
        for (Claim claim : run) {
            long page = claim.pageId().getPageIndex();
            long pageStart = page * pageSize;
            int from = toIntExact(Math.max(start, pageStart) - pageStart);
            int to = toIntExact(Math.min(span[1], pageStart + pageLength(page)) - pageStart);
            PageBytes bytes = new PageBytes(data, toIntExact(pageStart + from - start), from, to - from);
            pages.add(bytes);
            if (claim.fetch().isReadAhead()) {
                // before the waiters see it, so that whoever reads it first counts it as used
                scans.readAhead().fetched(claim.pageId());
            }
            claim.fetch().complete(bytes);
            if (request != null) {
                request.copy(page, pageSize, pageLength(page), bytes);
            }
        }
        // cached before the fetches are forgotten: a reader that comes later finds the page there
        for (int i = 0; i < run.size(); i++) {
            Claim claim = run.get(i);
            PageBytes bytes = pages.get(i);
            int pageLength = pageLength(claim.pageId().getPageIndex());
            try {
                ByteBuffer fetched = ByteBuffer.wrap(bytes.array(), bytes.offset(), bytes.length());
                if (bytes.pageOffset() == 0 && bytes.length() == pageLength) {
                    cache.write(path, claim.pageId(), fetched, context);
                }
                else {
                    cache.writePart(path, claim.pageId(), pageLength, bytes.pageOffset(), fetched, context);
                }
            }
            catch (RuntimeException e) {
                log.warn(e, "Caching page %s of %s failed", claim.pageId().getPageIndex(), path);
            }
            if (reservation != null && bytes.pageOffset() == 0 && bytes.length() == pageLength && !cache.contains(claim.pageId())) {
                // refused (admission, rate limit, quota) or failed: held for this reader, which would otherwise fetch it
                // again; a page a reader read already (joined its fetch) is not held
                scans.readAhead().hold(claim.pageId(), bytes, reservation).ifPresent(page -> held.put(claim.pageId(), page));
            }
            scans.inFlight().remove(claim);
        }
        return length;
    }

    private boolean readCached(long page, Request request)
    {
        PageId pageId = pageId(page);
        if (accessedPages.add(page)) {
            cache.recordAccess(pageId);
        }
        long pageStart = page * pageSize;
        long from = Math.max(request.position(), pageStart);
        int bytes = toIntExact(Math.min(request.end(), pageStart + pageLength(page)) - from);
        int read = cache.read(pageId, toIntExact(from - pageStart), bytes, request.buffer(), request.targetOffset(from));
        if (read != bytes) {
            return false;
        }
        cacheBytes.addAndGet(read);
        context.readStats().recordFromCache(read);
        scans.readAhead().read(pageId);
        return true;
    }

    // a page fetched ahead that the cache did not keep, held for its reader (this one, or one that read it first)
    private boolean readHeld(long page, Request request)
    {
        if (scans.readAhead().pages() == 0) {
            return false;
        }
        PageId pageId = pageId(page);
        if (!scans.readAhead().readHeld(pageId, bytes -> {
            int copied = request.copy(page, pageSize, pageLength(page), bytes);
            sharedBytes.addAndGet(copied);
            context.readStats().recordFromSharedFetch(copied);
        })) {
            return false;
        }
        held.remove(pageId);
        return true;
    }

    /**
     * Called after every read: a read that starts in or right after the last page read is sequential. In a Parquet or
     * ORC file whose footer the reader read, what is read ahead stays within the column chunk (stripe) the read ended in:
     * the next bytes of the file belong to another column, which the query may not read at all (the next row group's
     * chunks of the columns it reads are row-group prefetch's), and a read that ends outside any chunk (footer, indexes)
     * starts no read-ahead.
     */
    private synchronized void readAheadAfter(long first, long last, Optional<RowGroupLayout> layout, long readEnd)
    {
        int ahead = scans.readAhead().pages();
        boolean sequential = first == lastPageRead || first == lastPageRead + 1;
        lastPageRead = last;
        if (ahead == 0 || !sequential || readAheadRunning || !context.writes()) {
            // pages fetched ahead on a node that may not cache them would only help readers that are reading them now
            return;
        }
        long from = Math.max(last + 1, readAheadEnd);
        // fetch again once the reader is within half a read-ahead of the end of what was fetched ahead
        if (from - (last + 1) > ahead / 2) {
            return;
        }
        long to = Math.min(from + ahead, pageCount());
        if (layout.isPresent()) {
            long chunkEnd = layout.get().chunkEnd(readEnd - 1);
            if (chunkEnd < 0) {
                return;
            }
            to = Math.min(to, (chunkEnd - 1) / pageSize + 1);
        }
        if (from >= to) {
            return;
        }
        List<Claim> claims = new ArrayList<>();
        for (long page = from; page < to; page++) {
            PageId pageId = pageId(page);
            if (cache.contains(pageId) || scans.readAhead().holds(pageId)) {
                continue;
            }
            // a page in flight already is joined, not claimed: nothing to fetch
            Claim claim = scans.inFlight().claimOrJoin(pageId, true);
            if (claim.claimed()) {
                claims.add(claim);
                // fetched for this reader, which reads it next: its access counts now, once per opening as always, so
                // that admission decides on the page as if the reader had fetched it itself
                if (accessedPages.add(page)) {
                    cache.recordAccess(pageId);
                }
            }
        }
        if (claims.isEmpty()) {
            readAheadEnd = to;
            return;
        }
        // every byte the remote reads will read, the pages between the claimed ones that they span included: at most
        // cache.read-ahead pages, which the configuration checked fit cache.read-ahead-max-memory
        long bytes = runs(claims, pageSize).stream().mapToLong(this::runLength).sum();
        Optional<Reservation> reservation = scans.readAhead().reserve(bytes);
        if (reservation.isEmpty()) {
            claims.forEach(claim -> scans.inFlight().fail(claim, PageFetch.GIVEN_UP));
            return;
        }
        readAheadRunning = true;
        if (!scans.readAhead().submit(() -> readAhead(claims, reservation.get()))) {
            claims.forEach(claim -> scans.inFlight().fail(claim, PageFetch.GIVEN_UP));
            reservation.get().release();
            readAheadRunning = false;
            return;
        }
        readAheadEnd = to;
    }

    // the row groups (stripes) of a Parquet or ORC file, from the reader's read of its end (the footer): for row-group
    // prefetch, and to keep read-ahead within a column chunk
    private void learnRowGroups(long position, byte[] buffer, int offset, int length)
    {
        synchronized (this) {
            // a read of the whole file (small files) leaves nothing to prefetch
            if (rowGroups == null && footerTries < MAX_FOOTER_TRIES && position + length == fileLength && position > 0) {
                footerTries++;
                rowGroups = RowGroupPrefetch.fromTail(fileLength, buffer, offset, length, RowGroupPrefetch.DEFAULT_MAX_MERGE_GAP).orElse(null);
            }
        }
    }

    /**
     * Row-group prefetch: a read of the file's end (Trino's Parquet and ORC readers read the footer first) gives the
     * plan of its row groups (stripes); from then on, a read of column chunks of one row group starts the fetch of the
     * same columns' chunks in the next one, in the background, within the read-ahead memory, only the chunks not cached
     * yet, shared with readers through the fetches in flight.
     */
    private void prefetchAfter(RowGroupPrefetch plan, long position, long length)
    {
        if (!context.writes()) {
            // fetched ahead on a node that may not cache them (or for a query that fills no cache), they would be read again
            return;
        }
        List<Range> ranges = plan.onRead(position, length, scans.maxPrefetchBytes());
        if (ranges.isEmpty()) {
            return;
        }
        // every byte the fetches may read: the ranges, each widened to its chunks
        long bytes = ranges.stream().mapToLong(range -> range.length() + 2L * PageFrame.CHUNK_SIZE).sum();
        Optional<Reservation> reservation = scans.readAhead().reserve(bytes);
        if (reservation.isEmpty()) {
            scans.stats().recordRowGroupPrefetchSkipped();
            return;
        }
        if (!scans.readAhead().submit(() -> prefetch(ranges, reservation.get()))) {
            reservation.get().release();
            scans.stats().recordRowGroupPrefetchSkipped();
        }
    }

    // on a read-ahead thread: the ranges' pages that are neither cached nor in flight, only the chunks of the ranges
    private void prefetch(List<Range> ranges, Reservation reservation)
    {
        TrinoInput[] input = new TrinoInput[1];
        // one input for all the ranges, opened by the first fetch
        RemoteInput opener = () -> {
            if (input[0] == null) {
                input[0] = remoteFile.newInput();
            }
            return input[0];
        };
        try {
            for (Range range : ranges) {
                List<Claim> claims = new ArrayList<>();
                for (long page = range.start() / pageSize; page <= (range.end() - 1) / pageSize; page++) {
                    long pageStart = page * pageSize;
                    int from = toIntExact(alignDown(Math.max(range.start(), pageStart) - pageStart));
                    int to = toIntExact(Math.min(pageLength(page), alignUp(Math.min(range.end(), pageStart + pageLength(page)) - pageStart)));
                    PageId pageId = pageId(page);
                    if (cache.contains(pageId, from, to)) {
                        continue;
                    }
                    Claim claim = scans.inFlight().claimOrJoin(pageId, false);
                    if (claim.claimed()) {
                        claims.add(claim);
                    }
                }
                if (claims.isEmpty()) {
                    continue;
                }
                // this fetch's bytes only: the reader may read from storage meanwhile
                long bytes = fetch(opener, claims, null, new Wanted(range.start(), range.end(), false), reservation);
                scans.stats().recordRowGroupPrefetch(bytes);
            }
        }
        catch (IOException | RuntimeException e) {
            // fetch() failed the claims it could not fetch: readers that need those pages fetch them
            log.debug(e, "Prefetching the next row group of %s failed", path);
        }
        finally {
            closeQuietly(input[0]);
            reservation.release();
        }
    }

    // on a read-ahead thread, with an input of its own: the reader goes on using its own meanwhile
    private void readAhead(List<Claim> claims, Reservation reservation)
    {
        TrinoInput[] input = new TrinoInput[1];
        try {
            fetch(() -> input[0] = remoteFile.newInput(), claims, null, Wanted.WHOLE_PAGES, reservation);
        }
        catch (IOException | RuntimeException e) {
            // fetch() failed the claims it could not fetch: readers waiting for them take over
            log.debug(e, "Reading ahead in %s failed", path);
        }
        finally {
            closeQuietly(input[0]);
            // the pages it held keep their share until read or dropped
            reservation.release();
            synchronized (this) {
                readAheadRunning = false;
                if (closed) {
                    dropHeld();
                }
            }
        }
    }

    // the reader is gone: pages still held for it are wasted (unless another reader takes them first)
    private void dropHeld()
    {
        for (Map.Entry<PageId, Held> entry : held.entrySet()) {
            if (held.remove(entry.getKey(), entry.getValue())) {
                scans.readAhead().drop(entry.getKey(), entry.getValue());
            }
        }
    }

    private void closeQuietly(TrinoInput input)
    {
        if (input != null) {
            try {
                input.close();
            }
            catch (IOException | RuntimeException e) {
                log.debug(e, "Closing an input of %s failed", path);
            }
        }
    }

    private synchronized TrinoInput remote()
            throws IOException
    {
        if (remote == null) {
            remote = remoteFile.newInput();
        }
        return remote;
    }

    private PageId pageId(long page)
    {
        return new PageId(fileId, page);
    }

    private int pageLength(long page)
    {
        return toIntExact(Math.min(pageSize, fileLength - page * pageSize));
    }

    private long pageCount()
    {
        return (fileLength + pageSize - 1) / pageSize;
    }

    @Override
    public synchronized void close()
            throws IOException
    {
        closed = true;
        dropHeld();
        if (remote != null) {
            remote.close();
            remote = null;
        }
    }

    private interface RemoteInput
    {
        TrinoInput open()
                throws IOException;
    }

    /**
     * The bytes a fetch is for, {@code [start, end)} of the file: a fetch reads the chunks of its first and last pages
     * that they cover, or with {@code wholePages} its pages whole.
     */
    private record Wanted(long start, long end, boolean wholePages)
    {
        static final Wanted WHOLE_PAGES = new Wanted(0, Long.MAX_VALUE, true);
    }

    /**
     * A caller's read: {@code length} bytes of the file at {@code position} into {@code buffer} at {@code offset};
     * {@code continuesStream} when it starts where the reader's last read ended.
     */
    private record Request(long position, byte[] buffer, int offset, int length, boolean continuesStream)
    {
        long end()
        {
            return position + length;
        }

        Wanted wanted()
        {
            return new Wanted(position, end(), continuesStream);
        }

        int targetOffset(long filePosition)
        {
            return toIntExact(offset + filePosition - position);
        }

        /**
         * Copies the part of the page (of {@code pageLength} bytes) this read wants: how many bytes; -1, having copied
         * nothing, when {@code bytes} do not hold all of that part.
         */
        int copy(long page, int pageSize, int pageLength, PageBytes bytes)
        {
            long pageStart = page * pageSize;
            long from = Math.max(position, pageStart);
            long to = Math.min(end(), pageStart + pageLength);
            if (!bytes.covers(toIntExact(from - pageStart), toIntExact(to - pageStart))) {
                return -1;
            }
            int count = toIntExact(to - from);
            bytes.copyTo(toIntExact(from - pageStart), buffer, targetOffset(from), count);
            return count;
        }
    }
}
