package io.overdrive.cache.scan;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInputStream;

import java.io.EOFException;
import java.io.IOException;

import static java.lang.Math.toIntExact;
import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * A stream over a data file through the page cache, shared with concurrent readers ({@link SharedPageReader}). It
 * holds the page it reads in: streams read in small pieces, each page is read once.
 */
final class SharedScanInputStream
        extends TrinoInputStream
{
    private final SharedPageReader reader;
    private final Location location;
    private final long fileLength;
    private final int pageSize;

    private byte[] page;
    private long pageStart = -1;
    private int pageLength;
    private long position;
    private boolean closed;

    SharedScanInputStream(SharedPageReader reader, Location location, int pageSize)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.location = requireNonNull(location, "location is null");
        this.fileLength = reader.fileLength();
        this.pageSize = pageSize;
    }

    @Override
    public long getPosition()
            throws IOException
    {
        ensureOpen();
        return position;
    }

    @Override
    public void seek(long position)
            throws IOException
    {
        ensureOpen();
        if (position < 0) {
            throw new IOException("Negative seek offset");
        }
        if (position > fileLength) {
            throw new EOFException("Cannot seek to %s. File size is %s: %s".formatted(position, fileLength, location));
        }
        this.position = position;
    }

    @Override
    public int read()
            throws IOException
    {
        ensureOpen();
        if (position >= fileLength) {
            return -1;
        }
        loadPage();
        int value = page[toIntExact(position - pageStart)] & 0xFF;
        position++;
        return value;
    }

    @Override
    public int read(byte[] buffer, int offset, int length)
            throws IOException
    {
        ensureOpen();
        checkFromIndexSize(offset, length, buffer.length);
        if (length == 0) {
            return 0;
        }
        if (position >= fileLength) {
            return -1;
        }
        loadPage();
        int bytes = toIntExact(Math.min(length, pageStart + pageLength - position));
        System.arraycopy(page, toIntExact(position - pageStart), buffer, offset, bytes);
        position += bytes;
        return bytes;
    }

    @Override
    public long skip(long n)
            throws IOException
    {
        ensureOpen();
        long skipped = Math.clamp(n, 0, fileLength - position);
        position += skipped;
        return skipped;
    }

    @Override
    public int available()
            throws IOException
    {
        ensureOpen();
        return pageStart >= 0 && position >= pageStart && position < pageStart + pageLength ? toIntExact(pageStart + pageLength - position) : 0;
    }

    // the page holding the position, read whole
    private void loadPage()
            throws IOException
    {
        long start = position - position % pageSize;
        if (start == pageStart) {
            return;
        }
        if (page == null) {
            page = new byte[pageSize];
        }
        int length = toIntExact(Math.min(pageSize, fileLength - start));
        pageStart = -1;
        reader.readFully(start, page, 0, length);
        pageStart = start;
        pageLength = length;
    }

    private void ensureOpen()
            throws IOException
    {
        if (closed) {
            throw new IOException("Stream closed: " + location);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        if (!closed) {
            closed = true;
            reader.close();
        }
    }
}
