package io.overdrive.merge.engine;

import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

public class TestPageGatherer
{
    private static final List<Type> TYPES = List.of(BIGINT, INTEGER, VARCHAR);

    @Test
    public void testRunsAndWrittenRowsKeepTheirOrder()
    {
        Random random = new Random(1);
        List<Block[]> pages = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pages.add(randomPage(random, 50, i * 1000));
        }
        PageGatherer gatherer = PageGatherer.identity(TYPES);
        PageBuilder written = new PageBuilder(TYPES);
        List<String> expected = new ArrayList<>();
        for (int step = 0; step < 200; step++) {
            if (random.nextInt(5) == 0) {
                // a row written to the page builder, all-null now and then (built as a run-length block)
                gatherer.addWritten(written.getPositionCount());
                boolean nulls = random.nextBoolean();
                BIGINT.writeLong(written.getBlockBuilder(0), -step);
                if (nulls) {
                    written.getBlockBuilder(1).appendNull();
                    written.getBlockBuilder(2).appendNull();
                }
                else {
                    INTEGER.writeLong(written.getBlockBuilder(1), step);
                    VARCHAR.writeSlice(written.getBlockBuilder(2), Slices.utf8Slice("w" + step));
                }
                written.declarePosition();
                expected.add(-step + "|" + (nulls ? "null" : step) + "|" + (nulls ? "null" : "w" + step));
                continue;
            }
            Block[] page = pages.get(random.nextInt(pages.size()));
            int from = random.nextInt(50);
            int length = 1 + random.nextInt(50 - from);
            gatherer.add(page, from, length);
            for (int position = from; position < from + length; position++) {
                expected.add(row(page, position));
            }
        }
        assertThat(gatherer.rows()).isEqualTo(expected.size());
        Page page = gatherer.build(written.build());
        List<String> actual = new ArrayList<>();
        Block[] blocks = {page.getBlock(0), page.getBlock(1), page.getBlock(2)};
        for (int position = 0; position < page.getPositionCount(); position++) {
            actual.add(row(blocks, position));
        }
        assertThat(actual).containsExactlyElementsOf(expected);
        assertThat(gatherer.isEmpty()).isTrue();
    }

    private static Block[] randomPage(Random random, int rows, int offset)
    {
        BlockBuilder longs = BIGINT.createBlockBuilder(null, rows);
        BlockBuilder ints = INTEGER.createBlockBuilder(null, rows);
        BlockBuilder strings = VARCHAR.createBlockBuilder(null, rows);
        for (int i = 0; i < rows; i++) {
            if (offset > 0 && random.nextInt(4) == 0) {
                longs.appendNull();
            }
            else {
                BIGINT.writeLong(longs, offset + i);
            }
            if (random.nextInt(3) == 0) {
                ints.appendNull();
            }
            else {
                INTEGER.writeLong(ints, i);
            }
            VARCHAR.writeSlice(strings, Slices.utf8Slice("s" + (offset + i)));
        }
        return new Block[] {longs.buildValueBlock(), ints.buildValueBlock(), strings.buildValueBlock()};
    }

    private static String row(Block[] blocks, int position)
    {
        String a = blocks[0].isNull(position) ? "null" : Long.toString(BIGINT.getLong(blocks[0], position));
        String b = blocks[1].isNull(position) ? "null" : Long.toString(INTEGER.getLong(blocks[1], position));
        String c = blocks[2].isNull(position) ? "null" : VARCHAR.getSlice(blocks[2], position).toStringUtf8();
        return a + "|" + b + "|" + c;
    }
}
