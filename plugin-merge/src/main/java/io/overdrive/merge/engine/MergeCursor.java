package io.overdrive.merge.engine;

import io.overdrive.merge.SortedPageSource;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * A merge task's read position in one input: the current page (as value blocks, so rows can be appended directly)
 * and the next row. Owned by one task.
 */
final class MergeCursor
{
    enum Load { LOADED, FINISHED, BLOCKED, NOT_READY }

    // a source that keeps returning nothing without being blocked is retried on the task's next run
    private static final int MAX_EMPTY_POLLS = 3;

    final int index;
    private final SortedPageSource source;
    private final Type[] types;
    private final int[] keyChannels;
    private final CursorOrder order;

    Block[] blocks;
    // the sort key blocks of the page in sort-key order; a fresh array per page, so a reference to a row survives loads
    Block[] keys;
    // normalized first sort key per row (see CursorOrder); reused across pages
    long[] normalized = new long[0];
    int position;
    int positionCount;
    private boolean finished;
    private boolean closed;
    private CompletableFuture<?> blocked;

    MergeCursor(int index, SortedPageSource source, List<Type> types, int[] keyChannels, CursorOrder order)
    {
        this.index = index;
        this.source = requireNonNull(source, "source is null");
        this.types = types.toArray(Type[]::new);
        this.keyChannels = keyChannels.clone();
        this.order = requireNonNull(order, "order is null");
    }

    boolean hasRow()
    {
        return position < positionCount;
    }

    boolean isFinished()
    {
        return finished;
    }

    CompletableFuture<?> blockedFuture()
    {
        return blocked;
    }

    /**
     * Reads the next non-empty page without waiting: LOADED (a row is ready), FINISHED (the source ended and is
     * closed), BLOCKED (wait for {@link #blockedFuture()}) or NOT_READY (nothing now, although not blocked).
     */
    Load load()
    {
        blocked = null;
        int emptyPolls = 0;
        while (true) {
            Page page = source.getNextPage();
            if (page != null) {
                if (page.getPositionCount() == 0) {
                    continue;
                }
                setPage(page);
                return Load.LOADED;
            }
            if (source.isFinished()) {
                finished = true;
                releasePage();
                close();
                return Load.FINISHED;
            }
            CompletableFuture<?> future = source.isBlocked();
            if (!future.isDone()) {
                blocked = future;
                return Load.BLOCKED;
            }
            if (future.isCompletedExceptionally()) {
                // the source failed while we waited: surface its failure
                future.join();
            }
            if (++emptyPolls >= MAX_EMPTY_POLLS) {
                return Load.NOT_READY;
            }
        }
    }

    private void setPage(Page page)
    {
        Block[] newBlocks = new Block[types.length];
        for (int channel = 0; channel < types.length; channel++) {
            newBlocks[channel] = toValueBlock(types[channel], page.getBlock(channel));
        }
        Block[] newKeys = new Block[keyChannels.length];
        for (int i = 0; i < keyChannels.length; i++) {
            newKeys[i] = newBlocks[keyChannels[i]];
        }
        blocks = newBlocks;
        keys = newKeys;
        position = 0;
        positionCount = page.getPositionCount();
        if (order.isNormalized()) {
            if (normalized.length < positionCount) {
                normalized = new long[Math.max(positionCount, normalized.length * 2)];
            }
            order.normalize(newKeys[0], positionCount, normalized);
        }
    }

    // dictionary and run-length blocks are flattened once per page so the merge loop reads plain value blocks
    private static Block toValueBlock(Type type, Block block)
    {
        if (block instanceof ValueBlock) {
            return block;
        }
        BlockBuilder builder = type.createBlockBuilder(null, block.getPositionCount());
        builder.appendBlockRange(block, 0, block.getPositionCount());
        return builder.buildValueBlock();
    }

    void releasePage()
    {
        blocks = null;
        keys = null;
        normalized = new long[0];
        position = 0;
        positionCount = 0;
    }

    void close()
    {
        if (!closed) {
            closed = true;
            releasePage();
            source.close();
        }
    }
}
