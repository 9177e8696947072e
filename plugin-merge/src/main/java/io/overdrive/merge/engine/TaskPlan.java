package io.overdrive.merge.engine;

import com.google.common.collect.ImmutableList;
import io.overdrive.merge.combine.CombinePlan;
import io.overdrive.merge.ordering.RowComparator;
import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What one kind of merge task reads and writes: a serial task (inputs to consumer), a layer-1 task (inputs to a
 * queue, combining into partial states) or the layer-2 task (layer-1 queues to consumer; with combine, each queue
 * holds every key at most once).
 */
record TaskPlan(
        List<Type> inputTypes,
        int[] keyChannels,
        RowComparator comparator,
        Optional<CombinePlan> combine,
        List<Type> outputTypes,
        long limit,
        boolean readsMergeInputs,
        boolean writesMergeOutput,
        boolean uniqueKeysPerInput)
{
    TaskPlan
    {
        inputTypes = ImmutableList.copyOf(inputTypes);
        keyChannels = keyChannels.clone();
        requireNonNull(comparator, "comparator is null");
        requireNonNull(combine, "combine is null");
        outputTypes = ImmutableList.copyOf(outputTypes);
    }

    RowWriter createWriter(CursorOrder order, PageQueue output, int batchSize, MergeStats stats)
    {
        if (combine.isPresent()) {
            return new CombiningRowWriter(order, combine.get(), keyChannels, outputTypes, output, batchSize, limit, stats, writesMergeOutput, uniqueKeysPerInput);
        }
        return new PlainRowWriter(order, outputTypes, output, batchSize, limit, stats, writesMergeOutput);
    }
}
