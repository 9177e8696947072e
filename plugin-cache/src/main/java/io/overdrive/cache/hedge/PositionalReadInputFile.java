package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.Optional;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * An HDFS data file under HDFS's own hedging. HDFS hedges positional reads only, but Trino reads the tail of a file (a
 * footer, and the whole of a Parquet file below {@code parquet.small-file-threshold}) with a stateful read, which HDFS
 * never hedges: this file's input reads the tail with a positional read instead, from the length Trino already knows,
 * so that HDFS hedges it too. It also times every read into {@code ReadLatency}, and into the adaptive threshold of
 * HDFS's hedging where that is on.
 */
final class PositionalReadInputFile
        extends ForwardingInputFile
{
    private final HedgedReadStats stats;
    private final Optional<NativeAdaptiveThreshold> threshold;
    private final Ticker ticker;

    PositionalReadInputFile(TrinoInputFile delegate, HedgedReadStats stats, Optional<NativeAdaptiveThreshold> threshold, Ticker ticker)
    {
        super(delegate);
        this.stats = requireNonNull(stats, "stats is null");
        this.threshold = requireNonNull(threshold, "threshold is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        return new PositionalReadInput(delegate().newInput());
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
            NativeAdaptiveThreshold.Read read = threshold.map(adaptive -> adaptive.readStarted(length)).orElse(null);
            boolean succeeded = false;
            try {
                input.readFully(position, buffer, bufferOffset, length);
                succeeded = true;
            }
            finally {
                long nanos = ticker.read() - start;
                if (succeeded) {
                    stats.recordReadLatency(nanos);
                }
                if (read != null) {
                    threshold.get().readFinished(read, nanos, succeeded);
                }
            }
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int maxLength)
                throws IOException
        {
            checkFromIndexSize(bufferOffset, maxLength, buffer.length);
            long fileLength = length();
            int length = (int) Math.min(fileLength, maxLength);
            readFully(fileLength - length, buffer, bufferOffset, length);
            return length;
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
