package io.overdrive.merge.shards;

import io.trino.spi.connector.ConnectorTransactionHandle;

/**
 * Shards are read without transactions: every remote query is its own auto-commit query.
 */
public enum ShardsTransactionHandle
        implements ConnectorTransactionHandle
{
    INSTANCE
}
