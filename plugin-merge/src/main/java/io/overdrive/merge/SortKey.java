package io.overdrive.merge;

import io.trino.spi.connector.SortOrder;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * One sort key of a merge: an input channel and its direction and null placement.
 */
public record SortKey(int channel, SortOrder order)
{
    public SortKey
    {
        checkArgument(channel >= 0, "channel must not be negative: %s", channel);
        requireNonNull(order, "order is null");
    }

    public static SortKey ascending(int channel)
    {
        return new SortKey(channel, SortOrder.ASC_NULLS_LAST);
    }

    public static SortKey descending(int channel)
    {
        return new SortKey(channel, SortOrder.DESC_NULLS_LAST);
    }
}
