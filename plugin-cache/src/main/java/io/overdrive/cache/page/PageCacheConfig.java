package io.overdrive.cache.page;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigHidden;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDataSize;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Catalog properties of Overdrive's local page cache ({@code cache.*}). Names follow Presto's Alluxio cache.
 */
public class PageCacheConfig
{
    public static final String INCLUDE_TABLES = "cache.include-tables";
    public static final String EXCLUDE_TABLES = "cache.exclude-tables";

    public enum EvictionPolicy
    {
        LRU,
        LFU;

        /** Case-insensitive, '-' for '_', as Airlift's own enum coercion; empty for an unknown name. */
        static Optional<EvictionPolicy> fromName(String name)
        {
            requireNonNull(name, "name is null");
            return Arrays.stream(values())
                    .filter(policy -> policy.name().equalsIgnoreCase(name.strip().replace('-', '_')))
                    .findFirst();
        }
    }

    private boolean enabled;
    private List<String> baseDirectories = ImmutableList.of();
    private List<DataSize> maxSizes = ImmutableList.of();
    private DataSize pageSize = DataSize.of(1, MEGABYTE);
    private EvictionPolicy evictionPolicy = EvictionPolicy.LRU;
    private Optional<Duration> ttl = Optional.empty();
    private Duration minFileAge = new Duration(5, SECONDS);
    private boolean asyncWriteEnabled;
    private DataSize asyncWriteBufferSize = DataSize.of(64, MEGABYTE);
    private Optional<DataSize> writeRateLimit = Optional.empty();
    private Optional<DataSize> schemaQuota = Optional.empty();
    private Optional<DataSize> tableQuota = Optional.empty();
    private boolean dryRun;
    private boolean admissionEnabled = true;
    private int admissionMinFrequency = 2;
    private int directoryFailureThreshold = 10;
    private Duration directoryRetryInterval = new Duration(1, MINUTES);
    private boolean slowDiskStepAsideEnabled = true;
    private Duration testingDiskReadDelay = new Duration(0, SECONDS);
    private List<String> includeTables = ImmutableList.of();
    private List<String> excludeTables = ImmutableList.of();

    public boolean isEnabled()
    {
        return enabled;
    }

    @Config("cache.enabled")
    @ConfigDescription("Cache data file pages on the workers' local disks")
    public PageCacheConfig setEnabled(boolean enabled)
    {
        this.enabled = enabled;
        return this;
    }

    @NotNull
    public List<String> getBaseDirectories()
    {
        return baseDirectories;
    }

    @Config("cache.base-directory")
    @ConfigDescription("Comma-separated local directories for cached pages, ideally one per disk")
    public PageCacheConfig setBaseDirectories(String baseDirectories)
    {
        this.baseDirectories = baseDirectories == null ? ImmutableList.of() : Splitter.on(',').trimResults().omitEmptyStrings().splitToList(baseDirectories);
        return this;
    }

    @NotNull
    public List<DataSize> getMaxSizes()
    {
        return maxSizes;
    }

    @Config("cache.max-size")
    @ConfigDescription("Largest size of the cache: one value shared evenly by all directories, or one value per directory")
    public PageCacheConfig setMaxSizes(String maxSizes)
    {
        this.maxSizes = maxSizes == null ? ImmutableList.of() : Splitter.on(',').trimResults().omitEmptyStrings().splitToStream(maxSizes).map(DataSize::valueOf).collect(ImmutableList.toImmutableList());
        return this;
    }

    @NotNull
    @MinDataSize("4kB")
    @MaxDataSize("64MB")
    public DataSize getPageSize()
    {
        return pageSize;
    }

    @Config("cache.page-size")
    @ConfigDescription("Size of a cached page; reads are aligned to pages")
    public PageCacheConfig setPageSize(DataSize pageSize)
    {
        this.pageSize = pageSize;
        return this;
    }

    // null only after an unknown name was set (see below)
    @NotNull(message = "cache.eviction-policy must be one of LRU, LFU")
    public EvictionPolicy getEvictionPolicy()
    {
        return evictionPolicy;
    }

    // a String setter so that an unknown name fails validation with the allowed values: Airlift's enum coercion does
    // not list them, and it reports an exception thrown by a setter without its message or the property's name
    @Config("cache.eviction-policy")
    @ConfigDescription("Which page to evict when the cache is full: LRU or LFU")
    public PageCacheConfig setEvictionPolicy(String evictionPolicy)
    {
        this.evictionPolicy = EvictionPolicy.fromName(evictionPolicy).orElse(null);
        return this;
    }

    public Optional<@MinDuration("1s") Duration> getTtl()
    {
        return ttl;
    }

    @Config("cache.ttl")
    @ConfigDescription("Evict pages older than this, whatever their use (unset: no age limit)")
    public PageCacheConfig setTtl(Duration ttl)
    {
        this.ttl = Optional.ofNullable(ttl);
        return this;
    }

    @NotNull
    @MinDuration("0s")
    public Duration getMinFileAge()
    {
        return minFileAge;
    }

    @Config("cache.min-file-age")
    @ConfigDescription("Files on object stores (whose modification times count whole seconds) are read past the cache until their modification time is this old: a file rewritten at the same length within the same second keeps its cache key. At least a second plus the largest difference between the workers' clocks and the store's; 0s turns the check off")
    public PageCacheConfig setMinFileAge(Duration minFileAge)
    {
        this.minFileAge = minFileAge;
        return this;
    }

    public boolean isAsyncWriteEnabled()
    {
        return asyncWriteEnabled;
    }

    @Config("cache.async-write-enabled")
    @ConfigDescription("Write pages to the cache disks on background threads instead of on the reading thread; pages waiting for the disk take memory up to cache.async-write-buffer-size")
    public PageCacheConfig setAsyncWriteEnabled(boolean asyncWriteEnabled)
    {
        this.asyncWriteEnabled = asyncWriteEnabled;
        return this;
    }

    @NotNull
    @MinDataSize("1MB")
    public DataSize getAsyncWriteBufferSize()
    {
        return asyncWriteBufferSize;
    }

    @Config("cache.async-write-buffer-size")
    @ConfigDescription("With cache.async-write-enabled, most memory held by pages waiting for the cache disks; a page that does not fit is not cached (it is never waited for)")
    public PageCacheConfig setAsyncWriteBufferSize(DataSize asyncWriteBufferSize)
    {
        this.asyncWriteBufferSize = asyncWriteBufferSize;
        return this;
    }

    public Optional<@MinDataSize("1MB") DataSize> getWriteRateLimit()
    {
        return writeRateLimit;
    }

    @Config("cache.write-rate-limit")
    @ConfigDescription("Most bytes per second written to the cache disks, to spare flash endurance (unset: no limit); pages over the limit are not cached")
    public PageCacheConfig setWriteRateLimit(DataSize writeRateLimit)
    {
        this.writeRateLimit = Optional.ofNullable(writeRateLimit);
        return this;
    }

    public Optional<@MinDataSize("1MB") DataSize> getSchemaQuota()
    {
        return schemaQuota;
    }

    @Config("cache.quota.schema-max-size")
    @ConfigDescription("Most cache space one schema may use; past it the schema's own least useful pages are evicted (unset: no limit)")
    public PageCacheConfig setSchemaQuota(DataSize schemaQuota)
    {
        this.schemaQuota = Optional.ofNullable(schemaQuota);
        return this;
    }

    public Optional<@MinDataSize("1MB") DataSize> getTableQuota()
    {
        return tableQuota;
    }

    @Config("cache.quota.table-max-size")
    @ConfigDescription("Most cache space one table may use; past it the table's own least useful pages are evicted (unset: no limit)")
    public PageCacheConfig setTableQuota(DataSize tableQuota)
    {
        this.tableQuota = Optional.ofNullable(tableQuota);
        return this;
    }

    public boolean isDryRun()
    {
        return dryRun;
    }

    @Config("cache.dry-run")
    @ConfigDescription("Shadow mode: count what would have hit the cache without storing any data")
    public PageCacheConfig setDryRun(boolean dryRun)
    {
        this.dryRun = dryRun;
        return this;
    }

    public boolean isAdmissionEnabled()
    {
        return admissionEnabled;
    }

    @Config("cache.admission")
    @ConfigDescription("Admit a page only once it has been read often enough (TinyLFU-style), so one-off scans do not evict hot pages")
    public PageCacheConfig setAdmissionEnabled(boolean admissionEnabled)
    {
        this.admissionEnabled = admissionEnabled;
        return this;
    }

    @jakarta.validation.constraints.Min(1)
    @jakarta.validation.constraints.Max(15)
    public int getAdmissionMinFrequency()
    {
        return admissionMinFrequency;
    }

    @Config("cache.admission.min-frequency")
    @ConfigDescription("With cache.admission, how many recent reads of a page (this one included) admit it to the cache")
    public PageCacheConfig setAdmissionMinFrequency(int admissionMinFrequency)
    {
        this.admissionMinFrequency = admissionMinFrequency;
        return this;
    }

    @jakarta.validation.constraints.Min(1)
    public int getDirectoryFailureThreshold()
    {
        return directoryFailureThreshold;
    }

    @Config("cache.directory-failure-threshold")
    @ConfigDescription("Consecutive read or write I/O errors after which a cache directory is taken out of use until a probe finds it working")
    public PageCacheConfig setDirectoryFailureThreshold(int directoryFailureThreshold)
    {
        this.directoryFailureThreshold = directoryFailureThreshold;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getDirectoryRetryInterval()
    {
        return directoryRetryInterval;
    }

    @Config("cache.directory-retry-interval")
    @ConfigDescription("How long a cache directory taken out of use waits before it is probed; doubles after each failed probe, up to 30m")
    public PageCacheConfig setDirectoryRetryInterval(Duration directoryRetryInterval)
    {
        this.directoryRetryInterval = directoryRetryInterval;
        return this;
    }

    public boolean isSlowDiskStepAsideEnabled()
    {
        return slowDiskStepAsideEnabled;
    }

    @Config("cache.slow-disk-step-aside-enabled")
    @ConfigDescription("While a cache directory reads slower than remote storage, read its pages from storage and write none to it, but for a sampled read that measures it, until it is fast again")
    public PageCacheConfig setSlowDiskStepAsideEnabled(boolean slowDiskStepAsideEnabled)
    {
        this.slowDiskStepAsideEnabled = slowDiskStepAsideEnabled;
        return this;
    }

    @NotNull
    @MaxDuration("10s")
    public Duration getTestingDiskReadDelay()
    {
        return testingDiskReadDelay;
    }

    @ConfigHidden
    @Config("cache.testing.disk-read-delay")
    @ConfigDescription("For benchmarks and tests only: a fault injected at the page store, every read of a page from a cache directory waits this long first, as a slow disk would (default 0s: none)")
    public PageCacheConfig setTestingDiskReadDelay(Duration testingDiskReadDelay)
    {
        this.testingDiskReadDelay = testingDiskReadDelay;
        return this;
    }

    @NotNull
    @TablePatterns(property = INCLUDE_TABLES)
    public List<String> getIncludeTables()
    {
        return includeTables;
    }

    @Config(INCLUDE_TABLES)
    @ConfigDescription("Comma-separated schema.table patterns of the tables to cache, * matching any characters, e.g. sales.*,*.dim_* (unset: every table)")
    public PageCacheConfig setIncludeTables(String includeTables)
    {
        this.includeTables = tablePatterns(includeTables);
        return this;
    }

    @NotNull
    @TablePatterns(property = EXCLUDE_TABLES)
    public List<String> getExcludeTables()
    {
        return excludeTables;
    }

    @Config(EXCLUDE_TABLES)
    @ConfigDescription("Comma-separated schema.table patterns of tables never to cache, * matching any characters; wins over cache.include-tables")
    public PageCacheConfig setExcludeTables(String excludeTables)
    {
        this.excludeTables = tablePatterns(excludeTables);
        return this;
    }

    // entries as written, checked by @TablePatterns (not here: see setEvictionPolicy)
    private static List<String> tablePatterns(String patterns)
    {
        return patterns == null ? ImmutableList.of() : Splitter.on(',').trimResults().omitEmptyStrings().splitToList(patterns);
    }

    @AssertTrue(message = "cache.base-directory must name at least one directory when cache.enabled=true")
    public boolean isBaseDirectoryPresentWhenEnabled()
    {
        return !enabled || !baseDirectories.isEmpty();
    }

    @AssertTrue(message = "cache.max-size must be set when cache.enabled=true: one size for all of cache.base-directory, or one size per directory")
    public boolean isMaxSizePresentWhenEnabled()
    {
        return !enabled || !maxSizes.isEmpty();
    }

    @AssertTrue(message = "cache.max-size must hold one size, or as many sizes as cache.base-directory has directories")
    public boolean isMaxSizeCountValid()
    {
        return maxSizes.size() <= 1 || maxSizes.size() == baseDirectories.size();
    }

    @AssertTrue(message = "cache.async-write-buffer-size must hold at least one page (cache.page-size) when cache.async-write-enabled=true")
    public boolean isAsyncWriteBufferHoldingAPage()
    {
        return !asyncWriteEnabled || asyncWriteBufferSize == null || pageSize == null || asyncWriteBufferSize.toBytes() >= pageSize.toBytes();
    }

    /** The size limit of each directory: one shared value is divided evenly. */
    public List<DataSize> maxSizePerDirectory()
    {
        if (maxSizes.size() == 1) {
            long each = maxSizes.getFirst().toBytes() / Math.max(1, baseDirectories.size());
            return baseDirectories.stream().map(_ -> DataSize.ofBytes(each)).collect(ImmutableList.toImmutableList());
        }
        return maxSizes;
    }
}
