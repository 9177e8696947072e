package io.overdrive.cache.scan;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSharedScanConfig
{
    @Test
    void defaults()
    {
        assertRecordedDefaults(recordDefaults(SharedScanConfig.class)
                .setEnabled(true)
                .setReadAhead(4)
                .setReadAheadMaxMemory(DataSize.of(256, MEGABYTE))
                .setMaxWait(new Duration(10, SECONDS))
                .setRowGroupPrefetch(true)
                .setFetchRestOfPage(false));
    }

    @Test
    void explicitProperties()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("cache.shared-scans.enabled", "false")
                .put("cache.read-ahead", "16")
                .put("cache.read-ahead-max-memory", "1GB")
                .put("cache.shared-scans.max-wait", "500ms")
                .put("cache.row-group-prefetch", "false")
                .put("cache.fetch-rest-of-page", "true")
                .buildOrThrow();
        SharedScanConfig expected = new SharedScanConfig()
                .setEnabled(false)
                .setReadAhead(16)
                .setReadAheadMaxMemory(DataSize.of(1, DataSize.Unit.GIGABYTE))
                .setMaxWait(new Duration(500, MILLISECONDS))
                .setRowGroupPrefetch(false)
                .setFetchRestOfPage(true);
        assertFullMapping(properties, expected);
    }

    @Test
    void oneReadAheadMustFitItsMemory()
    {
        // 4 pages of 64MB: exactly the default 256MB
        new SharedScanConfig().checkReadAheadFits(DataSize.of(64, MEGABYTE));
        // 1024 pages of 64MB: 64GB, computed without overflow
        assertThatThrownBy(() -> new SharedScanConfig().setReadAhead(1024).checkReadAheadFits(DataSize.of(64, MEGABYTE)))
                .hasMessage("cache.read-ahead-max-memory=256MB is less than one read-ahead (cache.read-ahead=1024 pages of cache.page-size=64MB), so nothing would ever be read ahead: " +
                        "set cache.read-ahead-max-memory to at least 64GB, or lower cache.read-ahead");
        // shared scans off: nothing is read ahead
        new SharedScanConfig().setEnabled(false).setReadAhead(1024).checkReadAheadFits(DataSize.of(64, MEGABYTE));
    }
}
