package io.overdrive.merge.combine;

import com.google.common.collect.ImmutableList;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A combine step resolved for one merge. Rows it writes are the sort keys followed by the aggregations' partial
 * states or final values.
 */
public final class CombinePlan
{
    private final List<AggregationPlan> aggregations;
    private final List<List<Integer>> inputChannels;
    private final boolean stateInput;
    private final boolean finalOutput;

    private CombinePlan(List<AggregationPlan> aggregations, List<List<Integer>> inputChannels, boolean stateInput, boolean finalOutput)
    {
        this.aggregations = ImmutableList.copyOf(aggregations);
        this.inputChannels = ImmutableList.copyOf(inputChannels);
        this.stateInput = stateInput;
        this.finalOutput = finalOutput;
    }

    public static CombinePlan resolve(CombineSpec spec, List<Type> inputTypes, TypeOperators typeOperators)
    {
        requireNonNull(spec, "spec is null");
        List<AggregationPlan> plans = new ArrayList<>();
        List<List<Integer>> channels = new ArrayList<>();
        for (Aggregation aggregation : spec.aggregations()) {
            plans.add(AggregationPlan.resolve(aggregation, inputTypes, spec.step().isStateInput(), typeOperators));
            channels.add(aggregation.inputChannels());
        }
        return new CombinePlan(plans, channels, spec.step().isStateInput(), spec.step().isFinalOutput());
    }

    public boolean isStateInput()
    {
        return stateInput;
    }

    public boolean isFinalOutput()
    {
        return finalOutput;
    }

    public List<AggregationPlan> aggregations()
    {
        return aggregations;
    }

    /**
     * Types of the aggregation columns this plan writes (after the sort keys).
     */
    public List<Type> outputTypes()
    {
        ImmutableList.Builder<Type> types = ImmutableList.builder();
        aggregations.forEach(aggregation -> types.addAll(aggregation.outputTypes(finalOutput)));
        return types.build();
    }

    /**
     * Whether a one-row group is written as its input row: the input holds partial states and the output holds the
     * same states, or final values equal to them (not avg, nor a sum whose final type is not its state type).
     */
    public boolean writesSingleRowsUnchanged()
    {
        return stateInput && (!finalOutput || aggregations.stream().allMatch(aggregation -> aggregation.stateTypes().equals(List.of(aggregation.finalType()))));
    }

    public Accumulator[] createAccumulators()
    {
        Accumulator[] accumulators = new Accumulator[aggregations.size()];
        for (int i = 0; i < accumulators.length; i++) {
            accumulators[i] = aggregations.get(i).createAccumulator(inputChannels.get(i), stateInput);
        }
        return accumulators;
    }

    /**
     * The same aggregations writing partial states (what a layer-1 task produces).
     */
    public CombinePlan toStates()
    {
        return new CombinePlan(aggregations, inputChannels, stateInput, false);
    }

    /**
     * The plan of a layer-2 task: it reads the layout written by {@link #toStates()} (keys, then states) and writes
     * this plan's output.
     */
    public CombinePlan overStates(int keyCount)
    {
        List<AggregationPlan> plans = new ArrayList<>();
        List<List<Integer>> channels = new ArrayList<>();
        int channel = keyCount;
        for (AggregationPlan aggregation : aggregations) {
            plans.add(aggregation.overStates());
            int width = aggregation.stateTypes().size();
            List<Integer> stateChannels = new ArrayList<>();
            for (int i = 0; i < width; i++) {
                stateChannels.add(channel + i);
            }
            channels.add(stateChannels);
            channel += width;
        }
        return new CombinePlan(plans, channels, true, finalOutput);
    }
}
