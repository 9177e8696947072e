package io.overdrive.cache.scan;

import io.airlift.slice.Slices;
import io.trino.orc.OrcDataSourceId;
import io.trino.orc.OrcDecompressor;
import io.trino.orc.OrcReaderOptions;
import io.trino.orc.metadata.Footer;
import io.trino.orc.metadata.OrcMetadataReader;
import io.trino.orc.metadata.PostScript;
import io.trino.orc.metadata.StripeInformation;
import io.trino.orc.stream.OrcChunkLoader;
import io.trino.orc.stream.OrcInputStream;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOf;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static org.apache.parquet.format.Util.readFileMetaData;

/**
 * Where each column chunk of a Parquet file lies: per row group, per column, the bytes
 * {@code [start, start + total_compressed_size)}, start being the dictionary page when there is one before the first
 * data page (as Trino's {@code ColumnChunkMetadata.getStartingPos}).
 * <p>
 * Why: Trino's Parquet reader reads only the chunks of the projected columns, row group after row group, each one
 * when its row group starts, so a cold scan waits for storage once per chunk and a sequential read-ahead never
 * triggers (the reads jump over the columns not read). A read of chunks of row group {@code k} tells which columns
 * the reader will want in row group {@code k + 1}: {@link #nextRowGroupRanges} maps one to the other, so the cache
 * can fetch those while the reader decodes row group {@code k}.
 * <p>
 * ORC: the footer lists stripes, not the streams of each column (those are in each stripe's own footer, which the
 * tail does not hold), so an ORC layout has one "column" per stripe, the whole stripe. What a read of stripe
 * {@code k} plans follows how Trino's ORC reader reads stripe {@code k + 1}: when every stripe is at most the tiny
 * stripe threshold ({@code hive.orc.tiny-stripe-threshold}, 8MB by default) the reader reads whole stripes (its
 * {@code CachingOrcDataSource}), so the whole next stripe; otherwise the next stripe's footer, the reader's first
 * read of each stripe (a storage round trip saved per stripe, a few kilobytes fetched).
 * <p>
 * The layout is built from the footer bytes the reader already read ({@link #parse}), never with a read of its own.
 * Anything unexpected (not Parquet, an encrypted footer, a footer larger than the bytes given, column chunks in
 * another file, chunks outside the data or overlapping each other, any parse failure) gives no layout: prefetching
 * is an optimisation, the read path never fails or waits because of it.
 */
final class RowGroupLayout
{
    /**
     * Bytes {@code [start, start + length)} of a file.
     */
    record Range(long start, long length)
    {
        Range
        {
            checkArgument(start >= 0, "start is negative: %s", start);
            checkArgument(length > 0, "length is not positive: %s", length);
        }

        long end()
        {
            return start + length;
        }
    }

    enum Format
    {
        PARQUET,
        ORC,
    }

    private static final byte[] PARQUET_MAGIC = {'P', 'A', 'R', '1'};
    // footer length (4 bytes, little endian) and the magic
    private static final int PARQUET_POST_SCRIPT_SIZE = Integer.BYTES + PARQUET_MAGIC.length;
    private static final byte[] ORC_MAGIC = {'O', 'R', 'C'};
    private static final OrcDataSourceId ORC_ID = new OrcDataSourceId("row-group-layout");
    private static final int INSTANCE_SIZE = instanceSize(RowGroupLayout.class);
    // beyond, no layout: about 30 bytes a chunk, so at most about 30MB, and footers that large are rare
    static final int MAX_CHUNKS = 1 << 20;
    /**
     * Trino's default {@code hive.orc.tiny-stripe-threshold}.
     */
    static final long DEFAULT_ORC_TINY_STRIPE_THRESHOLD = 8 * 1024 * 1024;

    private final Format format;
    private final long fileLength;
    private final long footerStart;
    private final int rowGroupCount;
    private final int columnCount;
    // column chunks sorted by start; chunks do not overlap, so ends are sorted too
    private final long[] starts;
    private final long[] ends;
    private final int[] rowGroupOf;
    private final int[] columnOf;
    // rowGroup * columnCount + column -> index in the sorted arrays
    private final int[] indexOf;
    // what to prefetch for each chunk, in the same order: the chunk itself (Parquet), the stripe's footer (ORC)
    private final long[] prefetchStarts;
    private final long[] prefetchEnds;

    private RowGroupLayout(Format format, long fileLength, long footerStart, int rowGroupCount, int columnCount, long[] starts, long[] ends, int[] rowGroupOf, int[] columnOf, int[] indexOf, long[] prefetchStarts, long[] prefetchEnds)
    {
        this.format = format;
        this.fileLength = fileLength;
        this.footerStart = footerStart;
        this.rowGroupCount = rowGroupCount;
        this.columnCount = columnCount;
        this.starts = starts;
        this.ends = ends;
        this.rowGroupOf = rowGroupOf;
        this.columnOf = columnOf;
        this.indexOf = indexOf;
        this.prefetchStarts = prefetchStarts;
        this.prefetchEnds = prefetchEnds;
    }

    /**
     * The layout of a file of {@code fileLength} bytes whose last {@code length} bytes are
     * {@code tail[offset, offset + length)}, or empty when those bytes are not the end of a Parquet file with its whole
     * footer, nor of an ORC file with its whole postscript, footer and metadata. Never throws on any content of
     * {@code tail}.
     */
    static Optional<RowGroupLayout> parse(long fileLength, byte[] tail, int offset, int length)
    {
        return parse(fileLength, tail, offset, length, DEFAULT_ORC_TINY_STRIPE_THRESHOLD);
    }

    /**
     * As {@link #parse(long, byte[], int, int)}, with the reader's ORC tiny stripe threshold.
     */
    static Optional<RowGroupLayout> parse(long fileLength, byte[] tail, int offset, int length, long orcTinyStripeThreshold)
    {
        Objects.checkFromIndexSize(offset, length, tail.length);
        if (length > fileLength) {
            return Optional.empty();
        }
        try {
            Optional<RowGroupLayout> parquet = parseParquet(fileLength, tail, offset, length);
            if (parquet.isPresent()) {
                return parquet;
            }
            return parseOrc(fileLength, tail, offset, length, orcTinyStripeThreshold);
        }
        catch (IOException | RuntimeException | StackOverflowError _) {
            // corrupt or unexpected metadata: the reader reports it, we only do not prefetch
            return Optional.empty();
        }
    }

    private static Optional<RowGroupLayout> parseParquet(long fileLength, byte[] tail, int offset, int length)
            throws IOException
    {
        if (fileLength < PARQUET_MAGIC.length + PARQUET_POST_SCRIPT_SIZE || length < PARQUET_POST_SCRIPT_SIZE) {
            return Optional.empty();
        }
        int end = offset + length;
        if (!Arrays.equals(tail, end - PARQUET_MAGIC.length, end, PARQUET_MAGIC, 0, PARQUET_MAGIC.length)) {
            // not Parquet, or an encrypted footer ("PARE") that only the reader can decrypt
            return Optional.empty();
        }
        int footerLength = littleEndianInt(tail, end - PARQUET_POST_SCRIPT_SIZE);
        long footerStart = fileLength - PARQUET_POST_SCRIPT_SIZE - (long) footerLength;
        if (footerLength <= 0 || footerStart < PARQUET_MAGIC.length || (long) footerLength + PARQUET_POST_SCRIPT_SIZE > length) {
            // corrupt, or the footer is larger than the tail the reader read first (it reads the rest later)
            return Optional.empty();
        }
        int footerOffset = end - PARQUET_POST_SCRIPT_SIZE - footerLength;
        // the footer length bounds what Thrift may allocate, so corrupt bytes cannot ask for huge lists
        FileMetaData metadata = readFileMetaData(new ByteArrayInputStream(tail, footerOffset, footerLength), footerLength);

        List<RowGroup> rowGroups = metadata.getRow_groups();
        if (rowGroups == null || rowGroups.isEmpty()) {
            return Optional.empty();
        }
        int rowGroupCount = rowGroups.size();
        int columnCount = -1;
        for (RowGroup rowGroup : rowGroups) {
            List<ColumnChunk> columns = rowGroup.getColumns();
            if (columns == null || columns.isEmpty() || (columnCount != -1 && columns.size() != columnCount)) {
                return Optional.empty();
            }
            columnCount = columns.size();
        }
        if ((long) rowGroupCount * columnCount > MAX_CHUNKS) {
            return Optional.empty();
        }
        int chunkCount = rowGroupCount * columnCount;
        long[] chunkStarts = new long[chunkCount];
        long[] chunkEnds = new long[chunkCount];
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            List<ColumnChunk> columns = rowGroups.get(rowGroup).getColumns();
            for (int column = 0; column < columnCount; column++) {
                ColumnChunk chunk = columns.get(column);
                ColumnMetaData chunkMetadata = chunk.getMeta_data();
                if (chunk.getFile_path() != null || chunkMetadata == null) {
                    // chunk in another file, or encrypted column metadata
                    return Optional.empty();
                }
                long dataPageOffset = chunkMetadata.getData_page_offset();
                long dictionaryPageOffset = chunkMetadata.isSetDictionary_page_offset() ? chunkMetadata.getDictionary_page_offset() : 0;
                long start = (dictionaryPageOffset > 0 && dictionaryPageOffset < dataPageOffset) ? dictionaryPageOffset : dataPageOffset;
                long size = chunkMetadata.getTotal_compressed_size();
                if (start < PARQUET_MAGIC.length || size <= 0 || size > footerStart - start) {
                    return Optional.empty();
                }
                int index = rowGroup * columnCount + column;
                chunkStarts[index] = start;
                chunkEnds[index] = start + size;
            }
        }
        return Optional.ofNullable(sorted(Format.PARQUET, fileLength, footerStart, rowGroupCount, columnCount, chunkStarts, chunkEnds, chunkStarts, chunkEnds));
    }

    private static Optional<RowGroupLayout> parseOrc(long fileLength, byte[] tail, int offset, int length, long tinyStripeThreshold)
            throws IOException
    {
        // ORC file: "ORC", stripes, metadata, footer, postscript, postscript length (1 byte); the postscript ends
        // with its magic (field 8000, "ORC")
        int end = offset + length;
        if (fileLength < ORC_MAGIC.length + 1 || length < ORC_MAGIC.length + 1
                || !Arrays.equals(tail, end - 1 - ORC_MAGIC.length, end - 1, ORC_MAGIC, 0, ORC_MAGIC.length)) {
            return Optional.empty();
        }
        int postScriptLength = tail[end - 1] & 0xFF;
        if (postScriptLength + 1 > length) {
            return Optional.empty();
        }
        OrcMetadataReader reader = new OrcMetadataReader(new OrcReaderOptions());
        PostScript postScript = reader.readPostScript(new ByteArrayInputStream(tail, end - 1 - postScriptLength, postScriptLength));
        long footerLength = postScript.getFooterLength();
        long tailSize = 1L + postScriptLength + footerLength + postScript.getMetadataLength();
        long footerStart = fileLength - tailSize;
        if (footerLength <= 0 || postScript.getMetadataLength() < 0 || tailSize > length || footerStart < ORC_MAGIC.length
                || postScript.getCompressionBlockSize() <= 0 || postScript.getCompressionBlockSize() > OrcDecompressor.MAX_BUFFER_SIZE) {
            // corrupt, or a footer larger than the tail read first (the reader reads the whole of it next)
            return Optional.empty();
        }
        Optional<OrcDecompressor> decompressor = OrcDecompressor.createOrcDecompressor(ORC_ID, postScript.getCompression(), toIntExactOrThrow(postScript.getCompressionBlockSize()));
        int footerOffset = end - 1 - postScriptLength - (int) footerLength;
        Footer footer;
        try (OrcInputStream input = new OrcInputStream(OrcChunkLoader.create(ORC_ID, Slices.wrappedBuffer(tail, footerOffset, (int) footerLength), decompressor, newSimpleAggregatedMemoryContext()))) {
            footer = reader.readFooter(postScript.getHiveWriterVersion(), input);
        }
        List<StripeInformation> stripes = footer.getStripes();
        if (stripes.isEmpty() || stripes.size() > MAX_CHUNKS) {
            return Optional.empty();
        }
        int stripeCount = stripes.size();
        long[] stripeStarts = new long[stripeCount];
        long[] stripeEnds = new long[stripeCount];
        long[] stripeFooterStarts = new long[stripeCount];
        long[] stripeFooterEnds = new long[stripeCount];
        for (int stripe = 0; stripe < stripeCount; stripe++) {
            StripeInformation information = stripes.get(stripe);
            long start = information.getOffset();
            long indexLength = information.getIndexLength();
            long dataLength = information.getDataLength();
            long stripeFooterLength = information.getFooterLength();
            if (start < ORC_MAGIC.length || indexLength < 0 || dataLength < 0 || stripeFooterLength <= 0
                    || indexLength > footerStart || dataLength > footerStart || stripeFooterLength > footerStart
                    || indexLength + dataLength + stripeFooterLength > footerStart - start) {
                return Optional.empty();
            }
            stripeStarts[stripe] = start;
            stripeEnds[stripe] = start + indexLength + dataLength + stripeFooterLength;
            stripeFooterStarts[stripe] = start + indexLength + dataLength;
            stripeFooterEnds[stripe] = stripeEnds[stripe];
        }
        boolean tinyStripes = true;
        for (int stripe = 0; stripe < stripeCount; stripe++) {
            tinyStripes &= stripeEnds[stripe] - stripeStarts[stripe] <= tinyStripeThreshold;
        }
        if (tinyStripes) {
            // the reader reads whole stripes
            stripeFooterStarts = stripeStarts;
            stripeFooterEnds = stripeEnds;
        }
        return Optional.ofNullable(sorted(Format.ORC, fileLength, footerStart, stripeCount, 1, stripeStarts, stripeEnds, stripeFooterStarts, stripeFooterEnds));
    }

    private static int toIntExactOrThrow(long value)
    {
        return Math.toIntExact(value);
    }

    // null when chunks overlap: a layout we do not understand
    private static RowGroupLayout sorted(Format format, long fileLength, long footerStart, int rowGroupCount, int columnCount, long[] chunkStarts, long[] chunkEnds, long[] chunkPrefetchStarts, long[] chunkPrefetchEnds)
    {
        int chunkCount = chunkStarts.length;
        int[] order = new int[chunkCount];
        boolean inFileOrder = true;
        for (int i = 0; i < chunkCount; i++) {
            order[i] = i;
            inFileOrder &= i == 0 || chunkStarts[i - 1] <= chunkStarts[i];
        }
        if (!inFileOrder) {
            // columns listed in another order than written, or row groups out of order
            order = IntStream.range(0, chunkCount).boxed()
                    .sorted((left, right) -> Long.compare(chunkStarts[left], chunkStarts[right]))
                    .mapToInt(Integer::intValue)
                    .toArray();
        }
        long[] starts = new long[chunkCount];
        long[] ends = new long[chunkCount];
        int[] rowGroupOf = new int[chunkCount];
        int[] columnOf = new int[chunkCount];
        int[] indexOf = new int[chunkCount];
        long[] prefetchStarts = chunkPrefetchStarts == chunkStarts ? starts : new long[chunkCount];
        long[] prefetchEnds = chunkPrefetchEnds == chunkEnds ? ends : new long[chunkCount];
        for (int i = 0; i < chunkCount; i++) {
            int chunk = order[i];
            starts[i] = chunkStarts[chunk];
            ends[i] = chunkEnds[chunk];
            prefetchStarts[i] = chunkPrefetchStarts[chunk];
            prefetchEnds[i] = chunkPrefetchEnds[chunk];
            rowGroupOf[i] = chunk / columnCount;
            columnOf[i] = chunk % columnCount;
            indexOf[chunk] = i;
            if (i > 0 && ends[i - 1] > starts[i]) {
                return null;
            }
        }
        return new RowGroupLayout(format, fileLength, footerStart, rowGroupCount, columnCount, starts, ends, rowGroupOf, columnOf, indexOf, prefetchStarts, prefetchEnds);
    }

    private static int littleEndianInt(byte[] bytes, int offset)
    {
        return (bytes[offset] & 0xFF)
                | (bytes[offset + 1] & 0xFF) << 8
                | (bytes[offset + 2] & 0xFF) << 16
                | (bytes[offset + 3] & 0xFF) << 24;
    }

    Format format()
    {
        return format;
    }

    long fileLength()
    {
        return fileLength;
    }

    /**
     * Where the footer starts: no column chunk reaches it.
     */
    long footerStart()
    {
        return footerStart;
    }

    int rowGroupCount()
    {
        return rowGroupCount;
    }

    int columnCount()
    {
        return columnCount;
    }

    /**
     * The bytes of the chunk of {@code column} (its position in the row group's column list) in {@code rowGroup}; for
     * ORC, the whole stripe {@code rowGroup} (one column).
     */
    Range columnChunk(int rowGroup, int column)
    {
        checkArgument(rowGroup >= 0 && rowGroup < rowGroupCount, "rowGroup out of range: %s", rowGroup);
        checkArgument(column >= 0 && column < columnCount, "column out of range: %s", column);
        int index = indexOf[rowGroup * columnCount + column];
        return new Range(starts[index], ends[index] - starts[index]);
    }

    /**
     * What a read of the chunk before this one plans: the chunk itself (Parquet, ORC with tiny stripes), the stripe's
     * footer (ORC).
     */
    Range prefetchRange(int rowGroup, int column)
    {
        checkArgument(rowGroup >= 0 && rowGroup < rowGroupCount, "rowGroup out of range: %s", rowGroup);
        checkArgument(column >= 0 && column < columnCount, "column out of range: %s", column);
        int index = indexOf[rowGroup * columnCount + column];
        return new Range(prefetchStarts[index], prefetchEnds[index] - prefetchStarts[index]);
    }

    /**
     * Stateless form of {@link RowGroupPrefetch#onRead}: the chunks in row group {@code k + 1} of the columns whose
     * chunks in row group {@code k} the read {@code [position, position + length)} touches, in file order, those
     * closer than {@code maxMergeGap} merged into one range, at most {@code maxBytes} in all. Empty when the read
     * touches no column chunk (footer, indexes, bloom filters) or only chunks of the last row group. ORC: for a read
     * of stripe {@code k}, stripe {@code k + 1} or its footer (see the class comment).
     */
    List<Range> nextRowGroupRanges(long position, long length, long maxMergeGap, long maxBytes)
    {
        return plan(position, length, maxMergeGap, maxBytes, null);
    }

    /**
     * Plans the ranges to prefetch for a read; chunks set in {@code returned} (indexes in file order) are skipped, and
     * those planned (or lying inside the read itself) are set there.
     */
    List<Range> plan(long position, long length, long maxMergeGap, long maxBytes, BitSet returned)
    {
        checkArgument(maxMergeGap >= 0, "maxMergeGap is negative: %s", maxMergeGap);
        if (position < 0 || length <= 0 || maxBytes <= 0 || position >= footerStart) {
            return List.of();
        }
        long readEnd = position + Math.min(length, Long.MAX_VALUE - position);
        // chunks touched: a contiguous run, as chunks are sorted and do not overlap
        int first = firstEndingAfter(position);
        int last = lastStartingBefore(readEnd);
        if (first > last) {
            return List.of();
        }
        boolean inOrder = true;
        int candidates = 0;
        int previous = -1;
        for (int i = first; i <= last; i++) {
            int next = nextRowGroupChunk(i);
            if (next >= 0) {
                inOrder &= next > previous;
                previous = next;
                candidates++;
            }
        }
        if (candidates == 0) {
            return List.of();
        }
        int[] order = null;
        if (!inOrder) {
            // columns listed in another order than they are written: rare, so only then an allocation to sort
            order = new int[candidates];
            int count = 0;
            for (int i = first; i <= last; i++) {
                int next = nextRowGroupChunk(i);
                if (next >= 0) {
                    order[count++] = next;
                }
            }
            Arrays.sort(order);
        }

        List<Range> result = null;
        long rangeStart = -1;
        long rangeEnd = -1;
        long budget = maxBytes;
        int steps = order != null ? candidates : last - first + 1;
        for (int step = 0; step < steps; step++) {
            int chunk = order != null ? order[step] : nextRowGroupChunk(first + step);
            if (chunk < 0 || (returned != null && returned.get(chunk))) {
                continue;
            }
            long start = prefetchStarts[chunk];
            long end = prefetchEnds[chunk];
            // the part the read itself covers is on its way already
            if (start < readEnd && end > position) {
                if (start >= position && end <= readEnd) {
                    markReturned(returned, chunk);
                    continue;
                }
                if (start >= position) {
                    start = readEnd;
                }
                else if (end <= readEnd) {
                    end = position;
                }
            }
            boolean acrossRead = rangeEnd <= position && start >= readEnd;
            if (rangeStart >= 0 && !acrossRead && start - rangeEnd <= maxMergeGap) {
                long cost = end - rangeEnd;
                if (cost > budget) {
                    break;
                }
                budget -= cost;
                rangeEnd = end;
            }
            else {
                long cost = end - start;
                if (cost > budget) {
                    if (rangeStart < 0 && result == null) {
                        // a chunk larger than the bound: its first bytes, where the reader starts
                        markReturned(returned, chunk);
                        return List.of(new Range(start, budget));
                    }
                    break;
                }
                if (rangeStart >= 0) {
                    result = add(result, rangeStart, rangeEnd);
                }
                budget -= cost;
                rangeStart = start;
                rangeEnd = end;
            }
            markReturned(returned, chunk);
        }
        if (rangeStart >= 0) {
            result = add(result, rangeStart, rangeEnd);
        }
        return result == null ? List.of() : result;
    }

    private static List<Range> add(List<Range> result, long start, long end)
    {
        if (result == null) {
            result = new ArrayList<>(4);
        }
        result.add(new Range(start, end - start));
        return result;
    }

    private static void markReturned(BitSet returned, int chunk)
    {
        if (returned != null) {
            returned.set(chunk);
        }
    }

    // index of the same column's chunk in the next row group, -1 in the last row group
    private int nextRowGroupChunk(int index)
    {
        int rowGroup = rowGroupOf[index];
        if (rowGroup + 1 >= rowGroupCount) {
            return -1;
        }
        return indexOf[(rowGroup + 1) * columnCount + columnOf[index]];
    }

    // first chunk index whose end is after position (chunkCount when none)
    private int firstEndingAfter(long position)
    {
        int low = 0;
        int high = ends.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (ends[middle] > position) {
                high = middle;
            }
            else {
                low = middle + 1;
            }
        }
        return low;
    }

    // last chunk index whose start is before end (-1 when none)
    private int lastStartingBefore(long end)
    {
        int low = 0;
        int high = starts.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (starts[middle] < end) {
                low = middle + 1;
            }
            else {
                high = middle;
            }
        }
        return low - 1;
    }

    /**
     * Where the column chunk (ORC: the stripe) holding byte {@code position} of the file ends, or -1 when no chunk holds
     * it (the footer, column or offset indexes, bloom filters, the gaps between chunks).
     */
    long chunkEnd(long position)
    {
        int index = firstEndingAfter(position);
        return index < starts.length && starts[index] <= position ? ends[index] : -1;
    }

    int chunkCount()
    {
        return starts.length;
    }

    /**
     * Memory this layout holds, for the caller's accounting.
     */
    long retainedSizeInBytes()
    {
        long size = INSTANCE_SIZE + sizeOf(starts) + sizeOf(ends) + sizeOf(rowGroupOf) + sizeOf(columnOf) + sizeOf(indexOf);
        if (prefetchStarts != starts) {
            size += sizeOf(prefetchStarts) + sizeOf(prefetchEnds);
        }
        return size;
    }

    @Override
    public String toString()
    {
        return "RowGroupLayout{format=%s, fileLength=%s, rowGroups=%s, columns=%s}".formatted(format, fileLength, rowGroupCount, columnCount);
    }
}
