package io.overdrive.merge.shards;

import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;

import static io.trino.spi.ErrorType.EXTERNAL;

/**
 * Errors of a shards catalog (external: the cause is on a shard).
 */
public enum ShardsErrorCode
        implements ErrorCodeSupplier
{
    /** A shard (every replica) failed or could not be reached. */
    SHARD_FAILED(0, EXTERNAL),
    /** The shards disagree about a table's columns. */
    SHARD_SCHEMA_MISMATCH(1, EXTERNAL),
    /** No shard answered (also under shards.failure-policy=PARTIAL). */
    NO_SHARD_ANSWERED(2, EXTERNAL),
    /** A shard's result could not be read (unexpected row shape or value). */
    SHARD_BAD_RESULT(3, EXTERNAL);

    private final ErrorCode errorCode;

    ShardsErrorCode(int code, ErrorType type)
    {
        errorCode = new ErrorCode(code + 0x0_5D0_0000, name(), type);
    }

    @Override
    public ErrorCode toErrorCode()
    {
        return errorCode;
    }
}
