package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableMap;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestShardsConfig
{
    @Test
    void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(ShardsConfig.class)
                .setUris("")
                .setUser(null)
                .setPassword(null)
                .setTruststorePath(null)
                .setTruststorePassword(null)
                .setConnectTimeout(new Duration(10, SECONDS))
                .setQueryTimeout(new Duration(1, HOURS))
                .setFailurePolicy(FailurePolicy.FAIL)
                .setHedgeDelay(new Duration(1, SECONDS))
                .setBufferedPages(4));
    }

    @Test
    void testExplicitPropertyMappings()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("shards.uris", "https://a:8443/hive/sales, https://b:8443/hive/sales")
                .put("shards.user", "merger")
                .put("shards.password", "secret")
                .put("shards.ssl.truststore.path", "/etc/trino/truststore.jks")
                .put("shards.ssl.truststore.password", "changeit")
                .put("shards.connect-timeout", "3s")
                .put("shards.query-timeout", "20m")
                .put("shards.failure-policy", "PARTIAL")
                .put("shards.hedge-delay", "250ms")
                .put("shards.buffered-pages", "16")
                .buildOrThrow();
        assertFullMapping(properties, new ShardsConfig()
                .setUris("https://a:8443/hive/sales,https://b:8443/hive/sales")
                .setUser("merger")
                .setPassword("secret")
                .setTruststorePath("/etc/trino/truststore.jks")
                .setTruststorePassword("changeit")
                .setConnectTimeout(new Duration(3, SECONDS))
                .setQueryTimeout(new Duration(20, MINUTES))
                .setFailurePolicy(FailurePolicy.PARTIAL)
                .setHedgeDelay(new Duration(250, MILLISECONDS))
                .setBufferedPages(16));
    }

    @Test
    void testUrisAreTrimmedAndSplit()
    {
        assertThat(new ShardsConfig().setUris(" http://a:8080/c , http://b:8080/c ,").getUris())
                .isEqualTo(List.of("http://a:8080/c", "http://b:8080/c"));
        assertThat(new ShardsConfig().setUser(" ").getUser()).isEqualTo(Optional.empty());
    }

    @Test
    void testValidation()
    {
        assertThat(build(Map.of("shards.uris", "http://a:8080/c")).getUris()).containsExactly("http://a:8080/c");
        assertInvalid(Map.of(), "shards.uris must list at least one shard");
        assertInvalid(Map.of("shards.uris", "http://a:8080/c", "shards.user", "u", "shards.password", "p"),
                "shards.password needs https:// shard URIs (Trino refuses passwords over http); use https:// in shards.uris and shards.replicas.<n>");
        assertInvalid(Map.of("shards.uris", "https://a:8080/c", "shards.password", "p"), "shards.password needs shards.user");
        assertInvalid(Map.of("shards.uris", "http://a:8080/c", "shards.ssl.truststore.password", "p"), "shards.ssl.truststore.password needs shards.ssl.truststore.path");
        assertInvalid(Map.of("shards.uris", "http://a:8080/c", "shards.buffered-pages", "0"), "shards.buffered-pages must be between 1 and 1024");
        assertInvalid(Map.of("shards.uris", "http://a:8080/c", "shards.failure-policy", "SOMETIMES"), "shards.failure-policy");
        assertInvalid(Map.of("shards.uris", "http://a:8080/c", "shards.hedge-delay", "0ms"), "shards.hedge-delay");
    }

    private static ShardsConfig build(Map<String, String> properties)
    {
        return new ConfigurationFactory(properties).build(ShardsConfig.class);
    }

    private static void assertInvalid(Map<String, String> properties, String message)
    {
        assertThatThrownBy(() -> build(properties)).hasMessageContaining(message);
    }
}
