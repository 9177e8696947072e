package io.overdrive.cache.page;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * How a page is stored on disk: its bytes in chunks of {@link #CHUNK_SIZE}, each chunk followed by its CRC32C, then a
 * 12-byte trailer (the page's length, the chunk size, a magic number):
 * <pre>
 * [chunk 0][crc 0][chunk 1][crc 1]...[last chunk, maybe shorter][its crc][length][chunk size][magic]
 * </pre>
 * A hit reads the chunks covering the bytes asked for, with their checksums in the same read, and serves only chunks
 * that verify ({@link #copyVerified}); the restore after a restart verifies every chunk and the trailer
 * ({@link #verify}). A page cut short by a crash, a torn write or flipped bits is never served.
 * <p>
 * Why 16 KiB chunks: a hit of a few bytes reads and checksums at most two chunks (32 KiB, about a microsecond more
 * than the bytes themselves), while the checksums add 4 bytes per chunk (256 bytes, 0.025%, to a 1 MiB page) and a
 * whole-page hit makes 64 checksum calls, whose fixed cost is negligible next to CRC32C's throughput. 16 KiB also keeps
 * the offset of the last chunk of the largest page (64 MiB) within the page size, which Alluxio requires of a read's
 * offset. Pages of the earlier format (one checksum for the whole page, another magic number) fail {@link #verify}.
 */
public final class PageFrame
{
    public static final int CHUNK_SIZE = 16 * 1024;
    static final int CHECKSUM_SIZE = 4;
    static final int TRAILER_SIZE = 12;
    // "ODP2"; frames of the earlier format end in "ODPG"
    private static final int MAGIC = 0x4F445032;
    private static final int CHUNK_FRAME_SIZE = CHUNK_SIZE + CHECKSUM_SIZE;

    private PageFrame() {}

    /** The stored form of {@code page}: its remaining bytes in checksummed chunks, plus the trailer. */
    public static byte[] encode(ByteBuffer page)
    {
        ByteBuffer source = page.duplicate();
        int length = source.remaining();
        byte[] framed = new byte[frameLength(length)];
        ByteBuffer frame = ByteBuffer.wrap(framed).order(LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        for (int start = 0; start < length; start += CHUNK_SIZE) {
            int chunk = Math.min(CHUNK_SIZE, length - start);
            int at = frame.position();
            source.get(framed, at, chunk);
            crc.reset();
            crc.update(framed, at, chunk);
            frame.position(at + chunk);
            frame.putInt((int) crc.getValue());
        }
        frame.putInt(length)
                .putInt(CHUNK_SIZE)
                .putInt(MAGIC);
        return framed;
    }

    /** Bytes a page of {@code pageLength} bytes takes on disk. */
    public static int frameLength(int pageLength)
    {
        return pageLength + chunks(pageLength) * CHECKSUM_SIZE + TRAILER_SIZE;
    }

    /** Length of the page held in a stored frame of {@code frameLength} bytes (the inverse of {@link #frameLength}). */
    public static int pageLength(long frameLength)
    {
        long body = frameLength - TRAILER_SIZE;
        if (body <= 0) {
            return 0;
        }
        long chunks = (body + CHUNK_FRAME_SIZE - 1) / CHUNK_FRAME_SIZE;
        return Math.toIntExact(Math.max(0, body - chunks * CHECKSUM_SIZE));
    }

    static int chunks(int pageLength)
    {
        return (pageLength + CHUNK_SIZE - 1) / CHUNK_SIZE;
    }

    /** Where chunk {@code chunk} starts in the frame. */
    static int chunkStart(int chunk)
    {
        return chunk * CHUNK_FRAME_SIZE;
    }

    /** Where the checksum of chunk {@code chunk} (of a page of {@code pageLength} bytes) ends in the frame. */
    static int chunkEnd(int pageLength, int chunk)
    {
        return chunkStart(chunk) + Math.min(CHUNK_SIZE, pageLength - chunk * CHUNK_SIZE) + CHECKSUM_SIZE;
    }

    /**
     * Verifies the chunks held in {@code span} from its position to its limit, read from the frame of a page of
     * {@code pageLength} bytes starting at chunk {@code firstChunk}, and copies {@code length} bytes of the page from
     * {@code pageOffset} (which those chunks cover) into {@code target}. False, having copied nothing, when a chunk
     * fails its checksum.
     */
    static boolean copyVerified(ByteBuffer span, int pageLength, int firstChunk, int pageOffset, int length, byte[] target, int targetOffset)
    {
        int base = span.position();
        int spanLength = span.remaining();
        // absolute positions in a view of its own: the caller's buffer is left as it is
        ByteBuffer view = span.duplicate().order(LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        int spanStart = chunkStart(firstChunk);
        for (int chunk = firstChunk; chunkStart(chunk) - spanStart < spanLength; chunk++) {
            int at = base + chunkStart(chunk) - spanStart;
            int chunkLength = Math.min(CHUNK_SIZE, pageLength - chunk * CHUNK_SIZE);
            if (chunkLength <= 0 || at + chunkLength + CHECKSUM_SIZE > base + spanLength) {
                return false;
            }
            view.limit(at + chunkLength).position(at);
            crc.reset();
            crc.update(view);
            view.limit(base + spanLength);
            if ((int) crc.getValue() != view.getInt(at + chunkLength)) {
                return false;
            }
        }
        int copied = 0;
        while (copied < length) {
            int offset = pageOffset + copied;
            int chunk = offset / CHUNK_SIZE;
            int inChunk = offset - chunk * CHUNK_SIZE;
            int bytes = Math.min(length - copied, Math.min(CHUNK_SIZE, pageLength - chunk * CHUNK_SIZE) - inChunk);
            span.get(base + chunkStart(chunk) - spanStart + inChunk, target, targetOffset + copied, bytes);
            copied += bytes;
        }
        return true;
    }

    /**
     * Length of the page held in the first {@code storedLength} bytes of {@code stored}, or -1 when they are not a
     * complete, intact frame of this format.
     */
    public static int verify(byte[] stored, int storedLength)
    {
        if (storedLength < TRAILER_SIZE || storedLength > stored.length) {
            return -1;
        }
        ByteBuffer trailer = ByteBuffer.wrap(stored, storedLength - TRAILER_SIZE, TRAILER_SIZE).order(LITTLE_ENDIAN);
        int recordedLength = trailer.getInt();
        int chunkSize = trailer.getInt();
        int magic = trailer.getInt();
        if (magic != MAGIC || chunkSize != CHUNK_SIZE || recordedLength < 0 || recordedLength > storedLength || frameLength(recordedLength) != storedLength) {
            return -1;
        }
        ByteBuffer chunks = ByteBuffer.wrap(stored, 0, storedLength - TRAILER_SIZE);
        return copyVerified(chunks, recordedLength, 0, 0, 0, stored, 0) ? recordedLength : -1;
    }

    /** The page held in a stored frame, or null when it is not an intact frame. */
    static byte[] decode(byte[] stored, int storedLength)
    {
        int length = verify(stored, storedLength);
        if (length < 0) {
            return null;
        }
        byte[] page = new byte[length];
        if (length > 0 && !copyVerified(ByteBuffer.wrap(stored, 0, storedLength - TRAILER_SIZE), length, 0, 0, length, page, 0)) {
            return null;
        }
        return page;
    }
}
