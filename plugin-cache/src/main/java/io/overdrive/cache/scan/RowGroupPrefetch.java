package io.overdrive.cache.scan;

import io.overdrive.cache.scan.RowGroupLayout.Range;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The row-group prefetch plan of one opened Parquet or ORC file: each read of column chunks of row group {@code k}
 * yields the chunks of the same columns in row group {@code k + 1} ({@link RowGroupLayout#nextRowGroupRanges}; ORC:
 * the next stripe, or its footer), each chunk at most once for the life of this object, so the many reads of one
 * chunk (Trino reads chunks larger than its buffer in pieces) and re-reads ask for one prefetch only.
 * <p>
 * Why per opened file: the reader reads the footer once per opened input ({@code readTail}); the plan built from
 * those bytes lives as long as that input. Cheap per read: two binary searches over the sorted chunk starts, no
 * allocation but the result. Thread-safe.
 */
final class RowGroupPrefetch
{
    /**
     * Chunks of the next row group closer than this are fetched as one range, gap included, as Trino's Parquet
     * reader merges its own reads ({@code parquet.max-merge-distance}, 1MB by default, for chunks up to
     * {@code parquet.max-buffer-size}, 8MB).
     */
    static final long DEFAULT_MAX_MERGE_GAP = 1024 * 1024;

    private final RowGroupLayout layout;
    private final long maxMergeGap;
    private final BitSet returned;

    RowGroupPrefetch(RowGroupLayout layout, long maxMergeGap)
    {
        this.layout = requireNonNull(layout, "layout is null");
        checkArgument(maxMergeGap >= 0, "maxMergeGap is negative: %s", maxMergeGap);
        this.maxMergeGap = maxMergeGap;
        this.returned = new BitSet(layout.chunkCount());
    }

    /**
     * The plan for a file whose tail the reader just read ({@code tail[offset, offset + length)} being the last
     * {@code length} bytes of the file), or empty when that tail holds no whole Parquet footer (see
     * {@link RowGroupLayout#parse}). Never throws on any content of {@code tail}.
     */
    static Optional<RowGroupPrefetch> fromTail(long fileLength, byte[] tail, int offset, int length, long maxMergeGap)
    {
        return fromTail(fileLength, tail, offset, length, maxMergeGap, RowGroupLayout.DEFAULT_ORC_TINY_STRIPE_THRESHOLD);
    }

    /**
     * As {@link #fromTail(long, byte[], int, int, long)}, with the reader's ORC tiny stripe threshold.
     */
    static Optional<RowGroupPrefetch> fromTail(long fileLength, byte[] tail, int offset, int length, long maxMergeGap, long orcTinyStripeThreshold)
    {
        return RowGroupLayout.parse(fileLength, tail, offset, length, orcTinyStripeThreshold)
                .map(layout -> new RowGroupPrefetch(layout, maxMergeGap));
    }

    RowGroupLayout layout()
    {
        return layout;
    }

    /**
     * The ranges to prefetch after the reader read {@code [position, position + length)}: the chunks in the next row
     * group of the columns whose chunks this read touches, minus the chunks an earlier call returned and the bytes of
     * this read, in file order, merged when closer than the merge gap, at most {@code maxBytes} in all (gaps
     * included). A chunk that does not fit stops the plan and stays for a later read; the first chunk, when alone
     * larger than {@code maxBytes}, is returned cut to its first {@code maxBytes} (where the reader starts) and counts
     * as returned. Empty when the read touches no column chunk (footer, column or offset indexes, bloom filters),
     * only chunks of the last row group, or only chunks whose next one was returned already.
     */
    synchronized List<Range> onRead(long position, long length, long maxBytes)
    {
        return layout.plan(position, length, maxMergeGap, maxBytes, returned);
    }
}
