package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.local.LocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

class TestTimedRemoteFile
{
    @TempDir
    Path directory;

    @Test
    void reportsEachReadOfARangeWithItsBytes()
            throws IOException
    {
        byte[] data = new byte[100_000];
        new Random(1).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        RecordingCache cache = new RecordingCache();
        TrinoInputFile file = TimedRemoteFile.wrap(new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin")), cache);
        assertThat(file.length()).isEqualTo(data.length);

        try (TrinoInput input = file.newInput()) {
            byte[] buffer = new byte[1000];
            input.readFully(500, buffer, 0, 1000);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 500, 1500));
            assertThat(input.readTail(buffer, 0, 300)).isEqualTo(300);
            assertThat(input.readFully(0, 64).length()).isEqualTo(64);
            assertThat(input.readTail(10).length()).isEqualTo(10);
        }
        assertThat(cache.bytes).containsExactly(1000L, 300L, 64L, 10L);

        cache.bytes.clear();
        try (TrinoInputStream stream = file.newStream()) {
            stream.seek(2000);
            byte[] buffer = new byte[5000];
            assertThat(stream.readNBytes(buffer, 0, 5000)).isEqualTo(5000);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 2000, 7000));
            // a single read may be whatever one buffer held: not timed
            assertThat(stream.read()).isEqualTo(data[7000] & 0xFF);
            assertThat(stream.read(buffer, 0, 10)).isEqualTo(10);
            assertThat(stream.getPosition()).isEqualTo(7011);
        }
        assertThat(cache.bytes).containsExactly(5000L);
        assertThat(cache.nanos).allMatch(nanos -> nanos >= 0);
    }

    private static final class RecordingCache
            implements PageCache
    {
        private final List<Long> bytes = new ArrayList<>();
        private final List<Long> nanos = new ArrayList<>();

        @Override
        public void recordStorageRead(long bytes, long nanos)
        {
            this.bytes.add(bytes);
            this.nanos.add(nanos);
        }

        @Override
        public int pageSize()
        {
            return 4096;
        }

        @Override
        public int read(PageId pageId, int pageOffset, int length, byte[] target, int targetOffset)
        {
            return 0;
        }

        @Override
        public boolean contains(PageId pageId)
        {
            return false;
        }

        @Override
        public void recordAccess(PageId pageId) {}

        @Override
        public void write(String path, PageId pageId, ByteBuffer page, CacheReadContext context) {}

        @Override
        public void deleteFile(String fileId) {}

        @Override
        public void expire(String path) {}

        @Override
        public void invalidatePaths(Predicate<String> paths) {}

        @Override
        public void invalidateAll() {}

        @Override
        public void close() {}
    }
}
