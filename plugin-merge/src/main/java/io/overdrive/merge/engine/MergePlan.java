package io.overdrive.merge.engine;

import com.google.common.collect.ImmutableList;
import io.overdrive.merge.MergeRequest;
import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.CombinePlan;
import io.overdrive.merge.ordering.KeyComparator;
import io.overdrive.merge.ordering.KeyComparators;
import io.overdrive.merge.ordering.RowComparator;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;

import java.util.List;
import java.util.Optional;

/**
 * A merge request resolved into task plans: the serial task, and the layer-1 and layer-2 tasks of a parallel merge.
 * With combine, layer-1 tasks write the sort keys followed by partial states, which the layer-2 task folds again.
 * A limit applies to every layer: the first {@code limit} output rows (or groups) can only come from the first
 * {@code limit} rows (groups) of each layer-1 output.
 */
public final class MergePlan
{
    private final TaskPlan serial;
    private final TaskPlan layer1;
    private final TaskPlan layer2;

    private MergePlan(TaskPlan serial, TaskPlan layer1, TaskPlan layer2)
    {
        this.serial = serial;
        this.layer1 = layer1;
        this.layer2 = layer2;
    }

    public static MergePlan create(MergeRequest request, TypeOperators typeOperators)
    {
        List<Type> types = request.types();
        List<SortKey> sortKeys = request.sortKeys();
        int[] keyChannels = sortKeys.stream().mapToInt(SortKey::channel).toArray();
        ImmutableList.Builder<KeyComparator> comparators = ImmutableList.builder();
        ImmutableList.Builder<Type> keyTypes = ImmutableList.builder();
        for (SortKey key : sortKeys) {
            Type type = types.get(key.channel());
            comparators.add(KeyComparators.create(type, key.order(), typeOperators));
            keyTypes.add(type);
        }
        RowComparator comparator = new RowComparator(comparators.build());
        long limit = request.limit().orElse(Long.MAX_VALUE);

        if (request.combine().isEmpty()) {
            TaskPlan serial = new TaskPlan(types, keyChannels, comparator, Optional.empty(), types, limit, true, true, false);
            TaskPlan layer1 = new TaskPlan(types, keyChannels, comparator, Optional.empty(), types, limit, true, false, false);
            TaskPlan layer2 = new TaskPlan(types, keyChannels, comparator, Optional.empty(), types, limit, false, true, false);
            return new MergePlan(serial, layer1, layer2);
        }

        CombinePlan combine = CombinePlan.resolve(request.combine().get(), types, typeOperators);
        List<Type> outputTypes = ImmutableList.<Type>builder().addAll(keyTypes.build()).addAll(combine.outputTypes()).build();
        CombinePlan toStates = combine.toStates();
        List<Type> stateLayout = ImmutableList.<Type>builder().addAll(keyTypes.build()).addAll(toStates.outputTypes()).build();
        int[] stateKeyChannels = new int[keyChannels.length];
        for (int i = 0; i < stateKeyChannels.length; i++) {
            stateKeyChannels[i] = i;
        }
        TaskPlan serial = new TaskPlan(types, keyChannels, comparator, Optional.of(combine), outputTypes, limit, true, true, false);
        TaskPlan layer1 = new TaskPlan(types, keyChannels, comparator, Optional.of(toStates), stateLayout, limit, true, false, false);
        // layer-1 output has one row per key
        TaskPlan layer2 = new TaskPlan(stateLayout, stateKeyChannels, comparator, Optional.of(combine.overStates(keyChannels.length)), outputTypes, limit, false, true, true);
        return new MergePlan(serial, layer1, layer2);
    }

    public List<Type> outputTypes()
    {
        return serial.outputTypes();
    }

    TaskPlan serial()
    {
        return serial;
    }

    TaskPlan layer1()
    {
        return layer1;
    }

    TaskPlan layer2()
    {
        return layer2;
    }
}
