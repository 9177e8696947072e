package io.overdrive.merge.ordering;

import io.trino.spi.block.Block;
import io.trino.spi.connector.SortOrder;

import static java.util.Objects.requireNonNull;

/**
 * Orders the values of one sort key at two block positions, with the key's direction and null placement, exactly as
 * Trino's {@code ORDER BY} does ({@code TypeOperators#getOrderingOperator}). Subclasses compare non-null values of
 * one type family without allocating.
 */
public abstract sealed class KeyComparator
        permits KeyComparators.LongComparator, KeyComparators.DoubleComparator, KeyComparators.VarcharComparator, KeyComparators.OperatorComparator
{
    private final boolean ascending;
    private final int nullLeft;

    protected KeyComparator(SortOrder sortOrder)
    {
        requireNonNull(sortOrder, "sortOrder is null");
        this.ascending = sortOrder.isAscending();
        // nulls are placed first or last whatever the direction
        this.nullLeft = sortOrder.isNullsFirst() ? -1 : 1;
    }

    public final int compare(Block left, int leftPosition, Block right, int rightPosition)
    {
        boolean leftNull = left.isNull(leftPosition);
        boolean rightNull = right.isNull(rightPosition);
        if (leftNull | rightNull) {
            if (leftNull && rightNull) {
                return 0;
            }
            return leftNull ? nullLeft : -nullLeft;
        }
        int result = compareNotNull(left, leftPosition, right, rightPosition);
        return ascending ? result : -result;
    }

    /**
     * Ascending comparison of two non-null values.
     */
    protected abstract int compareNotNull(Block left, int leftPosition, Block right, int rightPosition);

    /**
     * Whether {@link #normalizedKey} is available for this type.
     */
    public boolean hasNormalizedKey()
    {
        return false;
    }

    /**
     * Whether equal normalized keys other than {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE} mean equal values
     * (a full value, not a prefix).
     */
    public boolean isNormalizedKeyExact()
    {
        return false;
    }

    /**
     * A long whose signed order agrees with {@link #compare} (direction and nulls included): a smaller normalized key
     * means a smaller value. Equal normalized keys say nothing unless the key is exact; nulls map to
     * {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}, which real values may share. Lets the merge compare most
     * rows with one long comparison.
     */
    public final long normalizedKey(Block block, int position)
    {
        if (block.isNull(position)) {
            return nullLeft < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long key = normalizeNotNull(block, position);
        // ~ reverses signed order without overflow
        return ascending ? key : ~key;
    }

    /**
     * Ascending normalized key of a non-null value; only called when {@link #hasNormalizedKey()}.
     */
    protected long normalizeNotNull(Block block, int position)
    {
        throw new UnsupportedOperationException();
    }
}
