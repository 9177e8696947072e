package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

class TestCachedFileRecord
{
    @Test
    void aRecordRoundTrips()
    {
        CachedFile file = new CachedFile("s3://bucket/warehouse/t/000000_0", Optional.of("s"), Optional.of("t"));
        assertThat(CachedFile.decode(file.encode())).contains(file);
        CachedFile noTable = new CachedFile("hdfs://nn:8020/f", Optional.empty(), Optional.empty());
        assertThat(CachedFile.decode(noTable.encode())).contains(noTable);
    }

    @Test
    void aRecordOfTheEarlierKeyIsNotRestored()
            throws IOException
    {
        // the earlier page ids hashed Trino's key alone (no bucket or host): intact records of that version are not
        // decoded, so the restore discards their pages as it discards pages with no record
        assertThat(CachedFile.VERSION).isEqualTo(2);
        byte[] earlier = record(1, "s3://bucket/warehouse/t/000000_0");
        assertThat(CachedFile.decode(earlier)).isEmpty();
        assertThat(CachedFile.decode(record(CachedFile.VERSION, "s3://bucket/warehouse/t/000000_0"))).isPresent();
    }

    @Test
    void aTornOrDamagedRecordIsNotDecoded()
    {
        byte[] record = new CachedFile("s3://bucket/f", Optional.of("s"), Optional.of("t")).encode();
        for (int length = 0; length < record.length; length++) {
            assertThat(CachedFile.decode(Arrays.copyOf(record, length))).as("cut to %s bytes", length).isEmpty();
        }
        for (int index = 0; index < record.length; index++) {
            byte[] damaged = record.clone();
            damaged[index] ^= 0x10;
            assertThat(CachedFile.decode(damaged)).as("byte %s flipped", index).isEmpty();
        }
    }

    // a record as a given version writes it: magic, version, path, no schema, no table, then the CRC32C of all that
    private static byte[] record(int version, String path)
            throws IOException
    {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(0x4F444649);
            out.writeInt(version);
            out.writeUTF(path);
            out.writeBoolean(false);
            out.writeBoolean(false);
        }
        byte[] body = bytes.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body);
        byte[] record = Arrays.copyOf(body, body.length + Integer.BYTES);
        ByteBuffer.wrap(record, body.length, Integer.BYTES).putInt((int) crc.getValue());
        return record;
    }
}
