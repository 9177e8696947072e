package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import io.trino.client.StatementClient;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.type.Type;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import static io.overdrive.merge.shards.ShardsErrorCode.SHARD_BAD_RESULT;
import static java.util.Objects.requireNonNull;

/**
 * One query on one replica of a shard, streamed into pages on its own (virtual) thread. At most
 * {@code shards.buffered-pages} pages wait here: the thread stops fetching until the consumer catches up, so a slow
 * merge slows the shard instead of filling memory. {@link #answered()} completes when the first rows (or the end)
 * arrive, or fails when the query fails before that.
 */
final class RemoteQuery
        implements ReplicaQuery
{
    private final ShardClient client;
    private final Shard shard;
    private final ShardUri replica;
    private final ConnectorSession session;
    private final String sql;
    private final List<Type> types;
    private final int bufferedPages;
    private final ShardsStats stats;
    private final ShardStats shardStats;
    private final CompletableFuture<Void> answered = new CompletableFuture<>();

    // guarded by this
    private final Queue<Page> pages = new ArrayDeque<>();
    private boolean done;
    private boolean closed;
    private TrinoException failure;
    private CompletableFuture<Void> changed = new CompletableFuture<>();
    private StatementClient statement;

    RemoteQuery(ShardClient client, Shard shard, ShardUri replica, ConnectorSession session, String sql, List<Type> types, int bufferedPages, ShardsStats stats, ShardStats shardStats)
    {
        this.client = requireNonNull(client, "client is null");
        this.shard = requireNonNull(shard, "shard is null");
        this.replica = requireNonNull(replica, "replica is null");
        this.session = requireNonNull(session, "session is null");
        this.sql = requireNonNull(sql, "sql is null");
        this.types = ImmutableList.copyOf(types);
        this.bufferedPages = bufferedPages;
        this.stats = requireNonNull(stats, "stats is null");
        this.shardStats = requireNonNull(shardStats, "shardStats is null");
    }

    @Override
    public void start()
    {
        stats.remoteQueryStarted();
        shardStats.queryStarted();
        client.queryThreads().execute(this::run);
    }

    @Override
    public ShardUri replica()
    {
        return replica;
    }

    @Override
    public CompletableFuture<Void> answered()
    {
        return answered;
    }

    private void run()
    {
        long start = System.nanoTime();
        try (StatementClient statement = client.start(replica, session, sql)) {
            if (!register(statement)) {
                return;
            }
            PageBuilder pageBuilder = new PageBuilder(types);
            while (statement.isRunning() && !isClosed()) {
                for (List<Object> row : statement.currentRows()) {
                    if (row.size() != types.size()) {
                        throw new TrinoException(SHARD_BAD_RESULT, "Shard %s (%s) returned %s columns, expected %s".formatted(shard.number(), replica, row.size(), types.size()));
                    }
                    pageBuilder.declarePosition();
                    for (int channel = 0; channel < types.size(); channel++) {
                        ShardValues.append(types.get(channel), pageBuilder.getBlockBuilder(channel), row.get(channel));
                    }
                    if (pageBuilder.isFull()) {
                        emit(pageBuilder.build(), start);
                        pageBuilder.reset();
                    }
                }
                statement.advance();
            }
            if (isClosed()) {
                return;
            }
            ShardClient.checkFinished(statement, shard, replica);
            if (!pageBuilder.isEmpty()) {
                emit(pageBuilder.build(), start);
            }
            finish(start);
        }
        catch (TrinoException e) {
            fail(e);
        }
        catch (RuntimeException e) {
            fail(ShardClient.failure(shard, replica, String.valueOf(e.getMessage()), e));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(ShardClient.failure(shard, replica, "interrupted", e));
        }
    }

    private synchronized boolean register(StatementClient statement)
    {
        this.statement = statement;
        return !closed;
    }

    private synchronized boolean isClosed()
    {
        return closed;
    }

    private void emit(Page page, long start)
            throws InterruptedException
    {
        CompletableFuture<Void> toComplete;
        synchronized (this) {
            while (pages.size() >= bufferedPages && !closed) {
                wait();
            }
            if (closed) {
                return;
            }
            pages.add(page);
            toComplete = changed;
        }
        stats.rowsReceived(page.getPositionCount());
        shardStats.rows(page.getPositionCount());
        if (!answered.isDone()) {
            stats.answered(System.nanoTime() - start);
        }
        answered.complete(null);
        toComplete.complete(null);
    }

    private void finish(long start)
    {
        CompletableFuture<Void> toComplete;
        synchronized (this) {
            done = true;
            toComplete = changed;
        }
        shardStats.finished(System.nanoTime() - start);
        answered.complete(null);
        toComplete.complete(null);
    }

    private void fail(TrinoException e)
    {
        CompletableFuture<Void> toComplete;
        synchronized (this) {
            if (closed) {
                return;
            }
            failure = e;
            toComplete = changed;
        }
        shardStats.failed();
        answered.completeExceptionally(e);
        toComplete.complete(null);
    }

    @Override
    public synchronized CompletableFuture<?> isBlocked()
    {
        if (!pages.isEmpty() || done || failure != null || closed) {
            return NOT_BLOCKED;
        }
        if (changed.isDone()) {
            changed = new CompletableFuture<>();
        }
        return changed;
    }

    @Override
    public synchronized Page getNextPage()
    {
        if (failure != null) {
            throw failure;
        }
        Page page = pages.poll();
        if (page != null) {
            notifyAll();
        }
        return page;
    }

    @Override
    public synchronized boolean isFinished()
    {
        if (failure != null) {
            throw failure;
        }
        return closed || (done && pages.isEmpty());
    }

    /**
     * Stops reading; a query still running on the shard is cancelled there, from a query thread (close does not wait
     * for the shard). Closed before the shard accepted the query, the query's own thread cancels it once it has.
     */
    @Override
    public void close()
    {
        StatementClient toCancel;
        boolean running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = !done && failure == null;
            pages.clear();
            toCancel = running ? statement : null;
            notifyAll();
        }
        if (running) {
            stats.remoteQueryCancelled();
        }
        if (toCancel != null) {
            cancelOnShard(toCancel);
        }
        answered.cancel(false);
    }

    // StatementClient.close() sends the DELETE that cancels the shard query, once. Not on the caller's thread: Trino
    // interrupts a driver thread while it closes its operators (Driver.close()) and the planning thread of a cancelled
    // query, and on an interrupted thread OkHttp fails the DELETE unsent (an IOException the client swallows, or an
    // InterruptedException out of close()): the shard query would run on. No one interrupts a query thread (until the
    // connector shuts down).
    private void cancelOnShard(StatementClient statement)
    {
        try {
            client.queryThreads().execute(statement::close);
        }
        catch (RejectedExecutionException _) {
            // the connector is shutting down
            statement.close();
        }
    }
}
