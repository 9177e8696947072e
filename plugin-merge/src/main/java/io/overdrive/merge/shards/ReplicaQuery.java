package io.overdrive.merge.shards;

import io.overdrive.merge.SortedPageSource;

import java.util.concurrent.CompletableFuture;

/**
 * One attempt of a shard query on one replica, as {@link ShardQuery} hedges and fails over between them.
 */
interface ReplicaQuery
        extends SortedPageSource
{
    ShardUri replica();

    void start();

    /**
     * Completes when the first rows (or the end) arrived; fails when the attempt failed before that.
     */
    CompletableFuture<Void> answered();
}
