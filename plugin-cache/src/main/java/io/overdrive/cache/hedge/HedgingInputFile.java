package io.overdrive.cache.hedge;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;

import java.io.IOException;
import java.time.Instant;

import static java.util.Objects.requireNonNull;

/**
 * A data file whose positional reads ({@link TrinoInput}: Parquet, ORC, and the page cache's misses) are hedged.
 * Streams are not: they serve sequential formats, and a second stream would re-read from the start of its range.
 */
final class HedgingInputFile
        implements TrinoInputFile
{
    private final TrinoInputFile delegate;
    private final Hedger hedger;
    private final HedgeThreshold threshold;

    HedgingInputFile(TrinoInputFile delegate, Hedger hedger, HedgeThreshold threshold)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.hedger = requireNonNull(hedger, "hedger is null");
        this.threshold = requireNonNull(threshold, "threshold is null");
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        // opened here, as unhedged, so that a missing file fails where it always did
        return new HedgingInput(delegate, delegate.newInput(), hedger, threshold);
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
}
