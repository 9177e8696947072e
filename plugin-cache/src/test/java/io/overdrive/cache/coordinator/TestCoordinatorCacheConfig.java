package io.overdrive.cache.coordinator;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MinDataSize;
import jakarta.validation.constraints.AssertTrue;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;

class TestCoordinatorCacheConfig
{
    @Test
    void defaults()
    {
        assertRecordedDefaults(recordDefaults(CoordinatorCacheConfig.class)
                .setEnabled(true)
                .setMaxSize(DataSize.of(32, MEGABYTE))
                .setMaxFileSize(DataSize.of(1, MEGABYTE)));
    }

    @Test
    void explicitProperties()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("cache.coordinator.enabled", "false")
                .put("cache.coordinator.max-size", "128MB")
                .put("cache.coordinator.max-file-size", "4MB")
                .buildOrThrow();
        CoordinatorCacheConfig expected = new CoordinatorCacheConfig()
                .setEnabled(false)
                .setMaxSize(DataSize.of(128, MEGABYTE))
                .setMaxFileSize(DataSize.of(4, MEGABYTE));
        assertFullMapping(properties, expected);
    }

    @Test
    void validation()
    {
        assertValidates(new CoordinatorCacheConfig().setMaxSize(DataSize.of(1, KILOBYTE)).setMaxFileSize(DataSize.of(1, KILOBYTE)));
        assertFailsValidation(new CoordinatorCacheConfig().setMaxSize(DataSize.of(4, MEGABYTE)).setMaxFileSize(DataSize.of(8, MEGABYTE)),
                "maxFileSizeWithinMaxSize", "cache.coordinator.max-file-size must not be larger than cache.coordinator.max-size", AssertTrue.class);
        assertFailsValidation(new CoordinatorCacheConfig().setMaxSize(DataSize.ofBytes(100)), "maxSize", "must be greater than or equal to 1kB", MinDataSize.class);
        assertFailsValidation(new CoordinatorCacheConfig().setMaxSize(DataSize.of(2, GIGABYTE)), "maxSize", "must be less than or equal to 1GB", MaxDataSize.class);
        assertFailsValidation(new CoordinatorCacheConfig().setMaxSize(DataSize.of(1, GIGABYTE)).setMaxFileSize(DataSize.of(32, MEGABYTE)),
                "maxFileSize", "must be less than or equal to 16MB", MaxDataSize.class);
    }
}
