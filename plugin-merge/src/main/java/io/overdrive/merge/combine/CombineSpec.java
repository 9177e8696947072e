package io.overdrive.merge.combine;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Folds rows with equal sort keys into one row: the sort key columns (in sort-key order) followed by one column per
 * aggregation (two for {@code avg} when the output holds partial states). Columns that are neither sort keys nor
 * aggregated are dropped.
 */
public record CombineSpec(List<Aggregation> aggregations, CombineStep step)
{
    public CombineSpec
    {
        aggregations = ImmutableList.copyOf(requireNonNull(aggregations, "aggregations is null"));
        requireNonNull(step, "step is null");
    }

    public static CombineSpec of(CombineStep step, Aggregation... aggregations)
    {
        return new CombineSpec(List.of(aggregations), step);
    }
}
