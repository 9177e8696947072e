package io.overdrive.cache.coordinator;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInputStream;

import java.io.EOFException;
import java.io.IOException;

import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/** A stream over a file kept in the coordinator's memory; the bytes it returned are counted when it closes. */
final class MemoryFileInputStream
        extends TrinoInputStream
{
    private final Location location;
    private final byte[] content;
    private final CoordinatorCacheStats stats;
    private int position;
    private long bytesRead;
    private boolean closed;

    MemoryFileInputStream(Location location, byte[] content, CoordinatorCacheStats stats)
    {
        this.location = requireNonNull(location, "location is null");
        this.content = requireNonNull(content, "content is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Override
    public long getPosition()
            throws IOException
    {
        ensureOpen();
        return position;
    }

    @Override
    public void seek(long newPosition)
            throws IOException
    {
        ensureOpen();
        if (newPosition < 0) {
            throw new IOException("Negative seek offset %s: %s".formatted(newPosition, location));
        }
        if (newPosition > content.length) {
            throw new EOFException("Cannot seek to %s: file size is %s: %s".formatted(newPosition, content.length, location));
        }
        position = toIntExact(newPosition);
    }

    @Override
    public int read()
            throws IOException
    {
        ensureOpen();
        if (position >= content.length) {
            return -1;
        }
        bytesRead++;
        return content[position++] & 0xFF;
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
        if (position >= content.length) {
            return -1;
        }
        int read = min(length, content.length - position);
        System.arraycopy(content, position, buffer, offset, read);
        position += read;
        bytesRead += read;
        return read;
    }

    @Override
    public long skip(long count)
            throws IOException
    {
        ensureOpen();
        if (count <= 0) {
            return 0;
        }
        int skipped = (int) min(count, content.length - position);
        position += skipped;
        return skipped;
    }

    @Override
    public int available()
            throws IOException
    {
        ensureOpen();
        return content.length - position;
    }

    @Override
    public void close()
    {
        if (!closed) {
            closed = true;
            stats.recordBytesFromMemory(bytesRead);
        }
    }

    private void ensureOpen()
            throws IOException
    {
        if (closed) {
            throw new IOException("Stream closed: " + location);
        }
    }
}
