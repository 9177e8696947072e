package io.overdrive.cache.peer;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

class TestPeerConfig
{
    @Test
    void defaults()
    {
        assertRecordedDefaults(recordDefaults(PeerConfig.class)
                .setSharedSecret(null)
                .setPortOffset(1)
                .setBindAddress("0.0.0.0")
                .setReadTimeout(new Duration(250, MILLISECONDS))
                .setRetryAfter(new Duration(30, SECONDS))
                .setMaxReadSize(DataSize.of(16, MEGABYTE))
                .setServerThreads(4)
                .setLoadPollInterval(new Duration(500, MILLISECONDS))
                .setFetchWait(new Duration(1, SECONDS)));
        assertThat(new PeerConfig().isEnabled()).as("off without a secret").isFalse();
    }

    @Test
    void explicitProperties()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("cache.peer.shared-secret", "0123456789abcdef0123")
                .put("cache.peer.port-offset", "100")
                .put("cache.peer.bind-address", "10.0.0.7")
                .put("cache.peer.read-timeout", "1s")
                .put("cache.peer.retry-after", "5s")
                .put("cache.peer.max-read-size", "64MB")
                .put("cache.peer.server-threads", "16")
                .put("cache.peer.load-poll-interval", "2s")
                .put("cache.peer.fetch-wait", "0s")
                .buildOrThrow();
        PeerConfig expected = new PeerConfig()
                .setSharedSecret("0123456789abcdef0123")
                .setPortOffset(100)
                .setBindAddress("10.0.0.7")
                .setReadTimeout(new Duration(1, SECONDS))
                .setRetryAfter(new Duration(5, SECONDS))
                .setMaxReadSize(DataSize.of(64, MEGABYTE))
                .setServerThreads(16)
                .setLoadPollInterval(new Duration(2, SECONDS))
                .setFetchWait(new Duration(0, SECONDS));
        assertFullMapping(properties, expected);
        assertThat(expected.isEnabled()).isTrue();
    }

    @Test
    void validation()
    {
        assertValidates(new PeerConfig().setSharedSecret("0123456789abcdef"));
        assertFailsValidation(new PeerConfig().setSharedSecret("short"), "sharedSecretLongEnough",
                "cache.peer.shared-secret must be at least 16 characters: use a random string, for example the output of openssl rand -hex 32", AssertTrue.class);
        assertFailsValidation(new PeerConfig().setPortOffset(0), "portOffset", "cache.peer.port-offset must be between 1 and 1000", Min.class);
        assertFailsValidation(new PeerConfig().setServerThreads(1000), "serverThreads", "cache.peer.server-threads must be between 1 and 256", Max.class);
        assertFailsValidation(new PeerConfig().setLoadPollInterval(new Duration(1, MILLISECONDS)), "loadPollInterval", "cache.peer.load-poll-interval must be at least 10ms", MinDuration.class);
        assertFailsValidation(new PeerConfig().setFetchWait(new Duration(2, MINUTES)), "fetchWait", "cache.peer.fetch-wait must be at most 1m", MaxDuration.class);
        // an empty secret is no secret: peer reads stay off
        assertThat(new PeerConfig().setSharedSecret("").isEnabled()).isFalse();
    }
}
