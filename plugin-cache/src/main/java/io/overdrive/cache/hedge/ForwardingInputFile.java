package io.overdrive.cache.hedge;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;

import java.io.IOException;
import java.time.Instant;

import static java.util.Objects.requireNonNull;

/** A {@link TrinoInputFile} that forwards everything but {@link #newInput} to another. */
abstract class ForwardingInputFile
        implements TrinoInputFile
{
    private final TrinoInputFile delegate;

    ForwardingInputFile(TrinoInputFile delegate)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    protected final TrinoInputFile delegate()
    {
        return delegate;
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
