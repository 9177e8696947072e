package io.overdrive.merge.testing;

import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Converts between pages and rows of canonical values.
 */
public final class Rows
{
    private Rows() {}

    public static List<Object[]> read(List<Type> types, List<Page> pages)
    {
        List<Object[]> rows = new ArrayList<>();
        for (Page page : pages) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                Object[] row = new Object[types.size()];
                for (int channel = 0; channel < row.length; channel++) {
                    row[channel] = Values.read(types.get(channel), page.getBlock(channel), position);
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /**
     * Splits rows into pages of random sizes between 1 and {@code maxPageRows}.
     */
    public static List<Page> toPages(List<Type> types, List<Object[]> rows, int maxPageRows, Random random)
    {
        List<Page> pages = new ArrayList<>();
        int index = 0;
        while (index < rows.size()) {
            int size = Math.min(rows.size() - index, 1 + random.nextInt(maxPageRows));
            PageBuilder builder = new PageBuilder(size, types);
            for (int i = index; i < index + size; i++) {
                Object[] row = rows.get(i);
                for (int channel = 0; channel < types.size(); channel++) {
                    Values.write(types.get(channel), builder.getBlockBuilder(channel), row[channel]);
                }
                builder.declarePosition();
            }
            pages.add(builder.build());
            index += size;
        }
        return pages;
    }

    public static String format(Object[] row)
    {
        return Arrays.toString(row);
    }

    /**
     * Asserts equal rows in equal order (decimals equal by value).
     */
    public static void assertSameRows(List<Object[]> actual, List<Object[]> expected, Object context)
    {
        if (actual.size() != expected.size()) {
            fail("expected %s rows but got %s for %s", expected.size(), actual.size(), context);
        }
        for (int row = 0; row < actual.size(); row++) {
            Object[] actualRow = actual.get(row);
            Object[] expectedRow = expected.get(row);
            assertThat(actualRow.length).isEqualTo(expectedRow.length);
            for (int column = 0; column < actualRow.length; column++) {
                if (!Values.same(actualRow[column], expectedRow[column])) {
                    fail("row %s differs: expected %s but got %s (%s)", row, Rows.format(expectedRow), Rows.format(actualRow), context);
                }
            }
        }
    }
}
