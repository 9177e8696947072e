package io.overdrive.cache.scan;

import com.google.common.collect.ImmutableMap;
import io.trino.filesystem.TrinoInput;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;

import java.io.EOFException;
import java.io.IOException;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/** Positioned reads of a data file through the page cache, shared with concurrent readers ({@link SharedPageReader}). */
final class SharedScanInput
        implements TrinoInput
{
    private final SharedPageReader reader;
    private boolean closed;

    SharedScanInput(SharedPageReader reader)
    {
        this.reader = requireNonNull(reader, "reader is null");
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        ensureOpen();
        checkFromIndexSize(offset, length, buffer.length);
        if (position < 0) {
            throw new IOException("Negative seek offset");
        }
        if (length > reader.fileLength() - position) {
            throw new EOFException("Read past end of file %s: position %s, length %s, file length %s".formatted(reader.path(), position, length, reader.fileLength()));
        }
        reader.readFully(position, buffer, offset, length);
    }

    @Override
    public int readTail(byte[] buffer, int offset, int length)
            throws IOException
    {
        ensureOpen();
        checkFromIndexSize(offset, length, buffer.length);
        int size = (int) Math.min(reader.fileLength(), length);
        reader.readFully(reader.fileLength() - size, buffer, offset, size);
        return size;
    }

    @Override
    public Metrics getMetrics()
    {
        // the names of Trino's own cache, plus the bytes other readers' fetches brought
        return new Metrics(ImmutableMap.of(
                "bytesReadFromCache", new LongCount(reader.cacheBytes()),
                "bytesReadExternally", new LongCount(reader.remoteBytes()),
                "bytesReadFromSharedFetches", new LongCount(reader.sharedBytes())));
    }

    private void ensureOpen()
            throws IOException
    {
        if (closed) {
            throw new IOException("Input closed: " + reader.path());
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
