package io.overdrive.merge.ordering;

import com.google.common.collect.ImmutableList;
import io.trino.spi.block.Block;

import java.util.List;

/**
 * Orders rows by a list of sort keys. Rows are given as the key blocks of a page (in sort-key order) and a position.
 */
public final class RowComparator
{
    private final KeyComparator[] keys;

    public RowComparator(List<KeyComparator> keys)
    {
        this.keys = ImmutableList.copyOf(keys).toArray(KeyComparator[]::new);
    }

    public int keyCount()
    {
        return keys.length;
    }

    public KeyComparator key(int index)
    {
        return keys[index];
    }

    public int compare(Block[] leftKeys, int leftPosition, Block[] rightKeys, int rightPosition)
    {
        for (int i = 0; i < keys.length; i++) {
            int result = keys[i].compare(leftKeys[i], leftPosition, rightKeys[i], rightPosition);
            if (result != 0) {
                return result;
            }
        }
        return 0;
    }
}
