package io.overdrive.cache.scan;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Catalog properties of shared scans ({@code cache.shared-scans.*}, {@code cache.read-ahead*}): concurrent readers of
 * an uncached page share one remote read, and sequential readers fetch ahead. They apply while the page cache runs
 * ({@code cache.enabled=true}, not {@code cache.dry-run}).
 */
public class SharedScanConfig
{
    public static final String ENABLED = "cache.shared-scans.enabled";
    public static final String READ_AHEAD = "cache.read-ahead";
    public static final String READ_AHEAD_MAX_MEMORY = "cache.read-ahead-max-memory";
    public static final String ROW_GROUP_PREFETCH = "cache.row-group-prefetch";
    public static final String FETCH_REST_OF_PAGE = "cache.fetch-rest-of-page";

    private boolean enabled = true;
    private int readAhead = 4;
    private DataSize readAheadMaxMemory = DataSize.of(256, MEGABYTE);
    private Duration maxWait = new Duration(10, SECONDS);
    private boolean rowGroupPrefetch = true;
    private boolean fetchRestOfPage;

    public boolean isEnabled()
    {
        return enabled;
    }

    @Config(ENABLED)
    @ConfigDescription("Concurrent readers of a page that is not cached share one remote read")
    public SharedScanConfig setEnabled(boolean enabled)
    {
        this.enabled = enabled;
        return this;
    }

    public boolean isRowGroupPrefetch()
    {
        return rowGroupPrefetch;
    }

    @Config(ROW_GROUP_PREFETCH)
    @ConfigDescription("Parquet and ORC readers: a read of column chunks of one row group (stripe) prefetches the same columns' chunks of the next one, in the background")
    public SharedScanConfig setRowGroupPrefetch(boolean rowGroupPrefetch)
    {
        this.rowGroupPrefetch = rowGroupPrefetch;
        return this;
    }

    public boolean isFetchRestOfPage()
    {
        return fetchRestOfPage;
    }

    @Config(FETCH_REST_OF_PAGE)
    @ConfigDescription("A reader's miss also fetches the rest of the pages it starts and ends in when, by the latency and bandwidth measured from this catalog's fetches of the storage, that transfer costs at most half a request; off (the default), a miss fetches only the chunks the reader needs")
    public SharedScanConfig setFetchRestOfPage(boolean fetchRestOfPage)
    {
        this.fetchRestOfPage = fetchRestOfPage;
        return this;
    }

    @Min(value = 0, message = "cache.read-ahead must be 0 (off) or more pages")
    @Max(value = 1024, message = "cache.read-ahead must be at most 1024 pages")
    public int getReadAhead()
    {
        return readAhead;
    }

    @Config(READ_AHEAD)
    @ConfigDescription("Pages a sequential reader fetches ahead of what it reads, in the background (in Parquet and ORC files, within the column chunk or stripe it reads); 0 turns read-ahead off")
    public SharedScanConfig setReadAhead(int readAhead)
    {
        this.readAhead = readAhead;
        return this;
    }

    @NotNull
    public DataSize getReadAheadMaxMemory()
    {
        return readAheadMaxMemory;
    }

    @Config(READ_AHEAD_MAX_MEMORY)
    @ConfigDescription("Memory of a worker's read-ahead fetches in flight, per catalog; read-ahead is skipped, never waited for, beyond it")
    public SharedScanConfig setReadAheadMaxMemory(DataSize readAheadMaxMemory)
    {
        this.readAheadMaxMemory = readAheadMaxMemory;
        return this;
    }

    @NotNull
    @MinDuration(value = "1ms", message = "cache.shared-scans.max-wait must be at least 1ms")
    public Duration getMaxWait()
    {
        return maxWait;
    }

    /**
     * Fails, naming the properties and the fix, when one read-ahead ({@code cache.read-ahead} pages of
     * {@code cache.page-size}, the most memory one takes) does not fit {@code cache.read-ahead-max-memory}: nothing
     * would ever be read ahead.
     */
    public void checkReadAheadFits(DataSize pageSize)
    {
        if (!enabled) {
            return;
        }
        // long arithmetic: 1024 pages of 64MB is 64GB
        long readAheadBytes = Math.multiplyExact((long) readAhead, pageSize.toBytes());
        if (readAheadBytes > readAheadMaxMemory.toBytes()) {
            throw new IllegalArgumentException("%s=%s is less than one read-ahead (%s=%s pages of cache.page-size=%s), so nothing would ever be read ahead: set %s to at least %s, or lower %s".formatted(
                    READ_AHEAD_MAX_MEMORY, readAheadMaxMemory, READ_AHEAD, readAhead, pageSize, READ_AHEAD_MAX_MEMORY, DataSize.ofBytes(readAheadBytes).succinct(), READ_AHEAD));
        }
    }

    @Config("cache.shared-scans.max-wait")
    @ConfigDescription("How long a reader waits for another reader's fetch of a page before it reads remote storage itself")
    public SharedScanConfig setMaxWait(Duration maxWait)
    {
        this.maxWait = maxWait;
        return this;
    }
}
