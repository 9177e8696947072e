package io.overdrive.cache.hedge;

import io.overdrive.cache.session.QueryReadStats;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * A data file whose positional reads ({@link TrinoInput}: Parquet, ORC, and the page cache's misses) are hedged.
 * Streams are not: they serve sequential formats, and a second stream would re-read from the start of its range.
 */
final class HedgingInputFile
        extends ForwardingInputFile
{
    private final Hedger hedger;
    private final HedgeThreshold threshold;
    private final QueryReadStats readStats;

    HedgingInputFile(TrinoInputFile delegate, Hedger hedger, HedgeThreshold threshold, QueryReadStats readStats)
    {
        super(delegate);
        this.hedger = requireNonNull(hedger, "hedger is null");
        this.threshold = requireNonNull(threshold, "threshold is null");
        this.readStats = requireNonNull(readStats, "readStats is null");
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        // opened here, as unhedged, so that a missing file fails where it always did
        return new HedgingInput(delegate(), delegate().newInput(), hedger, threshold, readStats);
    }
}
