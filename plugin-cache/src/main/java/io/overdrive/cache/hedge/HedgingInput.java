package io.overdrive.cache.hedge;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.overdrive.cache.session.QueryReadStats;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * A {@link TrinoInput} whose positional reads are hedged: a read that runs past the threshold gets a second identical
 * read on a newly opened input of the same file, and the first to finish wins. Each attempt reads into its own buffer
 * and owns its input, so a loser that is still running can never touch the caller's buffer or an input in use; the
 * winner's input serves the next read. Not thread-safe, like the inputs it wraps.
 */
final class HedgingInput
        implements TrinoInput
{
    private final TrinoInputFile file;
    private final Hedger hedger;
    private final HedgeThreshold threshold;
    private final QueryReadStats readStats;
    private TrinoInput current;
    private boolean closed;

    HedgingInput(TrinoInputFile file, TrinoInput input, Hedger hedger, HedgeThreshold threshold, QueryReadStats readStats)
    {
        this.file = requireNonNull(file, "file is null");
        this.current = requireNonNull(input, "input is null");
        this.hedger = requireNonNull(hedger, "hedger is null");
        this.readStats = requireNonNull(readStats, "readStats is null");
        this.threshold = requireNonNull(threshold, "threshold is null");
    }

    @Override
    public void readFully(long position, byte[] buffer, int bufferOffset, int length)
            throws IOException
    {
        checkFromIndexSize(bufferOffset, length, buffer.length);
        System.arraycopy(readRange(position, length).buffer, 0, buffer, bufferOffset, length);
    }

    // the winner's own buffer, not copied
    @Override
    public Slice readFully(long position, int length)
            throws IOException
    {
        return Slices.wrappedBuffer(readRange(position, length).buffer);
    }

    @Override
    public int readTail(byte[] buffer, int bufferOffset, int maxLength)
            throws IOException
    {
        checkFromIndexSize(bufferOffset, maxLength, buffer.length);
        ReadAttempt winner = readEnd(maxLength);
        System.arraycopy(winner.buffer, 0, buffer, bufferOffset, winner.bytesRead);
        return winner.bytesRead;
    }

    @Override
    public Slice readTail(int length)
            throws IOException
    {
        ReadAttempt winner = readEnd(length);
        return Slices.wrappedBuffer(winner.buffer, 0, winner.bytesRead);
    }

    private ReadAttempt readRange(long position, int length)
            throws IOException
    {
        return read(length, (input, target) -> {
            input.readFully(position, target, 0, length);
            return length;
        });
    }

    private ReadAttempt readEnd(int maxLength)
            throws IOException
    {
        return read(maxLength, (input, target) -> input.readTail(target, 0, maxLength));
    }

    @Override
    public Metrics getMetrics()
    {
        return current == null ? Metrics.EMPTY : current.getMetrics();
    }

    @Override
    public void close()
            throws IOException
    {
        if (closed) {
            return;
        }
        closed = true;
        if (current != null) {
            current.close();
            current = null;
        }
    }

    private ReadAttempt read(int bufferSize, Read read)
            throws IOException
    {
        if (closed) {
            throw new IOException("Input is closed: " + file.location());
        }
        // the primary attempt owns the input now (null when an earlier read failed: it opens one); the winner's comes back
        TrinoInput primaryInput = current;
        current = null;
        ReadAttempt primary = new ReadAttempt(primaryInput, file, bufferSize, read);
        ReadAttempt winner = (ReadAttempt) hedger.read(primary, () -> new ReadAttempt(null, file, bufferSize, read), threshold, readStats);
        current = winner.input;
        return winner;
    }

    @FunctionalInterface
    private interface Read
    {
        /** Reads into {@code target} from its start; returns the number of bytes read. */
        int read(TrinoInput input, byte[] target)
                throws IOException;
    }

    private static final class ReadAttempt
            implements Hedger.Attempt
    {
        private final TrinoInputFile file;
        private final int bufferSize;
        private final Read read;
        private TrinoInput input;
        private byte[] buffer;
        private int bytesRead;

        ReadAttempt(TrinoInput input, TrinoInputFile file, int bufferSize, Read read)
        {
            this.input = input;
            this.file = file;
            this.bufferSize = bufferSize;
            this.read = read;
        }

        @Override
        public void run()
                throws IOException
        {
            if (input == null) {
                input = file.newInput();
            }
            buffer = new byte[bufferSize];
            bytesRead = read.read(input, buffer);
        }

        @Override
        public long bytesRead()
        {
            return bytesRead;
        }

        @Override
        public void release()
        {
            buffer = null;
            if (input != null) {
                try {
                    input.close();
                }
                catch (IOException | RuntimeException _) {
                    // a loser's or failed attempt's input: nothing more to read from it
                }
                input = null;
            }
        }
    }
}
