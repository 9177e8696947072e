package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import io.airlift.units.Duration;
import io.trino.client.ClientSession;
import io.trino.client.QueryError;
import io.trino.client.QueryStatusInfo;
import io.trino.client.StatementClient;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import jakarta.annotation.PreDestroy;
import okhttp3.OkHttpClient;

import java.time.ZoneId;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static io.trino.client.OkHttpUtil.basicAuth;
import static io.trino.client.OkHttpUtil.setupSsl;
import static io.trino.client.OkHttpUtil.setupTimeouts;
import static io.trino.client.OkHttpUtil.userAgent;
import static io.trino.client.StatementClientFactory.newStatementClient;
import static io.overdrive.merge.shards.ShardsErrorCode.SHARD_FAILED;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Talks to the shards over Trino's client protocol: one HTTP client per catalog, the remote queries' threads (virtual:
 * a remote query spends its life waiting on the network) and the hedging timer.
 */
public final class ShardClient
{
    static final String SOURCE = "overdrive_shards";

    private final ShardsConfig config;
    private final OkHttpClient httpClient;
    private final ExecutorService queryThreads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("overdrive-shard-query-", 0).factory());
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemonThreadsNamed("overdrive-shard-hedge"));

    @Inject
    public ShardClient(ShardsConfig config)
    {
        this.config = requireNonNull(config, "config is null");
        OkHttpClient.Builder builder = new OkHttpClient.Builder();
        builder.addInterceptor(userAgent(SOURCE));
        setupTimeouts(builder, Math.toIntExact(config.getConnectTimeout().toMillis()), MILLISECONDS);
        if (config.getTruststorePath().isPresent()) {
            setupSsl(builder, Optional.empty(), Optional.empty(), Optional.empty(), false, config.getTruststorePath(), config.getTruststorePassword(), Optional.empty(), false);
        }
        if (config.getPassword().isPresent()) {
            builder.addInterceptor(basicAuth(config.getUser().orElseThrow(), config.getPassword().get()));
        }
        this.httpClient = builder.build();
    }

    ExecutorService queryThreads()
    {
        return queryThreads;
    }

    ScheduledExecutorService timer()
    {
        return timer;
    }

    /**
     * Starts {@code sql} on one replica, as the query's user (or {@code shards.user}), tagged with the Trino query's id.
     */
    StatementClient start(ShardUri replica, ConnectorSession session, String sql)
    {
        ClientSession clientSession = ClientSession.builder()
                .server(replica.server())
                .user(Optional.of(config.getUser().orElse(session.getUser())))
                .source(SOURCE)
                .clientInfo(session.getQueryId())
                .catalog(replica.catalog())
                .timeZone(ZoneId.of("UTC"))
                .locale(Locale.ENGLISH)
                .properties(ImmutableMap.of("query_max_run_time", queryTimeout().toString()))
                .clientRequestTimeout(config.getConnectTimeout())
                .compressionDisabled(false)
                .build();
        return newStatementClient(httpClient, clientSession, sql, Optional.empty());
    }

    private Duration queryTimeout()
    {
        return config.getQueryTimeout();
    }

    /**
     * Throws the remote failure of a query that stopped running.
     */
    static void checkFinished(StatementClient client, Shard shard, ShardUri replica)
    {
        if (client.isClientAborted()) {
            throw failure(shard, replica, "the query was cancelled", null);
        }
        if (client.isClientError()) {
            QueryStatusInfo status = client.currentStatusInfo();
            throw failure(shard, replica, status.getError() == null ? "the client failed" : status.getError().getMessage(), null);
        }
        QueryError error = client.finalStatusInfo().getError();
        if (error != null) {
            throw failure(shard, replica, "%s (%s)".formatted(error.getMessage(), error.getErrorName()), null);
        }
    }

    static TrinoException failure(Shard shard, ShardUri replica, String cause, Throwable throwable)
    {
        return new TrinoException(SHARD_FAILED, "Shard %s (%s) failed: %s".formatted(shard.number(), replica, cause), throwable);
    }

    @PreDestroy
    public void close()
    {
        timer.shutdownNow();
        queryThreads.shutdownNow();
        httpClient.dispatcher().executorService().shutdown();
        httpClient.connectionPool().evictAll();
    }
}
