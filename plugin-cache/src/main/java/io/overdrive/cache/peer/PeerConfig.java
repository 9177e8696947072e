package io.overdrive.cache.peer;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigSecuritySensitive;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDataSize;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Optional;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Catalog properties of peer reads ({@code cache.peer.*}): every worker serves the pages it caches to the catalog's
 * other workers, and a worker that misses a page asks the worker the file's pages belong to before it reads storage.
 * On only with {@code cache.peer.shared-secret}, the same on every node.
 */
public class PeerConfig
{
    public static final String SHARED_SECRET = "cache.peer.shared-secret";
    public static final String PORT_OFFSET = "cache.peer.port-offset";
    public static final String BIND_ADDRESS = "cache.peer.bind-address";
    public static final String READ_TIMEOUT = "cache.peer.read-timeout";
    public static final String RETRY_AFTER = "cache.peer.retry-after";
    public static final String MAX_READ_SIZE = "cache.peer.max-read-size";
    public static final String SERVER_THREADS = "cache.peer.server-threads";
    public static final String LOAD_POLL_INTERVAL = "cache.peer.load-poll-interval";
    public static final String FETCH_WAIT = "cache.peer.fetch-wait";

    // an HMAC-SHA256 key shorter than this is guessable; Trino asks nothing of its internal secret, we do
    static final int MIN_SECRET_LENGTH = 16;

    private Optional<String> sharedSecret = Optional.empty();
    private int portOffset = 1;
    private String bindAddress = "0.0.0.0";
    private Duration readTimeout = new Duration(250, MILLISECONDS);
    private Duration retryAfter = new Duration(30, SECONDS);
    private DataSize maxReadSize = DataSize.of(16, MEGABYTE);
    private int serverThreads = 4;
    private Duration loadPollInterval = new Duration(500, MILLISECONDS);
    private Duration fetchWait = new Duration(1, SECONDS);

    public Optional<String> getSharedSecret()
    {
        return sharedSecret;
    }

    @Config(SHARED_SECRET)
    @ConfigSecuritySensitive
    @ConfigDescription("Secret every node of the catalog shares (at least 16 characters); sets peer reads on. Requests not signed with it are refused")
    public PeerConfig setSharedSecret(String sharedSecret)
    {
        this.sharedSecret = Optional.ofNullable(sharedSecret).filter(secret -> !secret.isEmpty());
        return this;
    }

    @AssertTrue(message = "cache.peer.shared-secret must be at least 16 characters: use a random string, for example the output of openssl rand -hex 32")
    public boolean isSharedSecretLongEnough()
    {
        return sharedSecret.map(secret -> secret.length() >= MIN_SECRET_LENGTH).orElse(true);
    }

    public boolean isEnabled()
    {
        return sharedSecret.isPresent();
    }

    @Min(value = 1, message = "cache.peer.port-offset must be between 1 and 1000")
    @Max(value = 1000, message = "cache.peer.port-offset must be between 1 and 1000")
    public int getPortOffset()
    {
        return portOffset;
    }

    @Config(PORT_OFFSET)
    @ConfigDescription("The peer service listens on the worker's HTTP port plus this offset (8081 for Trino's default 8080)")
    public PeerConfig setPortOffset(int portOffset)
    {
        this.portOffset = portOffset;
        return this;
    }

    @NotNull
    public String getBindAddress()
    {
        return bindAddress;
    }

    @Config(BIND_ADDRESS)
    @ConfigDescription("Address the peer service listens on")
    public PeerConfig setBindAddress(String bindAddress)
    {
        this.bindAddress = bindAddress;
        return this;
    }

    @NotNull
    @MinDuration(value = "1ms", message = "cache.peer.read-timeout must be at least 1ms")
    @MaxDuration(value = "1m", message = "cache.peer.read-timeout must be at most 1m")
    public Duration getReadTimeout()
    {
        return readTimeout;
    }

    @Config(READ_TIMEOUT)
    @ConfigDescription("A peer's answer that takes longer is abandoned and storage is read instead: the most a slow peer adds to a read")
    public PeerConfig setReadTimeout(Duration readTimeout)
    {
        this.readTimeout = readTimeout;
        return this;
    }

    @NotNull
    @MinDuration(value = "0s", message = "cache.peer.retry-after must not be negative")
    public Duration getRetryAfter()
    {
        return retryAfter;
    }

    @Config(RETRY_AFTER)
    @ConfigDescription("A peer that failed (unreachable, damaged bytes, refused) is not asked again for this long; one that timed out or was busy is skipped for 1s, doubling with each further timeout in a row up to this")
    public PeerConfig setRetryAfter(Duration retryAfter)
    {
        this.retryAfter = retryAfter;
        return this;
    }

    @NotNull
    @MinDataSize(value = "64kB", message = "cache.peer.max-read-size must be at least 64kB")
    @MaxDataSize(value = "256MB", message = "cache.peer.max-read-size must be at most 256MB")
    public DataSize getMaxReadSize()
    {
        return maxReadSize;
    }

    @Config(MAX_READ_SIZE)
    @ConfigDescription("Reads of more bytes than this go to storage without asking a peer; bounds each request's memory on both sides")
    public PeerConfig setMaxReadSize(DataSize maxReadSize)
    {
        this.maxReadSize = maxReadSize;
        return this;
    }

    @Min(value = 1, message = "cache.peer.server-threads must be between 1 and 256")
    @Max(value = 256, message = "cache.peer.server-threads must be between 1 and 256")
    public int getServerThreads()
    {
        return serverThreads;
    }

    @Config(SERVER_THREADS)
    @ConfigDescription("Peer requests a worker serves at once; further requests are refused as busy and their askers read storage")
    public PeerConfig setServerThreads(int serverThreads)
    {
        this.serverThreads = serverThreads;
        return this;
    }

    @NotNull
    @MinDuration(value = "10ms", message = "cache.peer.load-poll-interval must be at least 10ms")
    @MaxDuration(value = "1m", message = "cache.peer.load-poll-interval must be at most 1m")
    public Duration getLoadPollInterval()
    {
        return loadPollInterval;
    }

    @Config(LOAD_POLL_INTERVAL)
    @ConfigDescription("How often the coordinator asks every worker for its queued and running splits; the placer uses an answer for three intervals")
    public PeerConfig setLoadPollInterval(Duration loadPollInterval)
    {
        this.loadPollInterval = loadPollInterval;
        return this;
    }

    @NotNull
    @MinDuration(value = "0s", message = "cache.peer.fetch-wait must not be negative")
    @MaxDuration(value = "1m", message = "cache.peer.fetch-wait must be at most 1m")
    public Duration getFetchWait()
    {
        return fetchWait;
    }

    @Config(FETCH_WAIT)
    @ConfigDescription("How long a worker waits for a peer's storage read of the bytes it asked for, when the peer is reading them right now, before it reads storage itself; 0s: never waits")
    public PeerConfig setFetchWait(Duration fetchWait)
    {
        this.fetchWait = fetchWait;
        return this;
    }
}
