package io.overdrive.cache;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;

import java.io.IOException;
import java.time.Instant;

import static java.util.Objects.requireNonNull;

/** A file whose bytes and status come from another file system, named as an object store names it ({@code s3://bucket/...}). */
public record RenamedInputFile(Location location, TrinoInputFile bytes)
        implements TrinoInputFile
{
    public RenamedInputFile
    {
        requireNonNull(location, "location is null");
        requireNonNull(bytes, "bytes is null");
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        return bytes.newInput();
    }

    @Override
    public TrinoInputStream newStream()
            throws IOException
    {
        return bytes.newStream();
    }

    @Override
    public long length()
            throws IOException
    {
        return bytes.length();
    }

    @Override
    public Instant lastModified()
            throws IOException
    {
        return bytes.lastModified();
    }

    @Override
    public boolean exists()
            throws IOException
    {
        return bytes.exists();
    }
}
