package io.overdrive.cache.coordinator;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.units.DataSize;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MinDataSize;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;

import static io.airlift.units.DataSize.Unit.MEGABYTE;

/**
 * Catalog properties of the coordinator's memory tier ({@code cache.coordinator.*}): the files a coordinator that runs
 * no splits reads itself, chiefly the file metastore's table, partition and permission files, kept in its heap. Used
 * only with {@code cache.enabled=true}.
 */
public class CoordinatorCacheConfig
{
    public static final String ENABLED = "cache.coordinator.enabled";
    public static final String MAX_SIZE = "cache.coordinator.max-size";
    public static final String MAX_FILE_SIZE = "cache.coordinator.max-file-size";

    private boolean enabled = true;
    private DataSize maxSize = DataSize.of(32, MEGABYTE);
    private DataSize maxFileSize = DataSize.of(1, MEGABYTE);

    public boolean isEnabled()
    {
        return enabled;
    }

    @Config(ENABLED)
    @ConfigDescription("With cache.enabled=true, keep the files a coordinator that runs no splits reads (file metastore metadata) in its memory")
    public CoordinatorCacheConfig setEnabled(boolean enabled)
    {
        this.enabled = enabled;
        return this;
    }

    @NotNull
    @MinDataSize("1kB")
    @MaxDataSize("1GB")
    public DataSize getMaxSize()
    {
        return maxSize;
    }

    @Config(MAX_SIZE)
    @ConfigDescription("Largest total size of the files the coordinator keeps in memory, per catalog")
    public CoordinatorCacheConfig setMaxSize(DataSize maxSize)
    {
        this.maxSize = maxSize;
        return this;
    }

    @NotNull
    @MinDataSize("1B")
    // a file is one byte array: larger ones would be humongous allocations for G1 and crowd out the small files
    @MaxDataSize("16MB")
    public DataSize getMaxFileSize()
    {
        return maxFileSize;
    }

    @Config(MAX_FILE_SIZE)
    @ConfigDescription("Largest file the coordinator keeps in memory; larger files are read from storage every time")
    public CoordinatorCacheConfig setMaxFileSize(DataSize maxFileSize)
    {
        this.maxFileSize = maxFileSize;
        return this;
    }

    @AssertTrue(message = MAX_FILE_SIZE + " must not be larger than " + MAX_SIZE)
    public boolean isMaxFileSizeWithinMaxSize()
    {
        return maxSize == null || maxFileSize == null || maxFileSize.toBytes() <= maxSize.toBytes();
    }
}
