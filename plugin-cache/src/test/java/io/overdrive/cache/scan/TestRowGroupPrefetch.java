package io.overdrive.cache.scan;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.airlift.units.DataSize;
import io.overdrive.cache.scan.RowGroupLayout.Range;
import io.trino.filesystem.Location;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.orc.AbstractOrcDataSource;
import io.trino.orc.OrcDataSourceId;
import io.trino.orc.OrcPredicate;
import io.trino.orc.OrcReader;
import io.trino.orc.OrcReaderOptions;
import io.trino.orc.OrcRecordReader;
import io.trino.orc.OrcWriter;
import io.trino.orc.OrcWriterOptions;
import io.trino.orc.OrcWriterStats;
import io.trino.orc.OutputStreamOrcDataSink;
import io.trino.orc.metadata.CompressionKind;
import io.trino.orc.metadata.OrcType;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.Column;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.parquet.writer.ParquetSchemaConverter;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.joda.time.DateTimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.orc.metadata.CompressionKind.NONE;
import static io.trino.orc.metadata.CompressionKind.ZSTD;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static io.trino.parquet.metadata.PrunedBlockMetadata.createPrunedColumnsMetadata;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Row-group prefetch planned from real files written by Trino's own Parquet writer, checked against the reads Trino's
 * own Parquet reader makes for a projected scan.
 */
final class TestRowGroupPrefetch
{
    private static final List<String> NAMES = ImmutableList.of("id", "name", "price", "quantity");
    private static final List<Type> TYPES = ImmutableList.of(BIGINT, VARCHAR, DOUBLE, BIGINT);
    private static final int ROWS_PER_ROW_GROUP = 2_000;
    private static final int ROW_GROUPS = 5;
    private static final long NO_BOUND = Long.MAX_VALUE;

    @TempDir
    Path directory;

    @Test
    void testLayoutMatchesTrinoMetadata()
            throws IOException
    {
        byte[] file = writeParquet(ROW_GROUPS);
        RowGroupLayout layout = parseWholeTail(file);
        List<BlockMetadata> blocks = trinoMetadata(file).getBlocks();

        assertThat(layout.rowGroupCount()).isEqualTo(ROW_GROUPS).isEqualTo(blocks.size());
        assertThat(layout.columnCount()).isEqualTo(NAMES.size());
        for (int rowGroup = 0; rowGroup < ROW_GROUPS; rowGroup++) {
            List<ColumnChunkMetadata> columns = blocks.get(rowGroup).columns();
            for (int column = 0; column < NAMES.size(); column++) {
                ColumnChunkMetadata chunk = columns.get(column);
                assertThat(layout.columnChunk(rowGroup, column))
                        .isEqualTo(new Range(chunk.getStartingPos(), chunk.getTotalSize()));
            }
        }
        assertThat(layout.footerStart()).isLessThan(file.length - 8);
        // five arrays of one entry a chunk
        assertThat(layout.retainedSizeInBytes()).isGreaterThanOrEqualTo(layout.chunkCount() * (8L + 8 + 4 + 4 + 4));
    }

    @Test
    void testPlanFollowsTrinoReaderProjectedScan()
            throws IOException
    {
        ProjectedScan scan = projectedScan();
        RowGroupLayout layout = scan.layout();
        List<Read> dataReads = scan.dataReads();
        assertThat(dataReads).hasSize(ROW_GROUPS * 2);

        RowGroupPrefetch prefetch = new RowGroupPrefetch(layout, 0);
        List<Range> planned = new ArrayList<>();
        for (Read read : dataReads) {
            int rowGroup = rowGroupOf(layout, read);
            int column = columnOf(layout, read);
            // the reader reads each chunk of the projected columns exactly
            assertThat(new Range(read.position(), read.length())).isEqualTo(layout.columnChunk(rowGroup, column));
            // the bytes of every read after the first row group were planned before the reader asked for them
            if (rowGroup > 0) {
                assertThat(covered(planned, read)).as("read %s of row group %s planned before", read, rowGroup).isTrue();
            }
            List<Range> ranges = prefetch.onRead(read.position(), read.length(), NO_BOUND);
            if (rowGroup == ROW_GROUPS - 1) {
                assertThat(ranges).isEmpty();
            }
            else {
                assertThat(ranges).containsExactly(layout.columnChunk(rowGroup + 1, column));
            }
            planned.addAll(ranges);
        }
        // nothing the reader did not read, each chunk once
        assertThat(planned).hasSize((ROW_GROUPS - 1) * 2);
        assertThat(planned).doesNotHaveDuplicates();
        for (Range range : planned) {
            assertThat(dataReads).anyMatch(read -> read.position() == range.start() && read.length() == range.length());
        }

        // the same reads again (a re-read, a second pass): nothing more
        for (Read read : dataReads) {
            assertThat(prefetch.onRead(read.position(), read.length(), NO_BOUND)).isEmpty();
        }
    }

    // a file of ROW_GROUPS row groups and the reads Trino's reader makes of "name" and "quantity" (not adjacent, so
    // never merged), with no merging in the reader: the footer's read, then one read per column chunk
    private static ProjectedScan projectedScan()
            throws IOException
    {
        byte[] file = writeParquet(ROW_GROUPS);
        ParquetReaderOptions options = ParquetReaderOptions.builder()
                .withMaxMergeDistance(DataSize.ofBytes(0))
                .build();
        List<Read> reads = readWithTrino(file, options, List.of(1, 3));
        return new ProjectedScan(parseTail(file, reads.getFirst()), reads.subList(1, reads.size()));
    }

    private record ProjectedScan(RowGroupLayout layout, List<Read> dataReads) {}

    @Test
    void testMergedReaderReadMapsToMergedRange()
            throws IOException
    {
        byte[] file = writeParquet(ROW_GROUPS);
        // the reader merges the adjacent chunks of "name" and "price", not those of different row groups (a gap)
        RowGroupLayout layout = parseWholeTail(file);
        ParquetReaderOptions options = ParquetReaderOptions.builder()
                .withMaxMergeDistance(DataSize.ofBytes(0))
                .build();
        List<Read> reads = readWithTrino(file, options, List.of(1, 2));
        List<Read> dataReads = reads.subList(1, reads.size());
        assertThat(dataReads).hasSize(ROW_GROUPS);

        RowGroupPrefetch prefetch = new RowGroupPrefetch(layout, 0);
        for (int rowGroup = 0; rowGroup < ROW_GROUPS; rowGroup++) {
            Read read = dataReads.get(rowGroup);
            assertThat(read.position()).isEqualTo(layout.columnChunk(rowGroup, 1).start());
            assertThat(read.position() + read.length()).isEqualTo(layout.columnChunk(rowGroup, 2).end());
            List<Range> ranges = prefetch.onRead(read.position(), read.length(), NO_BOUND);
            if (rowGroup == ROW_GROUPS - 1) {
                assertThat(ranges).isEmpty();
                continue;
            }
            Read next = dataReads.get(rowGroup + 1);
            // adjacent chunks in one range, exactly the reader's next read
            assertThat(ranges).containsExactly(new Range(next.position(), next.length()));
        }
    }

    @Test
    void testMergeGap()
            throws IOException
    {
        byte[] file = writeParquet(3);
        RowGroupLayout original = parseWholeTail(file);
        // a footer leaving 100 bytes after "name" of row group 1 (as writers padding row groups do)
        FileMetaData metadata = footer(file);
        ColumnMetaData name = metadata.getRow_groups().get(1).getColumns().get(1).getMeta_data();
        name.setTotal_compressed_size(name.getTotal_compressed_size() - 100);
        byte[] padded = withFooter(file, metadata);
        RowGroupLayout layout = RowGroupLayout.parse(padded.length, padded, 0, padded.length).orElseThrow();
        Range nextId = layout.columnChunk(1, 0);
        Range nextName = layout.columnChunk(1, 1);
        Range nextPrice = layout.columnChunk(1, 2);
        assertThat(nextPrice.start() - nextName.end()).isEqualTo(100);

        // a read of "id", "name" and "price" in row group 0
        Range id = original.columnChunk(0, 0);
        long readLength = original.columnChunk(0, 2).end() - id.start();
        assertThat(layout.nextRowGroupRanges(id.start(), readLength, 99, NO_BOUND))
                .containsExactly(new Range(nextId.start(), nextName.end() - nextId.start()), nextPrice);
        // within the gap: one range, the gap included
        assertThat(layout.nextRowGroupRanges(id.start(), readLength, 100, NO_BOUND))
                .containsExactly(new Range(nextId.start(), nextPrice.end() - nextId.start()));
        RowGroupPrefetch prefetch = new RowGroupPrefetch(layout, 100);
        assertThat(prefetch.onRead(id.start(), readLength, NO_BOUND))
                .containsExactly(new Range(nextId.start(), nextPrice.end() - nextId.start()));
        assertThat(prefetch.onRead(id.start(), readLength, NO_BOUND)).isEmpty();
        // the gap counts against the bound: one byte short, "price" waits
        long merged = nextPrice.end() - nextId.start();
        assertThat(new RowGroupPrefetch(layout, 100).onRead(id.start(), readLength, merged - 1))
                .containsExactly(new Range(nextId.start(), nextName.end() - nextId.start()));
    }

    @Test
    void testByteBound()
    {
        RowGroupLayout layout = parseWholeTail(writeParquetUnchecked(3));
        Range id = layout.columnChunk(0, 0);
        Range price = layout.columnChunk(0, 2);
        Range nextId = layout.columnChunk(1, 0);
        Range nextName = layout.columnChunk(1, 1);
        Range nextPrice = layout.columnChunk(1, 2);
        long readLength = price.end() - id.start();

        // room for "id" and "name" only: "price" waits for a later read
        RowGroupPrefetch prefetch = new RowGroupPrefetch(layout, 0);
        long bound = nextId.length() + nextName.length() + nextPrice.length() - 1;
        List<Range> ranges = prefetch.onRead(id.start(), readLength, bound);
        assertThat(ranges).containsExactly(new Range(nextId.start(), nextName.end() - nextId.start()));
        assertThat(total(ranges)).isLessThanOrEqualTo(bound);
        assertThat(prefetch.onRead(id.start(), readLength, bound)).containsExactly(nextPrice);
        assertThat(prefetch.onRead(id.start(), readLength, bound)).isEmpty();

        // a first chunk larger than the bound: its first bytes, once
        RowGroupPrefetch small = new RowGroupPrefetch(layout, 0);
        assertThat(small.onRead(id.start(), id.length(), 10)).containsExactly(new Range(nextId.start(), 10));
        assertThat(small.onRead(id.start(), id.length(), NO_BOUND)).isEmpty();

        // no budget, no plan, nothing marked
        RowGroupPrefetch none = new RowGroupPrefetch(layout, 0);
        assertThat(none.onRead(id.start(), id.length(), 0)).isEmpty();
        assertThat(none.onRead(id.start(), id.length(), NO_BOUND)).containsExactly(nextId);
    }

    @Test
    void testChunkEnd()
    {
        byte[] file = writeParquetUnchecked(3);
        RowGroupLayout layout = parseWholeTail(file);
        for (int rowGroup = 0; rowGroup < 3; rowGroup++) {
            for (int column = 0; column < NAMES.size(); column++) {
                Range chunk = layout.columnChunk(rowGroup, column);
                assertThat(layout.chunkEnd(chunk.start())).isEqualTo(chunk.end());
                assertThat(layout.chunkEnd(chunk.start() + chunk.length() / 2)).isEqualTo(chunk.end());
                assertThat(layout.chunkEnd(chunk.end() - 1)).isEqualTo(chunk.end());
            }
        }
        // outside every chunk: the magic number, the footer, past the end, before the start
        assertThat(layout.chunkEnd(0)).isEqualTo(-1);
        assertThat(layout.chunkEnd(layout.footerStart())).isEqualTo(-1);
        assertThat(layout.chunkEnd(file.length - 1)).isEqualTo(-1);
        assertThat(layout.chunkEnd(file.length + 10)).isEqualTo(-1);
        assertThat(layout.chunkEnd(-1)).isEqualTo(-1);
    }

    @Test
    void testReadsOutsideChunks()
    {
        byte[] file = writeParquetUnchecked(3);
        RowGroupLayout layout = parseWholeTail(file);
        Range last = layout.columnChunk(2, 3);
        // magic, footer, past the end, the last row group, empty and negative reads
        assertThat(layout.nextRowGroupRanges(0, 4, 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(layout.footerStart(), file.length - layout.footerStart(), 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(file.length - 8, 8, 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(file.length, 100, 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(last.start(), last.length(), 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(layout.columnChunk(2, 0).start(), last.end() - layout.columnChunk(2, 0).start(), 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(layout.columnChunk(0, 0).start(), 0, 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(-5, 3, 0, NO_BOUND)).isEmpty();
        // the last byte of one chunk and the first of the next: both columns
        Range name = layout.columnChunk(0, 1);
        Range nextName = layout.columnChunk(1, 1);
        assertThat(layout.nextRowGroupRanges(name.end() - 1, 2, 0, NO_BOUND))
                .containsExactly(new Range(nextName.start(), layout.columnChunk(1, 2).end() - nextName.start()));
        // a huge length does not overflow
        assertThat(layout.nextRowGroupRanges(name.start(), Long.MAX_VALUE, 0, NO_BOUND)).isEmpty();
    }

    @Test
    void testReadSpanningRowGroups()
    {
        RowGroupLayout layout = parseWholeTail(writeParquetUnchecked(4));
        // a read from "quantity" of row group 0 to "id" of row group 1, as a reader merging across row groups reads
        Range quantity = layout.columnChunk(0, 3);
        Range nextId = layout.columnChunk(1, 0);
        assertThat(quantity.end()).isEqualTo(nextId.start());
        List<Range> ranges = layout.nextRowGroupRanges(quantity.start(), nextId.end() - quantity.start(), 0, NO_BOUND);
        // "quantity" of row group 1 and "id" of row group 2, adjacent; "id" of row group 1 is in the read itself
        Range nextQuantity = layout.columnChunk(1, 3);
        assertThat(ranges).containsExactly(new Range(nextQuantity.start(), layout.columnChunk(2, 0).end() - nextQuantity.start()));

        // a read of everything plans nothing: all of it is on its way
        Range first = layout.columnChunk(0, 0);
        assertThat(layout.nextRowGroupRanges(first.start(), layout.footerStart() - first.start(), NO_BOUND, NO_BOUND)).isEmpty();
        // the part of a next chunk that the read covers is left out
        long readEnd = nextQuantity.start() + 10;
        assertThat(layout.nextRowGroupRanges(quantity.start(), readEnd - quantity.start(), 0, NO_BOUND))
                .containsExactly(new Range(readEnd, layout.columnChunk(2, 3).end() - readEnd));
    }

    @Test
    void testTruncatedTail()
    {
        byte[] file = writeParquetUnchecked(3);
        RowGroupLayout whole = parseWholeTail(file);
        int footerAndPostScript = toIntExact(file.length - whole.footerStart());
        assertThat(RowGroupLayout.parse(file.length, file, file.length - footerAndPostScript, footerAndPostScript)).isPresent();
        for (int length : new int[] {footerAndPostScript - 1, footerAndPostScript / 2, 8, 7, 4, 0}) {
            assertThat(RowGroupLayout.parse(file.length, file, file.length - length, length)).as("tail of %s bytes", length).isEmpty();
        }
        // a tail longer than the file it claims to end
        assertThat(RowGroupLayout.parse(footerAndPostScript - 1L, file, file.length - footerAndPostScript, footerAndPostScript)).isEmpty();
        // a file length that puts the footer before the magic
        assertThat(RowGroupLayout.parse(footerAndPostScript + 3L, file, file.length - footerAndPostScript, footerAndPostScript)).isEmpty();
        // the bytes before the end, not the end
        assertThat(RowGroupLayout.parse(file.length, file, 0, file.length - 1)).isEmpty();
    }

    @Test
    void testOrcStripeFootersFollowTrinoReader()
            throws IOException
    {
        byte[] file = writeOrc(4, ZSTD);
        // stripes above the tiny stripe threshold: the reader reads each stripe's footer, then its streams
        OrcReaderOptions options = new OrcReaderOptions().withTinyStripeThreshold(DataSize.ofBytes(1));
        List<Read> reads = readOrcWithTrino(file, options, List.of(1, 3));
        Read tail = reads.getFirst();
        assertThat(tail.position() + tail.length()).isEqualTo(file.length);
        assertThat(tail.length()).isEqualTo(Math.min(file.length, 16 * 1024));
        RowGroupLayout layout = RowGroupLayout.parse(file.length, file, toIntExact(tail.position()), tail.length(), 1).orElseThrow();
        assertThat(layout.format()).isEqualTo(RowGroupLayout.Format.ORC);
        assertThat(layout.rowGroupCount()).isEqualTo(4);
        assertThat(layout.columnCount()).isEqualTo(1);

        RowGroupPrefetch prefetch = new RowGroupPrefetch(layout, 0);
        List<Range> planned = new ArrayList<>();
        int[] firstReadOfStripe = new int[] {-1, -1, -1, -1};
        List<Read> dataReads = reads.subList(1, reads.size());
        for (int i = 0; i < dataReads.size(); i++) {
            Read read = dataReads.get(i);
            int stripe = stripeOf(layout, read);
            if (firstReadOfStripe[stripe] == -1) {
                firstReadOfStripe[stripe] = i;
                // the reader's first read of a stripe is its footer: planned during the stripe before
                assertThat(new Range(read.position(), read.length())).isEqualTo(layout.prefetchRange(stripe, 0));
                if (stripe > 0) {
                    assertThat(planned).contains(new Range(read.position(), read.length()));
                }
            }
            List<Range> ranges = prefetch.onRead(read.position(), read.length(), NO_BOUND);
            if (firstReadOfStripe[stripe] == i && stripe < 3) {
                assertThat(ranges).containsExactly(layout.prefetchRange(stripe + 1, 0));
            }
            else {
                assertThat(ranges).isEmpty();
            }
            planned.addAll(ranges);
        }
        assertThat(firstReadOfStripe).doesNotContain(-1);
        assertThat(planned).hasSize(3);
    }

    @Test
    void testOrcTinyStripesFollowTrinoReader()
            throws IOException
    {
        byte[] file = writeOrc(4, NONE);
        RowGroupLayout stripes = RowGroupLayout.parse(file.length, file, 0, file.length, 1).orElseThrow();
        long largestStripe = 0;
        for (int stripe = 0; stripe < 4; stripe++) {
            largestStripe = Math.max(largestStripe, stripes.columnChunk(stripe, 0).length());
        }
        // every stripe tiny, the file not: the reader reads whole stripes (merged up to the threshold)
        long threshold = largestStripe + 16;
        assertThat((long) file.length).isGreaterThan(threshold);
        OrcReaderOptions options = new OrcReaderOptions().withTinyStripeThreshold(DataSize.ofBytes(threshold));
        List<Read> reads = readOrcWithTrino(file, options, List.of(1, 3));
        Read tail = reads.getFirst();
        RowGroupLayout layout = RowGroupLayout.parse(file.length, file, toIntExact(tail.position()), tail.length(), threshold).orElseThrow();
        for (int stripe = 0; stripe < 4; stripe++) {
            assertThat(layout.prefetchRange(stripe, 0)).isEqualTo(layout.columnChunk(stripe, 0));
        }

        RowGroupPrefetch prefetch = new RowGroupPrefetch(layout, 0);
        List<Read> dataReads = reads.subList(1, reads.size());
        List<Range> planned = new ArrayList<>();
        for (int i = 0; i < dataReads.size(); i++) {
            Read read = dataReads.get(i);
            // each read is whole stripes; the first stripe of every read after the first was planned
            Range firstStripe = layout.columnChunk(stripeOf(layout, read), 0);
            assertThat(read.position()).isEqualTo(firstStripe.start());
            if (i > 0) {
                assertThat(planned).contains(firstStripe);
            }
            planned.addAll(prefetch.onRead(read.position(), read.length(), NO_BOUND));
        }
        assertThat(dataReads.size()).isGreaterThan(1);
        // nothing planned that the reader did not read later
        for (Range range : planned) {
            assertThat(dataReads).anyMatch(read -> read.position() <= range.start() && range.end() <= read.position() + read.length());
        }
    }

    @Test
    void testOrcCorruptAndTruncated()
            throws IOException
    {
        byte[] file = writeOrc(3, ZSTD);
        RowGroupLayout layout = RowGroupLayout.parse(file.length, file, 0, file.length, 1).orElseThrow();
        int tailSize = toIntExact(file.length - layout.footerStart());
        assertThat(RowGroupLayout.parse(file.length, file, file.length - tailSize, tailSize, 1)).isPresent();
        assertThat(RowGroupLayout.parse(file.length, file, file.length - tailSize + 1, tailSize - 1, 1)).isEmpty();
        // reads of the last stripe or the footer plan nothing
        Range last = layout.columnChunk(2, 0);
        assertThat(layout.nextRowGroupRanges(last.start(), last.length(), 0, NO_BOUND)).isEmpty();
        assertThat(layout.nextRowGroupRanges(layout.footerStart(), tailSize, 0, NO_BOUND)).isEmpty();

        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            byte[] corrupt = file.clone();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                corrupt[toIntExact(layout.footerStart()) + random.nextInt(tailSize - 4)] = (byte) random.nextInt();
            }
            Optional<RowGroupLayout> parsed = RowGroupLayout.parse(corrupt.length, corrupt, 0, corrupt.length, 1);
            parsed.ifPresent(value -> assertSane(value, corrupt.length, random));
        }
    }

    @Test
    void testNotParquet()
            throws IOException
    {
        byte[] text = "id,name\n1,a\n2,b\n".repeat(1000).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(RowGroupLayout.parse(text.length, text, 0, text.length)).isEmpty();

        // an encrypted footer ("PARE"): only the reader can decrypt it
        byte[] parquet = writeParquet(2);
        parquet[parquet.length - 1] = 'E';
        assertThat(RowGroupLayout.parse(parquet.length, parquet, 0, parquet.length)).isEmpty();
    }

    @Test
    void testCraftedFooters()
            throws IOException
    {
        byte[] file = writeParquet(3);
        FileMetaData metadata = footer(file);

        // columns listed in another order than written: still the same column (by its place in the list) next
        RowGroupLayout original = parseWholeTail(file);
        Range id = original.columnChunk(0, 0);
        Range price = original.columnChunk(0, 2);
        FileMetaData reordered = metadata.deepCopy();
        reordered.getRow_groups().forEach(rowGroup -> rowGroup.setColumns(reversed(rowGroup.getColumns())));
        byte[] reorderedFile = withFooter(file, reordered);
        RowGroupLayout layout = RowGroupLayout.parse(reorderedFile.length, reorderedFile, 0, reorderedFile.length).orElseThrow();
        assertThat(layout.columnChunk(1, 0)).isEqualTo(original.columnChunk(1, 3));
        assertThat(layout.nextRowGroupRanges(id.start(), price.end() - id.start(), 0, NO_BOUND))
                .containsExactly(new Range(original.columnChunk(1, 0).start(), original.columnChunk(1, 2).end() - original.columnChunk(1, 0).start()));
        // reversed in row group 1 only: "id" of row group 0 is followed by the chunk listed first in row group 1
        FileMetaData mixed = metadata.deepCopy();
        mixed.getRow_groups().get(1).setColumns(reversed(mixed.getRow_groups().get(1).getColumns()));
        byte[] mixedFile = withFooter(file, mixed);
        RowGroupLayout mixedLayout = RowGroupLayout.parse(mixedFile.length, mixedFile, 0, mixedFile.length).orElseThrow();
        assertThat(mixedLayout.nextRowGroupRanges(id.start(), id.length(), 0, NO_BOUND))
                .containsExactly(original.columnChunk(1, 3));
        // "id" and "name" of row group 0: the chunks listed first and second in row group 1, in file order
        Range name = original.columnChunk(0, 1);
        assertThat(mixedLayout.nextRowGroupRanges(id.start(), name.end() - id.start(), 0, NO_BOUND))
                .containsExactly(new Range(original.columnChunk(1, 2).start(), original.columnChunk(1, 3).end() - original.columnChunk(1, 2).start()));
        assertThat(mixedLayout.nextRowGroupRanges(id.start(), name.end() - id.start(), NO_BOUND, 1))
                .containsExactly(new Range(original.columnChunk(1, 2).start(), 1));

        // chunks in another file
        FileMetaData external = metadata.deepCopy();
        external.getRow_groups().getFirst().getColumns().getFirst().setFile_path("other.parquet");
        assertNoLayout(withFooter(file, external));

        // a chunk running into the footer
        FileMetaData intoFooter = metadata.deepCopy();
        ColumnMetaData lastChunk = intoFooter.getRow_groups().getLast().getColumns().getLast().getMeta_data();
        lastChunk.setTotal_compressed_size(lastChunk.getTotal_compressed_size() + 1);
        assertNoLayout(withFooter(file, intoFooter));

        // overlapping chunks
        FileMetaData overlapping = metadata.deepCopy();
        ColumnMetaData firstChunk = overlapping.getRow_groups().getFirst().getColumns().getFirst().getMeta_data();
        firstChunk.setTotal_compressed_size(firstChunk.getTotal_compressed_size() + 1);
        assertNoLayout(withFooter(file, overlapping));

        // row groups with different column counts
        FileMetaData ragged = metadata.deepCopy();
        ragged.getRow_groups().getLast().getColumns().removeLast();
        assertNoLayout(withFooter(file, ragged));

        // no row groups
        FileMetaData empty = metadata.deepCopy();
        empty.setRow_groups(new ArrayList<>());
        assertNoLayout(withFooter(file, empty));

        // a dictionary page offset after the first data page is not where the chunk starts (as Trino reads it)
        FileMetaData lateDictionary = metadata.deepCopy();
        ColumnMetaData chunk = lateDictionary.getRow_groups().getFirst().getColumns().get(1).getMeta_data();
        chunk.setDictionary_page_offset(chunk.getData_page_offset() + 1);
        byte[] lateFile = withFooter(file, lateDictionary);
        assertThat(RowGroupLayout.parse(lateFile.length, lateFile, 0, lateFile.length).orElseThrow().columnChunk(0, 1).start())
                .isEqualTo(chunk.getData_page_offset());
    }

    @Test
    void testCorruptFootersNeverThrow()
            throws IOException
    {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        byte[] file = writeParquet(3);
        RowGroupLayout original = parseWholeTail(file);
        int footerStart = toIntExact(original.footerStart());
        int parsed = 0;
        for (int i = 0; i < 3_000; i++) {
            byte[] corrupt = file.clone();
            switch (i % 3) {
                case 0 -> {
                    // a few random bytes in the footer
                    for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                        corrupt[footerStart + random.nextInt(corrupt.length - 8 - footerStart)] = (byte) random.nextInt();
                    }
                }
                case 1 -> {
                    // the whole footer random, its length kept
                    byte[] noise = new byte[corrupt.length - 8 - footerStart];
                    random.nextBytes(noise);
                    System.arraycopy(noise, 0, corrupt, footerStart, noise.length);
                }
                default -> {
                    // a random footer length
                    int length = random.nextBoolean() ? random.nextInt() : random.nextInt(corrupt.length + 16);
                    corrupt[corrupt.length - 8] = (byte) length;
                    corrupt[corrupt.length - 7] = (byte) (length >> 8);
                    corrupt[corrupt.length - 6] = (byte) (length >> 16);
                    corrupt[corrupt.length - 5] = (byte) (length >> 24);
                }
            }
            int tailLength = random.nextBoolean() ? corrupt.length : random.nextInt(corrupt.length + 1);
            Optional<RowGroupLayout> layout = RowGroupLayout.parse(corrupt.length, corrupt, corrupt.length - tailLength, tailLength);
            if (layout.isPresent()) {
                parsed++;
                assertSane(layout.get(), corrupt.length, random);
            }
        }
        // some corruptions hit only statistics or names: still a layout, and a sane one
        assertThat(parsed).as("seed %s", seed).isPositive();

        // random tails ending with the magic
        for (int i = 0; i < 1_000; i++) {
            byte[] noise = new byte[1 + random.nextInt(4096)];
            random.nextBytes(noise);
            System.arraycopy("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, noise, Math.max(0, noise.length - 4), Math.min(4, noise.length));
            long fileLength = noise.length + (random.nextBoolean() ? 0 : random.nextInt(1 << 20));
            Optional<RowGroupLayout> layout = RowGroupLayout.parse(fileLength, noise, 0, noise.length);
            layout.ifPresent(value -> assertSane(value, fileLength, random));
        }
    }

    private static void assertSane(RowGroupLayout layout, long fileLength, Random random)
    {
        for (int i = 0; i < 20; i++) {
            long position = random.nextLong(fileLength);
            long length = 1 + random.nextLong(fileLength);
            long bound = 1 + random.nextLong(fileLength);
            List<Range> ranges = layout.nextRowGroupRanges(position, length, random.nextLong(1024), bound);
            assertThat(total(ranges)).isLessThanOrEqualTo(bound);
            for (Range range : ranges) {
                assertThat(range.start()).isGreaterThanOrEqualTo(4);
                assertThat(range.end()).isLessThanOrEqualTo(layout.footerStart()).isLessThanOrEqualTo(fileLength);
            }
        }
    }

    private static void assertNoLayout(byte[] file)
    {
        assertThat(RowGroupLayout.parse(file.length, file, 0, file.length)).isEmpty();
    }

    private static FileMetaData footer(byte[] file)
            throws IOException
    {
        int length = Slices.wrappedBuffer(file).getInt(file.length - 8);
        return Util.readFileMetaData(new java.io.ByteArrayInputStream(file, file.length - 8 - length, length));
    }

    // the data of file with another footer
    private static byte[] withFooter(byte[] file, FileMetaData metadata)
    {
        try {
            int oldLength = Slices.wrappedBuffer(file).getInt(file.length - 8);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(file, 0, file.length - 8 - oldLength);
            ByteArrayOutputStream footer = new ByteArrayOutputStream();
            Util.writeFileMetaData(metadata, footer);
            footer.writeTo(out);
            Slice postScript = Slices.allocate(8);
            postScript.setInt(0, footer.size());
            postScript.setBytes(4, utf8Slice("PAR1"));
            out.write(postScript.getBytes());
            return out.toByteArray();
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<ColumnChunk> reversed(List<ColumnChunk> columns)
    {
        List<ColumnChunk> copy = new ArrayList<>(columns);
        java.util.Collections.reverse(copy);
        return copy;
    }

    private static long total(List<Range> ranges)
    {
        return ranges.stream().mapToLong(Range::length).sum();
    }

    private static boolean covered(List<Range> planned, Read read)
    {
        return planned.stream().anyMatch(range -> range.start() <= read.position() && read.position() + read.length() <= range.end());
    }

    private static int rowGroupOf(RowGroupLayout layout, Read read)
    {
        for (int rowGroup = 0; rowGroup < layout.rowGroupCount(); rowGroup++) {
            for (int column = 0; column < layout.columnCount(); column++) {
                if (layout.columnChunk(rowGroup, column).start() == read.position()) {
                    return rowGroup;
                }
            }
        }
        throw new AssertionError("read not at a column chunk: " + read);
    }

    private static int columnOf(RowGroupLayout layout, Read read)
    {
        for (int rowGroup = 0; rowGroup < layout.rowGroupCount(); rowGroup++) {
            for (int column = 0; column < layout.columnCount(); column++) {
                if (layout.columnChunk(rowGroup, column).start() == read.position()) {
                    return column;
                }
            }
        }
        throw new AssertionError("read not at a column chunk: " + read);
    }

    private static RowGroupLayout parseWholeTail(byte[] file)
    {
        return RowGroupLayout.parse(file.length, file, 0, file.length).orElseThrow();
    }

    private static RowGroupLayout parseTail(byte[] file, Read tailRead)
    {
        // the bytes the reader read first, which must be the end of the file
        assertThat(tailRead.position() + tailRead.length()).isEqualTo(file.length);
        return RowGroupLayout.parse(file.length, file, toIntExact(tailRead.position()), tailRead.length()).orElseThrow();
    }

    private static int toIntExact(long value)
    {
        return Math.toIntExact(value);
    }

    private static ParquetMetadata trinoMetadata(byte[] file)
            throws IOException
    {
        return MetadataReader.readFooter(new RecordingDataSource(file, ParquetReaderOptions.defaultOptions()), Optional.empty());
    }

    // every read Trino's Parquet reader makes to scan the given columns, in order, the footer read first
    static List<Read> readWithTrino(byte[] file, ParquetReaderOptions options, List<Integer> columns)
            throws IOException
    {
        RecordingDataSource dataSource = new RecordingDataSource(file, options);
        ParquetMetadata metadata = MetadataReader.readFooter(dataSource, options, Optional.empty(), Optional.empty());
        MessageType schema = metadata.getFileMetaData().getSchema();
        MessageColumnIO columnIO = getColumnIO(schema, schema);
        ImmutableList.Builder<Column> fields = ImmutableList.builder();
        for (int column : columns) {
            fields.add(new Column(NAMES.get(column), constructField(TYPES.get(column), lookupColumnByName(columnIO, NAMES.get(column))).orElseThrow()));
        }
        Map<List<String>, ColumnDescriptor> descriptors = getDescriptors(schema, schema);
        ImmutableList.Builder<RowGroupInfo> rowGroups = ImmutableList.builder();
        long rowOffset = 0;
        for (BlockMetadata block : metadata.getBlocks()) {
            rowGroups.add(new RowGroupInfo(createPrunedColumnsMetadata(block, dataSource.getId(), descriptors), rowOffset, Optional.empty()));
            rowOffset += block.rowCount();
        }
        try (ParquetReader reader = new ParquetReader(
                Optional.ofNullable(metadata.getFileMetaData().getCreatedBy()),
                fields.build(),
                false,
                rowGroups.build(),
                dataSource,
                DateTimeZone.UTC,
                newSimpleAggregatedMemoryContext(),
                options,
                exception -> new RuntimeException(exception),
                Optional.empty(),
                Optional.empty(),
                Optional.empty())) {
            long rows = 0;
            for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                for (int channel = 0; channel < columns.size(); channel++) {
                    page.getBlock(channel);
                }
                rows += page.getPositionCount();
            }
            assertThat(rows).isEqualTo(rowOffset);
        }
        return dataSource.reads();
    }

    private byte[] writeParquetUnchecked(int rowGroups)
    {
        try {
            return writeParquet(rowGroups);
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // a file of Trino's Parquet writer with the given number of row groups of the four columns
    static byte[] writeParquet(int rowGroups)
            throws IOException
    {
        ParquetSchemaConverter schema = new ParquetSchemaConverter(TYPES, NAMES, false, false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ParquetWriter writer = new ParquetWriter(
                out,
                schema.getMessageType(),
                schema.getPrimitiveTypes(),
                ParquetWriterOptions.builder()
                        .setMaxRowGroupRowCount(ROWS_PER_ROW_GROUP)
                        .setBatchSize(ROWS_PER_ROW_GROUP)
                        .build(),
                CompressionCodec.SNAPPY,
                "test",
                Optional.of(DateTimeZone.UTC),
                Optional.empty());
        Random random = new Random(rowGroups);
        for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
            writer.write(page(random, rowGroup * ROWS_PER_ROW_GROUP, ROWS_PER_ROW_GROUP));
        }
        writer.close();
        byte[] file = out.toByteArray();
        assertThat(footer(file).getRow_groups()).hasSize(rowGroups);
        return file;
    }

    private byte[] writeOrc(int stripes, CompressionKind compression)
            throws IOException
    {
        LocalFileSystem fileSystem = new LocalFileSystem(directory);
        Location location = Location.of("local:///data.orc");
        OrcWriter writer = new OrcWriter(
                OutputStreamOrcDataSink.create(fileSystem.newOutputFile(location)),
                NAMES,
                TYPES,
                OrcType.createRootOrcType(NAMES, TYPES),
                compression,
                new OrcWriterOptions().withStripeMaxRowCount(ROWS_PER_ROW_GROUP).withStripeMinSize(DataSize.ofBytes(1)),
                Map.of(),
                false,
                io.trino.orc.OrcWriteValidation.OrcWriteValidationMode.BOTH,
                new OrcWriterStats());
        Random random = new Random(1);
        for (int stripe = 0; stripe < stripes; stripe++) {
            writer.write(page(random, stripe * ROWS_PER_ROW_GROUP, ROWS_PER_ROW_GROUP));
        }
        writer.close();
        byte[] file = Files.readAllBytes(directory.resolve("data.orc"));
        assertThat(new String(file, 0, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("ORC");
        assertThat(RowGroupLayout.parse(file.length, file, 0, file.length).orElseThrow().rowGroupCount()).isEqualTo(stripes);
        return file;
    }

    private static int stripeOf(RowGroupLayout layout, Read read)
    {
        for (int stripe = 0; stripe < layout.rowGroupCount(); stripe++) {
            Range range = layout.columnChunk(stripe, 0);
            if (range.start() <= read.position() && read.position() < range.end()) {
                return stripe;
            }
        }
        throw new AssertionError("read not in a stripe: " + read);
    }

    // every read Trino's ORC reader makes to scan the given columns, in order, the tail read first
    private static List<Read> readOrcWithTrino(byte[] file, OrcReaderOptions options, List<Integer> columns)
            throws IOException
    {
        RecordingOrcDataSource dataSource = new RecordingOrcDataSource(file, options);
        OrcReader reader = OrcReader.createOrcReader(dataSource, options).orElseThrow();
        List<io.trino.orc.OrcColumn> readColumns = columns.stream()
                .map(column -> reader.getRootColumn().getNestedColumns().get(column))
                .toList();
        List<Type> readTypes = columns.stream().map(TYPES::get).toList();
        long rows = 0;
        try (OrcRecordReader recordReader = reader.createRecordReader(
                readColumns,
                readTypes,
                false,
                OrcPredicate.TRUE,
                DateTimeZone.UTC,
                newSimpleAggregatedMemoryContext(),
                OrcReader.INITIAL_BATCH_SIZE,
                RuntimeException::new)) {
            for (SourcePage page = recordReader.nextPage(); page != null; page = recordReader.nextPage()) {
                for (int channel = 0; channel < columns.size(); channel++) {
                    page.getBlock(channel);
                }
                rows += page.getPositionCount();
            }
        }
        assertThat(rows).isPositive();
        return dataSource.reads();
    }

    private static Page page(Random random, long firstId, int rows)
    {
        BlockBuilder ids = BIGINT.createFixedSizeBlockBuilder(rows);
        BlockBuilder names = VARCHAR.createBlockBuilder(null, rows);
        BlockBuilder prices = DOUBLE.createFixedSizeBlockBuilder(rows);
        BlockBuilder quantities = BIGINT.createFixedSizeBlockBuilder(rows);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(ids, firstId + row);
            VARCHAR.writeSlice(names, utf8Slice("name-" + random.nextInt(1_000_000)));
            DOUBLE.writeDouble(prices, random.nextDouble());
            BIGINT.writeLong(quantities, random.nextInt(50));
        }
        return new Page(new Block[] {ids.build(), names.build(), prices.build(), quantities.build()});
    }

    record Read(long position, int length) {}

    // Trino's ORC reader over the bytes of a file, remembering each read it makes
    private static final class RecordingOrcDataSource
            extends AbstractOrcDataSource
    {
        private final byte[] file;
        private final List<Read> reads = new ArrayList<>();

        RecordingOrcDataSource(byte[] file, OrcReaderOptions options)
        {
            super(new OrcDataSourceId("test.orc"), file.length, options);
            this.file = file;
        }

        @Override
        protected Slice readTailInternal(int length)
        {
            reads.add(new Read(file.length - length, length));
            return Slices.wrappedBuffer(Arrays.copyOfRange(file, file.length - length, file.length));
        }

        @Override
        protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
        {
            reads.add(new Read(position, bufferLength));
            System.arraycopy(file, toIntExact(position), buffer, bufferOffset, bufferLength);
        }

        List<Read> reads()
        {
            return List.copyOf(reads);
        }
    }

    // Trino's Parquet reader over the bytes of a file, remembering each read it makes (as TrinoInput sees them)
    private static final class RecordingDataSource
            extends AbstractParquetDataSource
    {
        private final byte[] file;
        private final List<Read> reads = new ArrayList<>();

        RecordingDataSource(byte[] file, ParquetReaderOptions options)
        {
            super(new ParquetDataSourceId("test.parquet"), file.length, options);
            this.file = file;
        }

        @Override
        protected Slice readTailInternal(int length)
        {
            reads.add(new Read(file.length - length, length));
            return Slices.wrappedBuffer(Arrays.copyOfRange(file, file.length - length, file.length));
        }

        @Override
        protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
        {
            reads.add(new Read(position, bufferLength));
            System.arraycopy(file, toIntExact(position), buffer, bufferOffset, bufferLength);
        }

        List<Read> reads()
        {
            return List.copyOf(reads);
        }
    }
}
