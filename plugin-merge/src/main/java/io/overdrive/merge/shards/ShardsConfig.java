package io.overdrive.merge.shards;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigSecuritySensitive;
import io.airlift.units.Duration;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import java.util.List;
import java.util.Optional;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Catalog properties of an {@code overdrive_shards} catalog (the replicas, {@code shards.replicas.<n>}, are read by
 * {@link ShardTopology} because their names carry the shard's number).
 */
public class ShardsConfig
{
    private List<String> uris = ImmutableList.of();
    private Optional<String> user = Optional.empty();
    private Optional<String> password = Optional.empty();
    private Optional<String> truststorePath = Optional.empty();
    private Optional<String> truststorePassword = Optional.empty();
    private Duration connectTimeout = new Duration(10, SECONDS);
    private Duration queryTimeout = new Duration(1, HOURS);
    private FailurePolicy failurePolicy = FailurePolicy.FAIL;
    private Duration hedgeDelay = new Duration(1, SECONDS);
    private int bufferedPages = 4;

    @NotNull
    @Size(min = 1, message = "shards.uris must list at least one shard: http(s)://host:port/catalog[/schema], comma separated")
    public List<String> getUris()
    {
        return uris;
    }

    @Config("shards.uris")
    @ConfigDescription("The shards' coordinators, comma separated: http(s)://host:port/catalog[/schema]")
    public ShardsConfig setUris(String uris)
    {
        this.uris = Splitter.on(',').trimResults().omitEmptyStrings().splitToList(uris);
        return this;
    }

    public Optional<String> getUser()
    {
        return user;
    }

    @Config("shards.user")
    @ConfigDescription("User the shard queries run as; default: the user of the Trino query")
    public ShardsConfig setUser(String user)
    {
        this.user = Optional.ofNullable(user).filter(value -> !value.isBlank());
        return this;
    }

    public Optional<String> getPassword()
    {
        return password;
    }

    @Config("shards.password")
    @ConfigSecuritySensitive
    @ConfigDescription("Password for the shards (needs https:// shard URIs)")
    public ShardsConfig setPassword(String password)
    {
        this.password = Optional.ofNullable(password);
        return this;
    }

    public Optional<String> getTruststorePath()
    {
        return truststorePath;
    }

    @Config("shards.ssl.truststore.path")
    @ConfigDescription("Trust store (JKS, PKCS12 or PEM) for https:// shards; default: the JVM's trust store")
    public ShardsConfig setTruststorePath(String truststorePath)
    {
        this.truststorePath = Optional.ofNullable(truststorePath);
        return this;
    }

    public Optional<String> getTruststorePassword()
    {
        return truststorePassword;
    }

    @Config("shards.ssl.truststore.password")
    @ConfigSecuritySensitive
    public ShardsConfig setTruststorePassword(String truststorePassword)
    {
        this.truststorePassword = Optional.ofNullable(truststorePassword);
        return this;
    }

    @NotNull
    @MinDuration("100ms")
    @MaxDuration("10m")
    public Duration getConnectTimeout()
    {
        return connectTimeout;
    }

    @Config("shards.connect-timeout")
    @ConfigDescription("How long to wait for a shard's coordinator to accept a connection")
    public ShardsConfig setConnectTimeout(Duration connectTimeout)
    {
        this.connectTimeout = connectTimeout;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getQueryTimeout()
    {
        return queryTimeout;
    }

    @Config("shards.query-timeout")
    @ConfigDescription("Longest a shard query may run (sent to the shard as query_max_run_time)")
    public ShardsConfig setQueryTimeout(Duration queryTimeout)
    {
        this.queryTimeout = queryTimeout;
        return this;
    }

    @NotNull
    public FailurePolicy getFailurePolicy()
    {
        return failurePolicy;
    }

    @Config("shards.failure-policy")
    @ConfigDescription("FAIL: a shard that does not answer fails the query; PARTIAL: return the rows of the shards that answered")
    public ShardsConfig setFailurePolicy(FailurePolicy failurePolicy)
    {
        this.failurePolicy = failurePolicy;
        return this;
    }

    @NotNull
    @MinDuration("1ms")
    public Duration getHedgeDelay()
    {
        return hedgeDelay;
    }

    @Config("shards.hedge-delay")
    @ConfigDescription("A shard query that has not answered within this time is also sent to the shard's next replica")
    public ShardsConfig setHedgeDelay(Duration hedgeDelay)
    {
        this.hedgeDelay = hedgeDelay;
        return this;
    }

    public int getBufferedPages()
    {
        return bufferedPages;
    }

    @Config("shards.buffered-pages")
    @ConfigDescription("Pages read ahead from each shard query before waiting for the merge to consume them")
    public ShardsConfig setBufferedPages(int bufferedPages)
    {
        this.bufferedPages = bufferedPages;
        return this;
    }

    @AssertTrue(message = "shards.buffered-pages must be between 1 and 1024")
    public boolean isBufferedPagesValid()
    {
        return bufferedPages >= 1 && bufferedPages <= 1024;
    }

    @AssertTrue(message = "shards.password needs https:// shard URIs (Trino refuses passwords over http); use https:// in shards.uris and shards.replicas.<n>")
    public boolean isPasswordOverHttps()
    {
        return password.isEmpty() || uris.stream().allMatch(uri -> uri.startsWith("https://"));
    }

    @AssertTrue(message = "shards.password needs shards.user: the shards authenticate the user the password belongs to")
    public boolean isUserGivenWithPassword()
    {
        return password.isEmpty() || user.isPresent();
    }

    @AssertTrue(message = "shards.ssl.truststore.password needs shards.ssl.truststore.path")
    public boolean isTruststorePasswordWithPath()
    {
        return truststorePassword.isEmpty() || truststorePath.isPresent();
    }
}
