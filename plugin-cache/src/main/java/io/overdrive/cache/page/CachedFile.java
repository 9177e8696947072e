package io.overdrive.cache.page;

import com.google.common.annotations.VisibleForTesting;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.zip.CRC32C;

import static java.util.Objects.requireNonNull;

/**
 * What a restarted worker must know about a cached file that its page ids do not say: the data file's path (for
 * {@code flush_cache} by schema, table or path) and the table it was read for (for quotas). Stored beside the pages,
 * one small record per cached file ({@link CachedFiles}), with a checksum: a torn record is detected, never trusted.
 */
record CachedFile(String path, Optional<String> schema, Optional<String> table)
{
    private static final int MAGIC = 0x4F444649; // "ODFI"
    // 2: page ids hash the file's store (scheme, bucket or host) with Trino's cache key; a restart discards the pages of
    // version 1 records, whose ids hashed the key alone and could be shared by the same path in two buckets
    @VisibleForTesting
    static final int VERSION = 2;

    CachedFile
    {
        requireNonNull(path, "path is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
    }

    static CachedFile of(String path, CacheReadContext context)
    {
        return new CachedFile(path, context.schema(), context.table());
    }

    /** The read context its pages were cached under, for scoping them as a new write of the same read would be. */
    CacheReadContext context()
    {
        return new CacheReadContext(schema, table, true);
    }

    byte[] encode()
    {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + path.length());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(path);
            writeOptional(out, schema);
            writeOptional(out, table);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] body = bytes.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body);
        byte[] record = Arrays.copyOf(body, body.length + Integer.BYTES);
        ByteBuffer.wrap(record, body.length, Integer.BYTES).putInt((int) crc.getValue());
        return record;
    }

    /** The record stored in {@code bytes}, or empty when they are not a complete, intact record of this version. */
    static Optional<CachedFile> decode(byte[] bytes)
    {
        if (bytes.length < 2 * Integer.BYTES + Integer.BYTES) {
            return Optional.empty();
        }
        int bodyLength = bytes.length - Integer.BYTES;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bodyLength);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, bodyLength, Integer.BYTES).getInt()) {
            return Optional.empty();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bodyLength))) {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                return Optional.empty();
            }
            CachedFile file = new CachedFile(in.readUTF(), readOptional(in), readOptional(in));
            return in.available() == 0 ? Optional.of(file) : Optional.empty();
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void writeOptional(DataOutputStream out, Optional<String> value)
            throws IOException
    {
        out.writeBoolean(value.isPresent());
        if (value.isPresent()) {
            out.writeUTF(value.get());
        }
    }

    private static Optional<String> readOptional(DataInputStream in)
            throws IOException
    {
        return in.readBoolean() ? Optional.of(in.readUTF()) : Optional.empty();
    }
}
