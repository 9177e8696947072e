package io.overdrive.scheduler.affinity;

import com.google.common.collect.ImmutableMap;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.overdrive.scheduler.affinity.AffinityGranularity.FILE;
import static io.overdrive.scheduler.affinity.AffinityGranularity.SPLIT;
import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.NO_PREFERENCE;
import static io.overdrive.scheduler.affinity.NodeSelectionStrategy.SOFT_AFFINITY;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class TestNodeSelectionConfig
{
    @Test
    public void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(NodeSelectionConfig.class)
                .setNodeSelectionStrategy("NO_PREFERENCE")
                .setPreferredHostsCount(1000)
                .setAffinityGranularity("SPLIT")
                .setLoadBalanceEpsilon(0.15)
                .setLoadFloor(16)
                .setMembershipRefreshInterval(new Duration(5, SECONDS))
                .setLoadHalfLife(new Duration(2, SECONDS)));
    }

    @Test
    public void testExplicitPropertyMappings()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("node-selection-strategy", "SOFT_AFFINITY")
                .put("node-selection.preferred-hosts-count", "3")
                .put("node-selection.affinity-granularity", "FILE")
                .put("node-selection.load-balance-epsilon", "0.1")
                .put("node-selection.load-floor", "4.5")
                .put("node-selection.membership-refresh-interval", "500ms")
                .put("node-selection.load-half-life", "30s")
                .buildOrThrow();

        NodeSelectionConfig expected = new NodeSelectionConfig()
                .setNodeSelectionStrategy("SOFT_AFFINITY")
                .setPreferredHostsCount(3)
                .setAffinityGranularity("FILE")
                .setLoadBalanceEpsilon(0.1)
                .setLoadFloor(4.5)
                .setMembershipRefreshInterval(new Duration(500, MILLISECONDS))
                .setLoadHalfLife(new Duration(30, SECONDS));

        assertFullMapping(properties, expected);
    }

    @Test
    public void testEnumValuesAreCaseInsensitive()
    {
        NodeSelectionConfig config = new ConfigurationFactory(Map.of(
                "node-selection-strategy", "hard_affinity",
                "node-selection.affinity-granularity", "file"))
                .build(NodeSelectionConfig.class);
        assertThat(config.getNodeSelectionStrategy()).isEqualTo(NodeSelectionStrategy.HARD_AFFINITY);
        assertThat(config.getAffinityGranularity()).isEqualTo(FILE);
        // as Airlift's own enum coercion did: '-' for '_'
        assertThat(new NodeSelectionConfig().setNodeSelectionStrategy("soft-affinity").getNodeSelectionStrategy()).isEqualTo(SOFT_AFFINITY);
        assertThat(new NodeSelectionConfig().setNodeSelectionStrategy(NO_PREFERENCE).getNodeSelectionStrategy()).isEqualTo(NO_PREFERENCE);
        assertThat(new NodeSelectionConfig().setAffinityGranularity(SPLIT).getAffinityGranularity()).isEqualTo(SPLIT);
    }

    @Test
    public void testInvalidPropertiesNameThePropertyAndTheFix()
    {
        assertInvalid("node-selection.preferred-hosts-count", "0", "node-selection.preferred-hosts-count must be at least 1 (the preferred worker itself), e.g. 1000");
        assertInvalid("node-selection.load-balance-epsilon", "0", "node-selection.load-balance-epsilon must be greater than 0, e.g. 0.25");
        assertInvalid("node-selection.load-balance-epsilon", "-0.5", "node-selection.load-balance-epsilon must be greater than 0, e.g. 0.25");
        assertInvalid("node-selection.load-balance-epsilon", "101", "node-selection.load-balance-epsilon must be at most 100");
        assertInvalid("node-selection.load-floor", "-1", "node-selection.load-floor must be at least 0 (0: the load bound applies from the first split), e.g. 16");
        assertInvalid("node-selection.load-floor", "1000001", "node-selection.load-floor must be at most 1000000 standard splits");
        assertInvalid("node-selection.membership-refresh-interval", "10ms", "node-selection.membership-refresh-interval must be at least 100ms");
        assertInvalid("node-selection.membership-refresh-interval", "5m", "node-selection.membership-refresh-interval must be at most 1m");
        assertInvalid("node-selection.load-half-life", "10ms", "node-selection.load-half-life must be at least 100ms");
        assertInvalid("node-selection.load-half-life", "2h", "node-selection.load-half-life must be at most 1h");
        assertInvalid("node-selection-strategy", "SOFT", "node-selection-strategy must be one of " + allowed(NodeSelectionStrategy.class));
        assertInvalid("node-selection.affinity-granularity", "BLOCK", "node-selection.affinity-granularity must be one of " + allowed(AffinityGranularity.class));
    }

    @Test
    public void testInvalidEnumValuesListTheAllowedValues()
    {
        // the messages are literals: these fail when an enum gains a value the message does not list
        assertThat(allowed(NodeSelectionStrategy.class)).isEqualTo("NO_PREFERENCE, SOFT_AFFINITY, HARD_AFFINITY");
        assertThat(allowed(AffinityGranularity.class)).isEqualTo("FILE, SPLIT");
        assertInvalid("node-selection-strategy", "", "node-selection-strategy must be one of NO_PREFERENCE, SOFT_AFFINITY, HARD_AFFINITY");
    }

    private static String allowed(Class<? extends Enum<?>> type)
    {
        return Arrays.stream(type.getEnumConstants()).map(Enum::name).collect(joining(", "));
    }

    private static void assertInvalid(String property, String value, String message)
    {
        ConfigurationFactory factory = new ConfigurationFactory(Map.of(property, value));
        assertThatThrownBy(() -> factory.build(NodeSelectionConfig.class))
                .hasMessageContaining(property)
                .hasMessageContaining(message);
    }
}
