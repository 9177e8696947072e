package io.overdrive.cache.page;

import io.airlift.slice.Slice;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.time.Instant;

import static java.util.Objects.requireNonNull;

/**
 * A remote file whose reads report their bytes and time to the page cache ({@link PageCache#recordStorageRead}), for
 * Trino's own page-aligned readers (shared scans report their reads themselves). A stream's reads are timed where a
 * reader asks for a whole range ({@code readNBytes}): a single {@code read} may return what one network buffer held,
 * which says nothing of a request's latency.
 */
public final class TimedRemoteFile
        implements TrinoInputFile
{
    private final TrinoInputFile delegate;
    private final PageCache cache;

    private TimedRemoteFile(TrinoInputFile delegate, PageCache cache)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.cache = requireNonNull(cache, "cache is null");
    }

    public static TrinoInputFile wrap(TrinoInputFile file, PageCache cache)
    {
        return new TimedRemoteFile(file, cache);
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        return new TimedInput(delegate.newInput(), cache);
    }

    @Override
    public TrinoInputStream newStream()
            throws IOException
    {
        return new TimedStream(delegate.newStream(), cache);
    }

    @Override
    public long length()
            throws IOException
    {
        return delegate.length();
    }

    @Override
    public Instant lastModified()
            throws IOException
    {
        return delegate.lastModified();
    }

    @Override
    public boolean exists()
            throws IOException
    {
        return delegate.exists();
    }

    @Override
    public Location location()
    {
        return delegate.location();
    }

    @Override
    public String toString()
    {
        return delegate.toString();
    }

    private record TimedInput(TrinoInput delegate, PageCache cache)
            implements TrinoInput
    {
        @Override
        public void readFully(long position, byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException
        {
            long start = System.nanoTime();
            delegate.readFully(position, buffer, bufferOffset, bufferLength);
            cache.recordStorageRead(bufferLength, System.nanoTime() - start);
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException
        {
            long start = System.nanoTime();
            int read = delegate.readTail(buffer, bufferOffset, bufferLength);
            cache.recordStorageRead(read, System.nanoTime() - start);
            return read;
        }

        @Override
        public Slice readFully(long position, int length)
                throws IOException
        {
            long start = System.nanoTime();
            Slice slice = delegate.readFully(position, length);
            cache.recordStorageRead(slice.length(), System.nanoTime() - start);
            return slice;
        }

        @Override
        public Slice readTail(int length)
                throws IOException
        {
            long start = System.nanoTime();
            Slice slice = delegate.readTail(length);
            cache.recordStorageRead(slice.length(), System.nanoTime() - start);
            return slice;
        }

        @Override
        public Metrics getMetrics()
        {
            return delegate.getMetrics();
        }

        @Override
        public void close()
                throws IOException
        {
            delegate.close();
        }
    }

    private static final class TimedStream
            extends TrinoInputStream
    {
        private final TrinoInputStream delegate;
        private final PageCache cache;

        TimedStream(TrinoInputStream delegate, PageCache cache)
        {
            this.delegate = requireNonNull(delegate, "delegate is null");
            this.cache = requireNonNull(cache, "cache is null");
        }

        @Override
        public long getPosition()
                throws IOException
        {
            return delegate.getPosition();
        }

        @Override
        public void seek(long position)
                throws IOException
        {
            delegate.seek(position);
        }

        @Override
        public int read()
                throws IOException
        {
            return delegate.read();
        }

        @Override
        public int read(byte[] buffer, int offset, int length)
                throws IOException
        {
            return delegate.read(buffer, offset, length);
        }

        @Override
        public int readNBytes(byte[] buffer, int offset, int length)
                throws IOException
        {
            long start = System.nanoTime();
            int read = delegate.readNBytes(buffer, offset, length);
            cache.recordStorageRead(read, System.nanoTime() - start);
            return read;
        }

        @Override
        public long skip(long n)
                throws IOException
        {
            return delegate.skip(n);
        }

        @Override
        public int available()
                throws IOException
        {
            return delegate.available();
        }

        @Override
        public void close()
                throws IOException
        {
            delegate.close();
        }
    }
}
