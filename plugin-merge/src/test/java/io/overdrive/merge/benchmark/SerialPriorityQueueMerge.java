package io.overdrive.merge.benchmark;

import io.overdrive.merge.SortKey;
import io.overdrive.merge.combine.Accumulator;
import io.overdrive.merge.combine.CombinePlan;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.ordering.KeyComparators;
import io.overdrive.merge.ordering.RowComparator;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The benchmark's serial baseline: a plain k-way merge with a {@link PriorityQueue} of cursors in the calling
 * thread, one row at a time (poll the smallest cursor, fold or emit its row, advance, offer it back), with the same
 * comparators, accumulators and page building as the engine.
 */
public final class SerialPriorityQueueMerge
{
    private final List<Type> types;
    private final int[] keyChannels;
    private final RowComparator comparator;
    private final CombinePlan combine;
    private final List<Type> outputTypes;
    private final int batchSize;

    public SerialPriorityQueueMerge(List<Type> types, List<SortKey> sortKeys, CombineSpec spec, int batchSize)
    {
        TypeOperators typeOperators = new TypeOperators();
        this.types = List.copyOf(types);
        this.keyChannels = sortKeys.stream().mapToInt(SortKey::channel).toArray();
        this.comparator = new RowComparator(sortKeys.stream()
                .map(key -> KeyComparators.create(types.get(key.channel()), key.order(), typeOperators))
                .toList());
        this.combine = CombinePlan.resolve(spec, types, typeOperators);
        List<Type> output = new ArrayList<>();
        for (int channel : keyChannels) {
            output.add(types.get(channel));
        }
        output.addAll(combine.outputTypes());
        this.outputTypes = List.copyOf(output);
        this.batchSize = batchSize;
    }

    public long merge(List<List<Page>> inputs, Consumer<Page> output)
    {
        PriorityQueue<Cursor> queue = new PriorityQueue<>(Math.max(1, inputs.size()), (left, right) -> {
            int result = comparator.compare(left.keys, left.position, right.keys, right.position);
            return result != 0 ? result : Integer.compare(left.index, right.index);
        });
        for (int i = 0; i < inputs.size(); i++) {
            Cursor cursor = new Cursor(i, inputs.get(i).iterator());
            if (cursor.advancePage()) {
                queue.add(cursor);
            }
        }
        Accumulator[] accumulators = combine.createAccumulators();
        PageBuilder builder = new PageBuilder(batchSize, outputTypes);
        long rows = 0;
        Block[] groupKeys = null;
        int groupPosition = 0;
        while (!queue.isEmpty()) {
            Cursor cursor = queue.poll();
            int position = cursor.position;
            if (groupKeys == null || comparator.compare(groupKeys, groupPosition, cursor.keys, position) != 0) {
                if (groupKeys != null) {
                    rows += writeGroup(builder, groupKeys, groupPosition, accumulators, output);
                }
                groupKeys = cursor.keys;
                groupPosition = position;
                for (Accumulator accumulator : accumulators) {
                    accumulator.reset();
                }
            }
            for (Accumulator accumulator : accumulators) {
                accumulator.add(cursor.blocks, position, position + 1);
            }
            cursor.position++;
            if (cursor.position < cursor.positionCount || cursor.advancePage()) {
                queue.add(cursor);
            }
        }
        if (groupKeys != null) {
            rows += writeGroup(builder, groupKeys, groupPosition, accumulators, output);
        }
        if (!builder.isEmpty()) {
            output.accept(builder.build());
        }
        return rows;
    }

    private long writeGroup(PageBuilder builder, Block[] keys, int position, Accumulator[] accumulators, Consumer<Page> output)
    {
        for (int i = 0; i < keys.length; i++) {
            builder.getBlockBuilder(i).append((ValueBlock) keys[i], position);
        }
        int channel = keys.length;
        for (int i = 0; i < accumulators.length; i++) {
            accumulators[i].writeFinal(builder, channel);
            channel += combine.aggregations().get(i).outputTypes(true).size();
        }
        builder.declarePosition();
        if (builder.getPositionCount() >= batchSize) {
            output.accept(builder.build());
            builder.reset();
        }
        return 1;
    }

    private final class Cursor
    {
        private final int index;
        private final Iterator<Page> pages;
        private Block[] blocks;
        private Block[] keys;
        private int position;
        private int positionCount;

        private Cursor(int index, Iterator<Page> pages)
        {
            this.index = index;
            this.pages = pages;
        }

        private boolean advancePage()
        {
            while (pages.hasNext()) {
                Page page = pages.next();
                if (page.getPositionCount() == 0) {
                    continue;
                }
                blocks = new Block[types.size()];
                for (int channel = 0; channel < blocks.length; channel++) {
                    blocks[channel] = page.getBlock(channel);
                }
                keys = new Block[keyChannels.length];
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = blocks[keyChannels[i]];
                }
                position = 0;
                positionCount = page.getPositionCount();
                return true;
            }
            return false;
        }
    }
}
