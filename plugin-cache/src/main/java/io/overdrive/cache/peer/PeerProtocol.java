package io.overdrive.cache.peer;

import io.overdrive.cache.page.PageFrame;

import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The peer service's one request, over HTTP: {@code GET /v1/overdrive/pages?file=F&pageSize=P&start=S&length=L} asks for
 * {@code L} bytes from offset {@code S} of the file whose cache key is {@code F} (path, length and modification time or
 * version: another version of the file is another key), as cached in pages of {@code P} bytes. The answer (200) is the
 * CRC32C of each {@link PageFrame#CHUNK_SIZE} chunk of the bytes (4 bytes each, big-endian), then the bytes; 404 when
 * the peer does not hold all of them, 401 when the request is not signed with the catalog's secret, 400 for a request
 * it cannot serve (another page size, too long), 503 when busy. A 404 whose missing pages the peer is reading from
 * storage right now says so ({@link #FETCHING_HEADER}); the asker may then ask again with {@code &wait=W}, and the peer
 * waits at most {@code W} milliseconds for that read before it answers.
 * <p>
 * The coordinator's placer asks every worker {@code GET /v1/overdrive/load}, signed the same way: the answer (200,
 * text) is the worker's leaf splits started and not finished, a space, and the splits it has finished
 * ({@link WorkerLoadSample}); 404 when the worker cannot tell.
 */
final class PeerProtocol
{
    static final String PATH = "/v1/overdrive/pages";
    static final String LOAD_PATH = "/v1/overdrive/load";
    static final String CONTENT_TYPE = "application/x-overdrive-pages";
    static final String FETCHING_HEADER = "X-Overdrive-Fetching";
    // the longest wait a request may ask for
    static final long MAX_WAIT_MILLIS = 60_000;

    private PeerProtocol() {}

    static String pathAndQuery(String fileId, int pageSize, long start, int length)
    {
        return PATH + "?file=" + URLEncoder.encode(fileId, UTF_8) + "&pageSize=" + pageSize + "&start=" + start + "&length=" + length;
    }

    /** A request that lets the peer wait at most {@code waitMillis} for its storage read of the bytes in flight. */
    static String pathAndQuery(String fileId, int pageSize, long start, int length, long waitMillis)
    {
        return pathAndQuery(fileId, pageSize, start, length) + "&wait=" + waitMillis;
    }

    static int chunks(int length)
    {
        return (length + PageFrame.CHUNK_SIZE - 1) / PageFrame.CHUNK_SIZE;
    }

    /** The checksums the answer carries before {@code length} bytes of {@code data} from {@code offset}. */
    static byte[] checksums(byte[] data, int offset, int length)
    {
        ByteBuffer checksums = ByteBuffer.allocate(chunks(length) * Integer.BYTES);
        CRC32C crc = new CRC32C();
        for (int chunk = 0; chunk < length; chunk += PageFrame.CHUNK_SIZE) {
            crc.reset();
            crc.update(data, offset + chunk, Math.min(PageFrame.CHUNK_SIZE, length - chunk));
            checksums.putInt((int) crc.getValue());
        }
        return checksums.array();
    }

    /** Whether {@code length} bytes of {@code data} from {@code offset} match the checksums of the answer. */
    static boolean verify(byte[] checksums, byte[] data, int offset, int length)
    {
        if (checksums.length != chunks(length) * Integer.BYTES) {
            return false;
        }
        ByteBuffer expected = ByteBuffer.wrap(checksums);
        CRC32C crc = new CRC32C();
        for (int chunk = 0; chunk < length; chunk += PageFrame.CHUNK_SIZE) {
            crc.reset();
            crc.update(data, offset + chunk, Math.min(PageFrame.CHUNK_SIZE, length - chunk));
            if ((int) crc.getValue() != expected.getInt()) {
                return false;
            }
        }
        return true;
    }
}
