package io.overdrive.cache.coordinator;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;

import java.io.EOFException;
import java.io.IOException;

import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/** Positional reads of a file kept in the coordinator's memory. */
final class MemoryFileInput
        implements TrinoInput
{
    private final Location location;
    private final byte[] content;
    private final CoordinatorCacheStats stats;
    private boolean closed;

    MemoryFileInput(Location location, byte[] content, CoordinatorCacheStats stats)
    {
        this.location = requireNonNull(location, "location is null");
        this.content = requireNonNull(content, "content is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Override
    public void readFully(long position, byte[] buffer, int bufferOffset, int length)
            throws IOException
    {
        ensureOpen();
        checkFromIndexSize(bufferOffset, length, buffer.length);
        if (position < 0) {
            throw new IOException("Negative position %s: %s".formatted(position, location));
        }
        if (position + length > content.length) {
            throw new EOFException("Cannot read %s bytes at %s: file size is %s: %s".formatted(length, position, content.length, location));
        }
        System.arraycopy(content, toIntExact(position), buffer, bufferOffset, length);
        stats.recordBytesFromMemory(length);
    }

    @Override
    public int readTail(byte[] buffer, int bufferOffset, int maxLength)
            throws IOException
    {
        ensureOpen();
        checkFromIndexSize(bufferOffset, maxLength, buffer.length);
        int length = min(content.length, maxLength);
        readFully(content.length - length, buffer, bufferOffset, length);
        return length;
    }

    @Override
    public void close()
    {
        closed = true;
    }

    private void ensureOpen()
            throws IOException
    {
        if (closed) {
            throw new IOException("Input closed: " + location);
        }
    }

    @Override
    public String toString()
    {
        return location.toString();
    }
}
