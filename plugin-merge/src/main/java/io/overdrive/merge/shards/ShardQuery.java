package io.overdrive.merge.shards;

import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.overdrive.merge.SortedPageSource;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;

import static io.overdrive.merge.shards.ShardsErrorCode.SHARD_FAILED;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * One shard's part of a query, over the shard's replicas: the query goes to the first replica; when it has not
 * answered (first rows or the end) within {@code shards.hedge-delay} it is also sent to the next replica, and the first
 * to answer wins while the others are cancelled (seed 002's hedging, applied to shards). A replica that fails before
 * answering hands over to the next one at once. When every replica failed the shard failed: the query fails naming
 * it, or, under {@code PARTIAL}, the shard contributes no rows. A replica that fails after it answered fails the
 * query under either policy: its rows are already on their way, so leaving it out would not be "the rows of the
 * shards that answered".
 */
final class ShardQuery
        implements SortedPageSource
{
    private static final Logger log = Logger.get(ShardQuery.class);

    private final Shard shard;
    private final Function<ShardUri, ReplicaQuery> newAttempt;
    private final ScheduledExecutorService timer;
    private final Duration hedgeDelay;
    private final FailurePolicy failurePolicy;
    private final String queryId;
    private final ShardsStats stats;

    // guarded by this
    private final List<ReplicaQuery> attempts = new ArrayList<>();
    private int nextReplica;
    private ReplicaQuery winner;
    private TrinoException failure;
    private boolean missing;
    private boolean closed;
    private ScheduledFuture<?> hedgeTimer;
    private CompletableFuture<Void> changed = new CompletableFuture<>();

    ShardQuery(Shard shard, Function<ShardUri, ReplicaQuery> newAttempt, ScheduledExecutorService timer, Duration hedgeDelay, FailurePolicy failurePolicy, String queryId, ShardsStats stats)
    {
        this.shard = requireNonNull(shard, "shard is null");
        this.newAttempt = requireNonNull(newAttempt, "newAttempt is null");
        this.timer = requireNonNull(timer, "timer is null");
        this.hedgeDelay = requireNonNull(hedgeDelay, "hedgeDelay is null");
        this.failurePolicy = requireNonNull(failurePolicy, "failurePolicy is null");
        this.queryId = requireNonNull(queryId, "queryId is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    /**
     * {@code sql} on the shard's replicas, its rows decoded as {@code types}.
     */
    static ShardQuery create(ShardClient client, Shard shard, ConnectorSession session, String sql, List<Type> types, ShardsConfig config, FailurePolicy failurePolicy, ShardsStats stats, ShardStats shardStats)
    {
        return new ShardQuery(
                shard,
                replica -> new RemoteQuery(client, shard, replica, session, sql, types, config.getBufferedPages(), stats, shardStats),
                client.timer(),
                config.getHedgeDelay(),
                failurePolicy,
                session.getQueryId(),
                stats);
    }

    Shard shard()
    {
        return shard;
    }

    synchronized void start()
    {
        if (closed) {
            // closed before it started: a replica query started now would never be closed
            return;
        }
        launchNext();
        scheduleHedge();
    }

    // guarded by this
    private void launchNext()
    {
        ReplicaQuery attempt = newAttempt.apply(shard.replicas().get(nextReplica));
        nextReplica++;
        attempts.add(attempt);
        attempt.answered().whenComplete((_, throwable) -> {
            if (throwable == null) {
                answered(attempt);
            }
            else {
                failedBeforeAnswer(attempt, throwable);
            }
        });
        attempt.start();
    }

    // guarded by this
    private void scheduleHedge()
    {
        if (nextReplica < shard.replicas().size()) {
            hedgeTimer = timer.schedule(this::hedge, hedgeDelay.roundTo(NANOSECONDS), NANOSECONDS);
        }
    }

    private synchronized void hedge()
    {
        if (closed || winner != null || failure != null || missing || nextReplica >= shard.replicas().size()) {
            return;
        }
        stats.hedged();
        launchNext();
        scheduleHedge();
    }

    private void answered(ReplicaQuery attempt)
    {
        List<ReplicaQuery> losers = new ArrayList<>();
        CompletableFuture<Void> toComplete;
        synchronized (this) {
            if (closed || winner != null) {
                if (winner != attempt) {
                    losers.add(attempt);
                }
            }
            else {
                winner = attempt;
                if (attempts.indexOf(attempt) > 0 && attempts.size() > 1) {
                    stats.hedgeWon();
                }
                attempts.stream().filter(other -> other != attempt).forEach(losers::add);
                if (hedgeTimer != null) {
                    hedgeTimer.cancel(false);
                }
            }
            toComplete = changed;
        }
        losers.forEach(ReplicaQuery::close);
        toComplete.complete(null);
    }

    private void failedBeforeAnswer(ReplicaQuery attempt, Throwable throwable)
    {
        CompletableFuture<Void> toComplete = null;
        synchronized (this) {
            if (closed || winner != null || failure != null || missing) {
                return;
            }
            attempts.remove(attempt);
            TrinoException cause = throwable instanceof TrinoException trino ? trino : ShardClient.failure(shard, attempt.replica(), String.valueOf(throwable.getMessage()), throwable);
            // with a hedge still running nothing happens yet: it may answer
            if (attempts.isEmpty() && nextReplica < shard.replicas().size()) {
                stats.failedOver();
                log.warn("%s: replica %s failed, trying %s: %s", shard.describe(), attempt.replica(), shard.replicas().get(nextReplica), cause.getMessage());
                launchNext();
            }
            else if (attempts.isEmpty()) {
                stats.shardFailed();
                if (failurePolicy == FailurePolicy.PARTIAL) {
                    missing = true;
                    log.warn("Query %s continues without %s (shards.failure-policy=PARTIAL): %s", queryId, shard.describe(), cause.getMessage());
                }
                else {
                    failure = cause.getErrorCode().equals(SHARD_FAILED.toErrorCode()) ? cause : new TrinoException(SHARD_FAILED, cause.getMessage(), cause);
                }
                toComplete = changed;
            }
        }
        // no longer tracked, so closed here (a source is closed exactly once)
        attempt.close();
        if (toComplete != null) {
            toComplete.complete(null);
        }
    }

    /**
     * Whether the shard failed and contributes no rows (PARTIAL).
     */
    synchronized boolean isMissing()
    {
        return missing;
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        ReplicaQuery current;
        synchronized (this) {
            current = winner;
            if (current == null) {
                if (failure != null || missing || closed) {
                    return NOT_BLOCKED;
                }
                if (changed.isDone()) {
                    changed = new CompletableFuture<>();
                }
                return changed;
            }
        }
        return current.isBlocked();
    }

    @Override
    public Page getNextPage()
    {
        ReplicaQuery current;
        synchronized (this) {
            if (failure != null) {
                throw failure;
            }
            current = winner;
        }
        return current == null ? null : current.getNextPage();
    }

    @Override
    public boolean isFinished()
    {
        ReplicaQuery current;
        synchronized (this) {
            if (failure != null) {
                throw failure;
            }
            if (missing || closed) {
                return true;
            }
            current = winner;
        }
        return current != null && current.isFinished();
    }

    @Override
    public void close()
    {
        List<ReplicaQuery> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = List.copyOf(attempts);
            if (hedgeTimer != null) {
                hedgeTimer.cancel(false);
            }
        }
        toClose.forEach(ReplicaQuery::close);
    }
}
