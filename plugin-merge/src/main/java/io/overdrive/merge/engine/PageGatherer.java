package io.overdrive.merge.engine;

import io.trino.spi.Page;
import io.trino.spi.block.Bitmap;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.type.FixedWidthType;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.Objects.requireNonNull;

/**
 * Builds an output batch from runs of rows of input pages (value blocks), in order. Each output column is an input
 * channel copied unchanged, or the bigint constant 1 (the count of a one-row group). The rows are copied column by
 * column when the batch is built: long and int columns with one array copy per run, other types through a block
 * builder. A merge with little combining alternates between inputs every row or two; copying per column instead of
 * per row keeps that cheap.
 *
 * <p>Rows written elsewhere (combined groups) join the batch through {@link #addWritten}: they are appended to the
 * caller's page builder, and their place in the order is kept until the batch is built.
 */
final class PageGatherer
{
    // stands for the rows of the caller's page builder until the batch is built
    private static final Block[] WRITTEN = new Block[0];
    private static final int MAX_BATCH_BYTES = 1024 * 1024;

    static final int ONE = -1;

    private final Type[] types;
    // per output column: the input channel it copies, or ONE
    private final int[] sourceChannels;
    private final int fixedBytesPerRow;
    private final boolean[] variableWidth;

    // the distinct pages the runs come from (a batch takes runs from a few pages, many times each)
    private Block[][] pages = new Block[8][];
    private int pageCount;
    private int[] runPage = new int[64];
    private int[] runFrom = new int[64];
    private int[] runLength = new int[64];
    private int runs;
    // per output row, filled when the batch is built: its page and position (runs expanded once for all columns)
    private int[] rowPage = new int[0];
    private int[] rowPosition = new int[0];
    private int rows;
    private long bytes;

    PageGatherer(List<Type> types, int[] sourceChannels)
    {
        this.types = requireNonNull(types, "types is null").toArray(Type[]::new);
        this.sourceChannels = sourceChannels.clone();
        checkArgument(sourceChannels.length == this.types.length, "one source per output column");
        for (int channel = 0; channel < sourceChannels.length; channel++) {
            checkArgument(sourceChannels[channel] >= 0 || (sourceChannels[channel] == ONE && this.types[channel] == BIGINT), "column %s: bad source", channel);
        }
        this.variableWidth = new boolean[this.types.length];
        int fixed = 0;
        for (int channel = 0; channel < this.types.length; channel++) {
            if (this.types[channel] instanceof FixedWidthType fixedWidth) {
                fixed += fixedWidth.getFixedSize() + 1;
            }
            else {
                variableWidth[channel] = true;
            }
        }
        this.fixedBytesPerRow = fixed;
    }

    /**
     * Output columns equal to the input channels.
     */
    static PageGatherer identity(List<Type> types)
    {
        int[] channels = new int[types.size()];
        for (int channel = 0; channel < channels.length; channel++) {
            channels[channel] = channel;
        }
        return new PageGatherer(types, channels);
    }

    int rows()
    {
        return rows;
    }

    boolean isEmpty()
    {
        return rows == 0;
    }

    /**
     * Whether the batch reached about 1 MB (Trino's page size), whatever its rows.
     */
    boolean isFull()
    {
        return bytes >= MAX_BATCH_BYTES;
    }

    /**
     * Adds rows {@code [from, from + length)} of a page given as its blocks.
     */
    void add(Block[] blocks, int from, int length)
    {
        if (runs > 0 && pages[runPage[runs - 1]] == blocks && runFrom[runs - 1] + runLength[runs - 1] == from) {
            runLength[runs - 1] += length;
        }
        else {
            addRun(blocks, from, length);
        }
        rows += length;
        bytes += (long) length * fixedBytesPerRow;
        for (int channel = 0; channel < types.length; channel++) {
            if (variableWidth[channel]) {
                bytes += blocks[sourceChannels[channel]].getRegionSizeInBytes(from, length);
            }
        }
    }

    /**
     * Adds the row just appended to the caller's page builder at {@code builderPosition}.
     */
    void addWritten(int builderPosition)
    {
        if (runs > 0 && pages[runPage[runs - 1]] == WRITTEN && runFrom[runs - 1] + runLength[runs - 1] == builderPosition) {
            runLength[runs - 1]++;
        }
        else {
            addRun(WRITTEN, builderPosition, 1);
        }
        rows++;
        bytes += fixedBytesPerRow;
    }

    private void addRun(Block[] blocks, int from, int length)
    {
        if (runs == runPage.length) {
            int capacity = runs * 2;
            runPage = Arrays.copyOf(runPage, capacity);
            runFrom = Arrays.copyOf(runFrom, capacity);
            runLength = Arrays.copyOf(runLength, capacity);
        }
        runPage[runs] = pageIndex(blocks);
        runFrom[runs] = from;
        runLength[runs] = length;
        runs++;
    }

    private int pageIndex(Block[] blocks)
    {
        for (int index = pageCount - 1; index >= 0; index--) {
            if (pages[index] == blocks) {
                return index;
            }
        }
        if (pageCount == pages.length) {
            pages = Arrays.copyOf(pages, pageCount * 2);
        }
        pages[pageCount] = blocks;
        return pageCount++;
    }

    /**
     * The batch; {@code written} holds the rows added through {@link #addWritten} (null if there are none).
     */
    Page build(Page written)
    {
        Block[] writtenBlocks = null;
        if (written != null) {
            writtenBlocks = new Block[types.length];
            for (int channel = 0; channel < types.length; channel++) {
                writtenBlocks[channel] = written.getBlock(channel);
            }
        }
        expandRuns();
        Block[] output = new Block[types.length];
        for (int channel = 0; channel < types.length; channel++) {
            output[channel] = gather(channel, writtenBlocks);
        }
        Page page = new Page(rows, output);
        // drop the references to the input pages
        Arrays.fill(pages, 0, pageCount, null);
        pageCount = 0;
        runs = 0;
        rows = 0;
        bytes = 0;
        return page;
    }

    private void expandRuns()
    {
        if (rowPage.length < rows) {
            rowPage = new int[rows];
            rowPosition = new int[rows];
        }
        int out = 0;
        for (int run = 0; run < runs; run++) {
            int page = runPage[run];
            int from = runFrom[run];
            int end = out + runLength[run];
            for (; out < end; out++) {
                rowPage[out] = page;
                rowPosition[out] = from++;
            }
        }
    }

    private Block gather(int channel, Block[] writtenBlocks)
    {
        // the column's block in each distinct page; null for the constant 1
        Block[] blocks = new Block[pageCount];
        boolean allLong = true;
        boolean allInt = true;
        for (int index = 0; index < pageCount; index++) {
            Block block = pageBlock(index, channel, writtenBlocks);
            blocks[index] = block;
            allLong &= block == null || block instanceof LongArrayBlock;
            allInt &= block instanceof IntArrayBlock;
        }
        if (allLong) {
            return gatherLongs(blocks);
        }
        if (allInt) {
            return gatherInts(blocks);
        }
        BlockBuilder builder = types[channel].createBlockBuilder(null, rows);
        for (int run = 0; run < runs; run++) {
            Block block = blocks[runPage[run]];
            if (block == null) {
                for (int i = 0; i < runLength[run]; i++) {
                    BIGINT.writeLong(builder, 1);
                }
                continue;
            }
            // written rows may come back as run-length blocks (e.g. all null)
            builder.appendBlockRange(block, runFrom[run], runLength[run]);
        }
        return builder.build();
    }

    private Block gatherLongs(Block[] blocks)
    {
        long[][] sources = new long[pageCount][];
        int[] offsets = new int[pageCount];
        long[][] sourceValid = new long[pageCount][];
        boolean anyNull = false;
        boolean anyConstant = false;
        for (int index = 0; index < pageCount; index++) {
            if (blocks[index] instanceof LongArrayBlock block) {
                sources[index] = block.getRawValues();
                offsets[index] = block.getRawValuesOffset();
                sourceValid[index] = block.getRawValueIsValid();
                anyNull |= sourceValid[index] != null;
            }
            else {
                anyConstant = true;
            }
        }
        long[] values = new long[rows];
        if (anyConstant) {
            for (int row = 0; row < rows; row++) {
                long[] source = sources[rowPage[row]];
                values[row] = source == null ? 1 : source[offsets[rowPage[row]] + rowPosition[row]];
            }
        }
        else {
            for (int row = 0; row < rows; row++) {
                int page = rowPage[row];
                values[row] = sources[page][offsets[page] + rowPosition[row]];
            }
        }
        return new LongArrayBlock(rows, Optional.ofNullable(anyNull ? gatherValidity(sourceValid, offsets) : null), values);
    }

    private Block gatherInts(Block[] blocks)
    {
        int[][] sources = new int[pageCount][];
        int[] offsets = new int[pageCount];
        long[][] sourceValid = new long[pageCount][];
        boolean anyNull = false;
        for (int index = 0; index < pageCount; index++) {
            IntArrayBlock block = (IntArrayBlock) blocks[index];
            sources[index] = block.getRawValues();
            offsets[index] = block.getRawValuesOffset();
            sourceValid[index] = block.getRawValueIsValid();
            anyNull |= sourceValid[index] != null;
        }
        int[] values = new int[rows];
        for (int row = 0; row < rows; row++) {
            int page = rowPage[row];
            values[row] = sources[page][offsets[page] + rowPosition[row]];
        }
        return new IntArrayBlock(rows, Optional.ofNullable(anyNull ? gatherValidity(sourceValid, offsets) : null), values);
    }

    // runs from pages without nulls stay valid
    private long[] gatherValidity(long[][] sourceValid, int[] offsets)
    {
        long[] valid = Bitmap.allocateWords(rows, true);
        int out = 0;
        for (int run = 0; run < runs; run++) {
            long[] source = sourceValid[runPage[run]];
            if (source != null) {
                Bitmap.copyBits(source, offsets[runPage[run]] + runFrom[run], valid, out, runLength[run]);
            }
            out += runLength[run];
        }
        return valid;
    }

    // null for the constant 1
    private Block pageBlock(int index, int channel, Block[] writtenBlocks)
    {
        Block[] blocks = pages[index];
        if (blocks == WRITTEN) {
            return writtenBlocks[channel];
        }
        int source = sourceChannels[channel];
        return source == ONE ? null : blocks[source];
    }
}
