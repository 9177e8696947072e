package io.overdrive.cache.page;

import java.nio.ByteBuffer;
import java.util.BitSet;
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
 * <p>
 * A page may be <em>partial</em>: a reader that needed only some bytes of it fetched only the chunks covering them
 * ({@link #encodePartial}), and later readers fill in more chunks. A chunk not fetched yet is stored as zeros with a
 * checksum that says so (the zeros' CRC32C xor {@link #ABSENT}); a read that needs it is a miss
 * ({@link #copyVerified} answers {@link #ABSENT_CHUNK}), never a damaged page. Any other mismatch is damage. A partial
 * page takes the same room on disk as a whole one, so that filling it in never changes its size in the cache.
 */
public final class PageFrame
{
    public static final int CHUNK_SIZE = 16 * 1024;
    static final int CHECKSUM_SIZE = 4;
    static final int TRAILER_SIZE = 12;
    // "ODP2"; frames of the earlier format end in "ODPG"
    private static final int MAGIC = 0x4F445032;
    private static final int CHUNK_FRAME_SIZE = CHUNK_SIZE + CHECKSUM_SIZE;
    // xor-ed into the checksum of a chunk not fetched yet: "ABSN"
    private static final int ABSENT = 0x4142534E;

    /** {@link #copyVerified}: every chunk verified, the bytes copied. */
    static final int VERIFIED = 1;
    /** {@link #copyVerified}: a chunk needed is not fetched yet (a partial page); nothing copied. */
    static final int ABSENT_CHUNK = 0;
    /** {@link #copyVerified}: a chunk failed its checksum, or the span is short; nothing copied. */
    static final int DAMAGED = -1;

    private PageFrame() {}

    /** The stored form of {@code page}: its remaining bytes in checksummed chunks, plus the trailer. */
    public static byte[] encode(ByteBuffer page)
    {
        ByteBuffer frame = ByteBuffer.allocate(frameLength(page.remaining()));
        encode(page, frame);
        return frame.array();
    }

    /**
     * Writes the stored form of {@code page} (its remaining bytes, which it keeps) into {@code frame} from its start, and
     * returns {@code frame} positioned at 0 and limited to the frame's length. {@code frame} (heap or direct) holds at
     * least {@link #frameLength} of the page's length: one copy of the page's bytes, checksummed where they land.
     */
    static ByteBuffer encode(ByteBuffer page, ByteBuffer frame)
    {
        int length = page.remaining();
        int source = page.position();
        prepare(frame, length);
        CRC32C crc = new CRC32C();
        for (int start = 0; start < length; start += CHUNK_SIZE) {
            int chunk = Math.min(CHUNK_SIZE, length - start);
            int at = chunkStart(start / CHUNK_SIZE);
            frame.put(at, page, source + start, chunk);
            crc.reset();
            crc.update(frame.limit(at + chunk).position(at));
            frame.limit(frame.capacity());
            frame.putInt(at + chunk, (int) crc.getValue());
        }
        return finish(frame, length);
    }

    /**
     * The stored form of a partial page of {@code pageLength} bytes holding only the chunks set in {@code present}, their
     * bytes at their place in {@code page} (which is at least {@code pageLength} long; what it holds elsewhere is
     * ignored). Every chunk of a whole page being present, this is {@link #encode}.
     */
    static byte[] encodePartial(byte[] page, int pageLength, BitSet present)
    {
        ByteBuffer frame = ByteBuffer.allocate(frameLength(pageLength));
        encodePartial(page, pageLength, present, frame);
        return frame.array();
    }

    /**
     * Writes the stored form of a partial page ({@link #encodePartial(byte[], int, BitSet)}) into {@code frame} as
     * {@link #encode(ByteBuffer, ByteBuffer)} does.
     */
    static ByteBuffer encodePartial(byte[] page, int pageLength, BitSet present, ByteBuffer frame)
    {
        prepare(frame, pageLength);
        CRC32C crc = new CRC32C();
        for (int chunk = 0; chunk < chunks(pageLength); chunk++) {
            int start = chunk * CHUNK_SIZE;
            int chunkLength = Math.min(CHUNK_SIZE, pageLength - start);
            int at = chunkStart(chunk);
            crc.reset();
            if (present.get(chunk)) {
                frame.put(at, page, start, chunkLength);
                crc.update(frame.limit(at + chunkLength).position(at));
                frame.limit(frame.capacity());
                frame.putInt(at + chunkLength, (int) crc.getValue());
            }
            else {
                // zeros: a reused buffer holds other bytes there
                fillZeros(frame, at, chunkLength);
                crc.update(frame.limit(at + chunkLength).position(at));
                frame.limit(frame.capacity());
                frame.putInt(at + chunkLength, (int) crc.getValue() ^ ABSENT);
            }
        }
        return finish(frame, pageLength);
    }

    private static final byte[] ZEROS = new byte[CHUNK_SIZE];

    private static void fillZeros(ByteBuffer frame, int at, int length)
    {
        frame.put(at, ZEROS, 0, length);
    }

    private static void prepare(ByteBuffer frame, int pageLength)
    {
        if (frame.capacity() < frameLength(pageLength)) {
            throw new IllegalArgumentException("A frame of %s bytes does not fit a buffer of %s".formatted(frameLength(pageLength), frame.capacity()));
        }
        frame.order(LITTLE_ENDIAN).clear();
    }

    private static ByteBuffer finish(ByteBuffer frame, int pageLength)
    {
        int trailer = frameLength(pageLength) - TRAILER_SIZE;
        frame.putInt(trailer, pageLength)
                .putInt(trailer + 4, CHUNK_SIZE)
                .putInt(trailer + 8, MAGIC);
        return frame.limit(trailer + TRAILER_SIZE).position(0);
    }

    /**
     * Reads an intact stored frame of a page of {@code pageLength} bytes into {@code page} (at least that long): the
     * chunks it holds are copied to their place and set in the answer; null when a chunk is damaged or the frame is not
     * one of this format and length.
     */
    static BitSet decodePartial(byte[] stored, int storedLength, int pageLength, byte[] page)
    {
        if (verify(stored, storedLength) != pageLength) {
            return null;
        }
        BitSet present = new BitSet();
        ByteBuffer view = ByteBuffer.wrap(stored).order(LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        for (int chunk = 0; chunk < chunks(pageLength); chunk++) {
            int at = chunkStart(chunk);
            int chunkLength = Math.min(CHUNK_SIZE, pageLength - chunk * CHUNK_SIZE);
            crc.reset();
            crc.update(stored, at, chunkLength);
            if ((int) crc.getValue() == view.getInt(at + chunkLength)) {
                System.arraycopy(stored, at, page, chunk * CHUNK_SIZE, chunkLength);
                present.set(chunk);
            }
        }
        return present;
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
     * {@code pageOffset} (which those chunks cover) into {@code target}: {@link #VERIFIED}. Having copied nothing:
     * {@link #DAMAGED} when a chunk fails its checksum (or the span is short), else {@link #ABSENT_CHUNK} when a chunk
     * is not fetched yet.
     */
    static int copyVerified(ByteBuffer span, int pageLength, int firstChunk, int pageOffset, int length, byte[] target, int targetOffset)
    {
        int base = span.position();
        int spanLength = span.remaining();
        // absolute positions in a view of its own: the caller's buffer is left as it is
        ByteBuffer view = span.duplicate().order(LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        int spanStart = chunkStart(firstChunk);
        boolean absent = false;
        for (int chunk = firstChunk; chunkStart(chunk) - spanStart < spanLength; chunk++) {
            int at = base + chunkStart(chunk) - spanStart;
            int chunkLength = Math.min(CHUNK_SIZE, pageLength - chunk * CHUNK_SIZE);
            if (chunkLength <= 0 || at + chunkLength + CHECKSUM_SIZE > base + spanLength) {
                return DAMAGED;
            }
            view.limit(at + chunkLength).position(at);
            crc.reset();
            crc.update(view);
            view.limit(base + spanLength);
            int stored = view.getInt(at + chunkLength);
            int computed = (int) crc.getValue();
            if (stored == (computed ^ ABSENT)) {
                // every chunk is still checked: damage anywhere in the span drops the page
                absent = true;
            }
            else if (stored != computed) {
                return DAMAGED;
            }
        }
        if (absent) {
            return ABSENT_CHUNK;
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
        return VERIFIED;
    }

    /**
     * Length of the page held in the first {@code storedLength} bytes of {@code stored}, or -1 when they are not a
     * complete, intact frame of this format (that of a partial page is intact).
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
        // a partial page is intact: its chunks not fetched yet say so
        return copyVerified(chunks, recordedLength, 0, 0, 0, stored, 0) != DAMAGED ? recordedLength : -1;
    }

    /** The page held in a stored frame, or null when it is not an intact frame of a whole page. */
    static byte[] decode(byte[] stored, int storedLength)
    {
        int length = verify(stored, storedLength);
        if (length < 0) {
            return null;
        }
        byte[] page = new byte[length];
        if (length > 0 && copyVerified(ByteBuffer.wrap(stored, 0, storedLength - TRAILER_SIZE), length, 0, 0, length, page, 0) != VERIFIED) {
            return null;
        }
        return page;
    }
}
