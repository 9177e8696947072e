package io.overdrive.cache.hedge;

import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;

import java.io.EOFException;
import java.io.IOException;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * An HDFS data file read without HDFS's own hedging, for a query whose session switches hedging off
 * ({@code hedged_reads_enabled=false}): HDFS hedges every positional read of a client that has hedging on, and never a
 * stateful one, so this file's input serves each positional read by seeking a stream and reading from it. The bytes are
 * the same; one reader reads at a time.
 */
final class StatefulReadInputFile
        extends ForwardingInputFile
{
    StatefulReadInputFile(TrinoInputFile delegate)
    {
        super(delegate);
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        return new StatefulReadInput(delegate().newStream(), delegate().length());
    }

    static final class StatefulReadInput
            implements TrinoInput
    {
        private final TrinoInputStream stream;
        private final long length;

        StatefulReadInput(TrinoInputStream stream, long length)
        {
            this.stream = requireNonNull(stream, "stream is null");
            this.length = length;
        }

        @Override
        public synchronized void readFully(long position, byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException
        {
            checkFromIndexSize(bufferOffset, bufferLength, buffer.length);
            if (position < 0 || position + bufferLength > length) {
                throw new EOFException("Read of %s bytes at %s is outside the file's %s bytes".formatted(bufferLength, position, length));
            }
            stream.seek(position);
            int done = 0;
            while (done < bufferLength) {
                int read = stream.read(buffer, bufferOffset + done, bufferLength - done);
                if (read < 0) {
                    throw new EOFException("End of file after %s of %s bytes at %s".formatted(done, bufferLength, position));
                }
                done += read;
            }
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException
        {
            checkFromIndexSize(bufferOffset, bufferLength, buffer.length);
            int tail = (int) Math.min(length, bufferLength);
            readFully(length - tail, buffer, bufferOffset, tail);
            return tail;
        }

        @Override
        public synchronized void close()
                throws IOException
        {
            stream.close();
        }
    }
}
