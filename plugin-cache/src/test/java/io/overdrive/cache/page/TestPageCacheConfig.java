package io.overdrive.cache.page;

import com.google.common.collect.ImmutableMap;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPageCacheConfig
{
    @Test
    void defaults()
    {
        assertRecordedDefaults(recordDefaults(PageCacheConfig.class)
                .setEnabled(false)
                .setBaseDirectories(null)
                .setMaxSizes(null)
                .setPageSize(DataSize.of(1, MEGABYTE))
                .setEvictionPolicy("LRU")
                .setTtl(null)
                .setMinFileAge(new Duration(5, SECONDS))
                .setAsyncWriteEnabled(false)
                .setAsyncWriteBufferSize(DataSize.of(64, MEGABYTE))
                .setWriteRateLimit(null)
                .setSchemaQuota(null)
                .setTableQuota(null)
                .setDryRun(false)
                .setAdmissionEnabled(true)
                .setAdmissionMinFrequency(2)
                .setDirectoryFailureThreshold(10)
                .setDirectoryRetryInterval(new Duration(1, MINUTES))
                .setSlowDiskStepAsideEnabled(true)
                .setTestingDiskReadDelay(new Duration(0, SECONDS))
                .setIncludeTables(null)
                .setExcludeTables(null));
    }

    @Test
    void explicitProperties()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("cache.enabled", "true")
                .put("cache.base-directory", "/mnt/ssd1/cache,/mnt/ssd2/cache")
                .put("cache.max-size", "100GB,200GB")
                .put("cache.page-size", "256kB")
                .put("cache.eviction-policy", "LFU")
                .put("cache.ttl", "6h")
                .put("cache.min-file-age", "0s")
                .put("cache.async-write-enabled", "true")
                .put("cache.async-write-buffer-size", "16MB")
                .put("cache.write-rate-limit", "200MB")
                .put("cache.quota.schema-max-size", "50GB")
                .put("cache.quota.table-max-size", "10GB")
                .put("cache.dry-run", "true")
                .put("cache.admission", "false")
                .put("cache.admission.min-frequency", "3")
                .put("cache.directory-failure-threshold", "5")
                .put("cache.directory-retry-interval", "30s")
                .put("cache.slow-disk-step-aside-enabled", "false")
                .put("cache.testing.disk-read-delay", "20ms")
                .put("cache.include-tables", "sales.*, *.dim_*")
                .put("cache.exclude-tables", "sales.orders_staging")
                .buildOrThrow();
        PageCacheConfig expected = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories("/mnt/ssd1/cache,/mnt/ssd2/cache")
                .setMaxSizes("100GB,200GB")
                .setPageSize(DataSize.of(256, KILOBYTE))
                .setEvictionPolicy("LFU")
                .setTtl(new Duration(6, HOURS))
                .setMinFileAge(new Duration(0, SECONDS))
                .setAsyncWriteEnabled(true)
                .setAsyncWriteBufferSize(DataSize.of(16, MEGABYTE))
                .setWriteRateLimit(DataSize.of(200, MEGABYTE))
                .setSchemaQuota(DataSize.of(50, GIGABYTE))
                .setTableQuota(DataSize.of(10, GIGABYTE))
                .setDryRun(true)
                .setAdmissionEnabled(false)
                .setAdmissionMinFrequency(3)
                .setDirectoryFailureThreshold(5)
                .setDirectoryRetryInterval(new Duration(30, SECONDS))
                .setSlowDiskStepAsideEnabled(false)
                .setTestingDiskReadDelay(new Duration(20, MILLISECONDS))
                .setIncludeTables("sales.*,*.dim_*")
                .setExcludeTables("sales.orders_staging");
        assertFullMapping(properties, expected);
    }

    @Test
    void oneMaxSizeIsSharedByAllDirectories()
    {
        PageCacheConfig config = new PageCacheConfig().setEnabled(true).setBaseDirectories("/a,/b").setMaxSizes("10GB");
        assertValidates(config);
        assertThat(config.maxSizePerDirectory()).containsExactly(DataSize.of(5, GIGABYTE), DataSize.of(5, GIGABYTE));
        assertThat(new PageCacheConfig().setBaseDirectories("/a,/b").setMaxSizes("1GB,3GB").maxSizePerDirectory())
                .isEqualTo(List.of(DataSize.of(1, GIGABYTE), DataSize.of(3, GIGABYTE)));
    }

    @Test
    void evictionPolicyIsCaseInsensitive()
    {
        PageCacheConfig config = new ConfigurationFactory(Map.of("cache.eviction-policy", "lfu")).build(PageCacheConfig.class);
        assertThat(config.getEvictionPolicy()).isEqualTo(PageCacheConfig.EvictionPolicy.LFU);
    }

    @Test
    void invalidEvictionPolicyListsTheAllowedValues()
    {
        // the message is a literal: this fails when the enum gains a value the message does not list
        String allowed = Arrays.stream(PageCacheConfig.EvictionPolicy.values()).map(Enum::name).collect(joining(", "));
        assertThat(allowed).isEqualTo("LRU, LFU");
        ConfigurationFactory factory = new ConfigurationFactory(Map.of("cache.eviction-policy", "FIFO"));
        assertThatThrownBy(() -> factory.build(PageCacheConfig.class))
                .hasMessageContaining("Invalid configuration property cache.eviction-policy: cache.eviction-policy must be one of " + allowed);
    }

    @Test
    void invalidCombinationsNameThePropertyAndTheFix()
    {
        assertFailsValidation(new PageCacheConfig().setEnabled(true).setMaxSizes("1GB"),
                "baseDirectoryPresentWhenEnabled", "cache.base-directory must name at least one directory when cache.enabled=true", jakarta.validation.constraints.AssertTrue.class);
        assertFailsValidation(new PageCacheConfig().setEnabled(true).setBaseDirectories("/a"),
                "maxSizePresentWhenEnabled", "cache.max-size must be set when cache.enabled=true: one size for all of cache.base-directory, or one size per directory", jakarta.validation.constraints.AssertTrue.class);
        assertFailsValidation(new PageCacheConfig().setEnabled(true).setBaseDirectories("/a,/b,/c").setMaxSizes("1GB,2GB"),
                "maxSizeCountValid", "cache.max-size must hold one size, or as many sizes as cache.base-directory has directories", jakarta.validation.constraints.AssertTrue.class);
    }

    @Test
    void writeBufferHoldsAPage()
    {
        PageCacheConfig config = new PageCacheConfig().setEnabled(true).setBaseDirectories("/a").setMaxSizes("1GB");
        assertFailsValidation(config.setAsyncWriteEnabled(true).setPageSize(DataSize.of(8, MEGABYTE)).setAsyncWriteBufferSize(DataSize.of(4, MEGABYTE)),
                "asyncWriteBufferHoldingAPage", "cache.async-write-buffer-size must hold at least one page (cache.page-size) when cache.async-write-enabled=true", jakarta.validation.constraints.AssertTrue.class);
        assertFailsValidation(new PageCacheConfig().setAsyncWriteBufferSize(DataSize.of(512, KILOBYTE)),
                "asyncWriteBufferSize", "must be greater than or equal to 1MB", io.airlift.units.MinDataSize.class);
        // pages written on the reading thread need no buffer
        assertValidates(config.setAsyncWriteEnabled(false));
        assertValidates(config.setAsyncWriteEnabled(true).setAsyncWriteBufferSize(DataSize.of(8, MEGABYTE)));
    }

    @Test
    void tablePatternsAreTrimmedAndNotRequired()
    {
        PageCacheConfig config = new PageCacheConfig().setIncludeTables(" sales.* ,, *.dim_* ,").setExcludeTables("");
        assertValidates(config);
        assertThat(config.getIncludeTables()).containsExactly("sales.*", "*.dim_*");
        assertThat(config.getExcludeTables()).isEmpty();
        assertThat(TableFilter.create(config).caches(CacheReadContext.forTable("hr", "dim_date", true))).isTrue();
        assertThat(TableFilter.create(new PageCacheConfig())).isSameAs(TableFilter.ALL);
    }

    @Test
    void invalidTablePatternNamesThePropertyTheEntryAndTheFix()
    {
        assertInvalidTables("cache.include-tables", "sales.*,orders",
                "cache.include-tables entry 'orders' is not schema.table: name the schema too, for example sales.orders, or *.orders for a table of that name in any schema");
        assertInvalidTables("cache.exclude-tables", "lake.sales.orders",
                "cache.exclude-tables entry 'lake.sales.orders' has more than one dot: write schema.table, without the catalog (the property applies to this catalog's tables)");
        assertInvalidTables("cache.exclude-tables", "sales.",
                "cache.exclude-tables entry 'sales.' has an empty table: write * for any table, for example sales.*");
        // an entry's own template characters come out as written
        assertInvalidTables("cache.include-tables", "sales.{x}",
                "cache.include-tables entry 'sales.{x}' holds '{': schema and table patterns take letters, digits, _, - and $, with * as the only wildcard (any characters), for example sales.* or *.dim_*");
        assertInvalidTables("cache.include-tables", "sales\\${x}.t",
                "cache.include-tables entry 'sales\\${x}.t' holds '\\'");
    }

    private static void assertInvalidTables(String property, String value, String message)
    {
        ConfigurationFactory factory = new ConfigurationFactory(Map.of(property, value));
        assertThatThrownBy(() -> factory.build(PageCacheConfig.class))
                .hasMessageContaining("Invalid configuration property %s: %s".formatted(property, message));
    }
}
