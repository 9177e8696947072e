package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.time.Instant;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * An HDFS data file under HDFS's own hedging. HDFS hedges positional reads only, but Trino reads the tail of a file (a
 * footer, and the whole of a Parquet file below {@code parquet.small-file-threshold}) with a stateful read, which HDFS
 * never hedges: this file's input reads the tail with a positional read instead, from the length Trino already knows,
 * so that HDFS hedges it too. It also times every read into {@code ReadLatency}.
 */
final class PositionalReadInputFile
        implements TrinoInputFile
{
    private final TrinoInputFile delegate;
    private final HedgedReadStats stats;
    private final Ticker ticker;

    PositionalReadInputFile(TrinoInputFile delegate, HedgedReadStats stats, Ticker ticker)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        return new PositionalReadInput(delegate.newInput());
    }

    @Override
    public TrinoInputStream newStream()
            throws IOException
    {
        return delegate.newStream();
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

    private final class PositionalReadInput
            implements TrinoInput
    {
        private final TrinoInput input;

        PositionalReadInput(TrinoInput input)
        {
            this.input = requireNonNull(input, "input is null");
        }

        @Override
        public void readFully(long position, byte[] buffer, int bufferOffset, int length)
                throws IOException
        {
            long start = ticker.read();
            input.readFully(position, buffer, bufferOffset, length);
            stats.recordReadLatency(ticker.read() - start);
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int maxLength)
                throws IOException
        {
            checkFromIndexSize(bufferOffset, maxLength, buffer.length);
            int length = (int) Math.min(delegate.length(), maxLength);
            readFully(delegate.length() - length, buffer, bufferOffset, length);
            return length;
        }

        @Override
        public Slice readTail(int maxLength)
                throws IOException
        {
            int length = (int) Math.min(delegate.length(), maxLength);
            byte[] buffer = new byte[length];
            readFully(delegate.length() - length, buffer, 0, length);
            return Slices.wrappedBuffer(buffer);
        }

        @Override
        public Metrics getMetrics()
        {
            return input.getMetrics();
        }

        @Override
        public void close()
                throws IOException
        {
            input.close();
        }
    }
}
