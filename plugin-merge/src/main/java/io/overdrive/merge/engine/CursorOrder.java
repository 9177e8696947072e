package io.overdrive.merge.engine;

import io.overdrive.merge.ordering.KeyComparator;
import io.overdrive.merge.ordering.RowComparator;
import io.trino.spi.block.Block;

import static java.util.Objects.requireNonNull;

/**
 * Orders rows of merge cursors. When the first sort key has a normalized key, cursors keep it per row in a long
 * array and most comparisons are one long comparison; the full comparator runs only on ties that the normalized key
 * cannot settle (a prefix, several sort keys, or a null/NaN sentinel).
 */
final class CursorOrder
{
    private final RowComparator comparator;
    private final KeyComparator firstKey;
    private final boolean normalized;
    private final boolean exact;

    CursorOrder(RowComparator comparator)
    {
        this.comparator = requireNonNull(comparator, "comparator is null");
        this.firstKey = comparator.key(0);
        this.normalized = firstKey.hasNormalizedKey();
        this.exact = normalized && comparator.keyCount() == 1 && firstKey.isNormalizedKeyExact();
    }

    boolean isNormalized()
    {
        return normalized;
    }

    int keyCount()
    {
        return comparator.keyCount();
    }

    /**
     * Normalized keys of positions {@code [0, positions)} of a key block, into {@code target}.
     */
    void normalize(Block firstKeyBlock, int positions, long[] target)
    {
        for (int position = 0; position < positions; position++) {
            target[position] = firstKey.normalizedKey(firstKeyBlock, position);
        }
    }

    int compare(MergeCursor left, int leftPosition, MergeCursor right, int rightPosition)
    {
        if (normalized) {
            long leftKey = left.normalized[leftPosition];
            long rightKey = right.normalized[rightPosition];
            if (leftKey != rightKey) {
                return leftKey < rightKey ? -1 : 1;
            }
            if (exact && leftKey != Long.MIN_VALUE && leftKey != Long.MAX_VALUE) {
                return 0;
            }
        }
        return comparator.compare(left.keys, leftPosition, right.keys, rightPosition);
    }

    /**
     * Compares a remembered row (its key blocks, position and normalized key) with a cursor row.
     */
    int compare(Block[] keys, int position, long normalizedKey, MergeCursor right, int rightPosition)
    {
        if (normalized) {
            long rightKey = right.normalized[rightPosition];
            if (normalizedKey != rightKey) {
                return normalizedKey < rightKey ? -1 : 1;
            }
            if (exact && normalizedKey != Long.MIN_VALUE && normalizedKey != Long.MAX_VALUE) {
                return 0;
            }
        }
        return comparator.compare(keys, position, right.keys, rightPosition);
    }

    /**
     * The end of the run of {@code top}'s rows from {@code start} (exclusive bound {@code stop}) that precede
     * {@code next}'s current row (see {@link #precedes}). With exact normalized keys this is a scan of a long array.
     */
    int precedingRunEnd(MergeCursor top, int start, int stop, MergeCursor next)
    {
        int row = start;
        if (exact) {
            long[] keys = top.normalized;
            long limit = next.normalized[next.position];
            boolean tieGoesFirst = top.index < next.index;
            while (row < stop) {
                long key = keys[row];
                if (key < limit && key != Long.MIN_VALUE) {
                    row++;
                }
                else if (key == limit && key != Long.MIN_VALUE && key != Long.MAX_VALUE) {
                    if (!tieGoesFirst) {
                        return row;
                    }
                    row++;
                }
                else if (key > limit && key != Long.MAX_VALUE) {
                    return row;
                }
                else {
                    // a sentinel: let the comparator decide
                    break;
                }
            }
        }
        while (row < stop && precedes(top, row, next, next.position)) {
            row++;
        }
        return row;
    }

    /**
     * The end of the run of {@code top}'s rows from {@code start} (before {@code end}) that come strictly before
     * {@code next}'s row (if any) and, when {@code checkNext}, differ from the row after them in {@code top}.
     */
    int distinctRunEnd(MergeCursor top, int start, int end, MergeCursor next, boolean checkNext)
    {
        int row = start;
        if (exact) {
            long[] keys = top.normalized;
            long limit = next == null ? Long.MAX_VALUE : next.normalized[next.position];
            while (row < end) {
                long key = keys[row];
                if (key == Long.MIN_VALUE || key == Long.MAX_VALUE) {
                    break;
                }
                if ((checkNext && key == keys[row + 1]) || (next != null && key >= limit)) {
                    return row;
                }
                row++;
            }
        }
        while (row < end
                && (!checkNext || compare(top, row, top, row + 1) != 0)
                && (next == null || compare(top, row, next, next.position) < 0)) {
            row++;
        }
        return row;
    }

    /**
     * Whether {@code left}'s row goes before {@code right}'s; equal keys keep input order (lower cursor index first),
     * which makes the merge stable.
     */
    boolean precedes(MergeCursor left, int leftPosition, MergeCursor right, int rightPosition)
    {
        int result = compare(left, leftPosition, right, rightPosition);
        return result < 0 || (result == 0 && left.index < right.index);
    }
}
