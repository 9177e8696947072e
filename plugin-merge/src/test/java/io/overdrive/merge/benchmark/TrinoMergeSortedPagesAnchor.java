package io.overdrive.merge.benchmark;

import io.overdrive.merge.SortKey;
import io.trino.operator.DriverYieldSignal;
import io.trino.operator.PageWithPositionComparator;
import io.trino.operator.WorkProcessor;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import io.trino.sql.gen.OrderingCompiler;
import io.trino.util.MergeSortedPages;

import java.util.List;
import java.util.function.Consumer;

import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;

/**
 * The Trino anchor: Trino 483's own k-way merge of sorted pages, {@code MergeSortedPages.mergeSortedPages}, called
 * the way Trino's {@code MergeOperator} calls it (a comparator compiled by {@code OrderingCompiler}, one
 * {@code WorkProcessor} of pages per input, pages broken when the {@code PageBuilder} is full), in the calling
 * thread. It merges only: it does not combine equal keys, so it outputs every input row. For the combining shapes
 * it is therefore a lower bound on what Trino would spend (a merge, with the combining still to do).
 */
public final class TrinoMergeSortedPagesAnchor
{
    private final List<Type> types;
    private final PageWithPositionComparator comparator;

    public TrinoMergeSortedPagesAnchor(List<Type> types, List<SortKey> sortKeys)
    {
        this.types = List.copyOf(types);
        this.comparator = new OrderingCompiler(new TypeOperators()).compilePageWithPositionComparator(
                sortKeys.stream().map(key -> types.get(key.channel())).toList(),
                sortKeys.stream().map(SortKey::channel).toList(),
                sortKeys.stream().map(SortKey::order).toList());
    }

    public void merge(List<List<Page>> inputs, Consumer<Page> output)
    {
        List<WorkProcessor<Page>> producers = inputs.stream()
                .map(WorkProcessor::fromIterable)
                .toList();
        WorkProcessor<Page> merged = MergeSortedPages.mergeSortedPages(producers, comparator, types, newSimpleAggregatedMemoryContext(), new DriverYieldSignal());
        while (true) {
            if (!merged.process()) {
                // in-memory inputs never block, and nothing sets the yield signal
                throw new IllegalStateException("merge blocked or yielded");
            }
            if (merged.isFinished()) {
                return;
            }
            output.accept(merged.getResult());
        }
    }
}
