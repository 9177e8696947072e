package io.overdrive.merge.shards;

/**
 * What a query gets when a shard does not answer (after its replicas were tried).
 */
public enum FailurePolicy
{
    /** The query fails, naming the shard and the cause. */
    FAIL,
    /** The query returns the rows of the shards that answered; the missing shards are logged and counted. */
    PARTIAL,
}
