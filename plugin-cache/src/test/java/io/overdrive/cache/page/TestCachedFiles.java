package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

class TestCachedFiles
{
    private static final int WRITERS = 4;
    private static final int WRITES = 1_500;
    private static final int FILES = 40;

    @TempDir
    Path directory;

    @Test
    void emptyingTheRecordsNeverFailsAWriteUnderWay()
            throws Exception
    {
        // a flush of the whole cache deletes every record while pages, and so their records, are being written: a write
        // must never fail for it (a failed write counts against the disk), and a record written after the last flush is
        // there to read
        CachedFiles records = new CachedFiles(directory);
        ExecutorService executor = Executors.newFixedThreadPool(WRITERS + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int thread = 0; thread < WRITERS; thread++) {
                long seed = thread;
                writers.add(executor.submit(() -> {
                    start.await();
                    Random random = new Random(seed);
                    for (int write = 0; write < WRITES; write++) {
                        String fileId = "file-" + random.nextInt(FILES);
                        records.write(fileId, record(fileId));
                    }
                    return null;
                }));
            }
            Future<Integer> flusher = executor.submit(() -> {
                start.await();
                int flushes = 0;
                while (!stop.get()) {
                    records.deleteAll();
                    flushes++;
                }
                return flushes;
            });
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get(2, MINUTES);
            }
            stop.set(true);
            assertThat(flusher.get(2, MINUTES)).isPositive();
        }
        finally {
            stop.set(true);
            executor.shutdownNow();
            assertThat(executor.awaitTermination(1, MINUTES)).isTrue();
        }

        // after the last flush: every record written reads back, and no temporary file is left behind
        for (int file = 0; file < FILES; file++) {
            String fileId = "file-" + file;
            records.write(fileId, record(fileId));
        }
        for (int file = 0; file < FILES; file++) {
            String fileId = "file-" + file;
            assertThat(records.peek(fileId)).contains(record(fileId));
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            assertThat(paths.map(Path::toString).filter(name -> name.endsWith(".tmp")).toList()).isEmpty();
        }
        records.deleteAll();
        assertThat(records.peek("file-0")).isEmpty();
    }

    private static CachedFile record(String fileId)
    {
        return new CachedFile("hdfs://nn:8020/warehouse/t/" + fileId, Optional.of("s"), Optional.of("t"));
    }
}
