package io.overdrive.cache.page;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * How a page is stored on disk: its bytes followed by a 12-byte trailer (CRC32C of the bytes, their length, a magic
 * number). A page cut short by a crash, a torn write or flipped bits fails {@link #verify} when the cache restores it
 * after a restart, and is never served.
 */
public final class PageFrame
{
    public static final int TRAILER_SIZE = 12;
    private static final int MAGIC = 0x4F445047; // "ODPG"

    private PageFrame() {}

    /** The stored form of {@code page}: its remaining bytes plus the trailer. */
    public static byte[] encode(ByteBuffer page)
    {
        ByteBuffer source = page.duplicate();
        int length = source.remaining();
        byte[] framed = new byte[length + TRAILER_SIZE];
        source.get(framed, 0, length);
        CRC32C crc = new CRC32C();
        crc.update(framed, 0, length);
        ByteBuffer.wrap(framed, length, TRAILER_SIZE).order(LITTLE_ENDIAN)
                .putInt((int) crc.getValue())
                .putInt(length)
                .putInt(MAGIC);
        return framed;
    }

    /** Length of the page held in a stored frame of {@code frameLength} bytes. */
    public static int pageLength(long frameLength)
    {
        return Math.toIntExact(frameLength - TRAILER_SIZE);
    }

    /**
     * Length of the page held in the first {@code storedLength} bytes of {@code stored}, or -1 when they are not a
     * complete, intact frame.
     */
    public static int verify(byte[] stored, int storedLength)
    {
        if (storedLength < TRAILER_SIZE) {
            return -1;
        }
        int length = storedLength - TRAILER_SIZE;
        ByteBuffer trailer = ByteBuffer.wrap(stored, length, TRAILER_SIZE).order(LITTLE_ENDIAN);
        int checksum = trailer.getInt();
        int recordedLength = trailer.getInt();
        int magic = trailer.getInt();
        if (magic != MAGIC || recordedLength != length) {
            return -1;
        }
        CRC32C crc = new CRC32C();
        crc.update(stored, 0, length);
        return (int) crc.getValue() == checksum ? length : -1;
    }
}
