package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.slice.Slice;
import io.overdrive.cache.session.QueryReadStats;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.local.LocalFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * {@link HedgingInput} through {@link HedgedReads#wrap}, over a real local file with faults injected below it: slow
 * or failing reads of chosen inputs. Every read is checked against the file's bytes, and every input opened is
 * checked to be closed exactly once, never read after it was closed, and never read by two threads at once.
 */
@Timeout(60)
class TestHedgingInput
{
    private static final int FILE_SIZE = 3 * 1024 * 1024;
    private static final int MAX_READ = 256 * 1024;
    private static final long THRESHOLD_MILLIS = 20;

    @TempDir
    Path directory;

    private byte[] data;
    private TrinoInputFile localFile;
    private FaultyInputFile faultyFile;
    private ThreadPoolExecutor pool;
    private HedgedReadStats stats;
    private HedgedReads hedgedReads;

    @BeforeEach
    void setUp()
            throws IOException
    {
        data = new byte[FILE_SIZE];
        new Random(42).nextBytes(data);
        Files.write(directory.resolve("data.bin"), data);
        localFile = new LocalFileSystem(directory).newInputFile(Location.of("local:///data.bin"));
        faultyFile = new FaultyInputFile(localFile);
        pool = new ThreadPoolExecutor(0, 4, 60, SECONDS, new SynchronousQueue<>(), daemonThreadsNamed("test-hedged-read-%s"));
        stats = new HedgedReadStats();
        HedgedReadConfig config = new HedgedReadConfig()
                .setThreadPoolSize(4)
                .setThreshold(THRESHOLD_MILLIS + "ms")
                .setMaxRatio(1)
                .setMode("WRAPPER");
        hedgedReads = new HedgedReads(config, false, stats, pool, Ticker.systemTicker());
    }

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        hedgedReads.shutdown();
        assertThat(pool.awaitTermination(10, SECONDS)).isTrue();
    }

    @Test
    void wrapsPositionalReadsOnly()
            throws IOException
    {
        TrinoInputFile wrapped = hedgedReads.wrap(faultyFile);
        assertThat(wrapped).isInstanceOf(HedgingInputFile.class);
        assertThat(wrapped.location()).isEqualTo(localFile.location());
        assertThat(wrapped.length()).isEqualTo(FILE_SIZE);
        assertThat(wrapped.exists()).isTrue();
        try (TrinoInputStream stream = wrapped.newStream()) {
            assertThat(stream.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
        }
        assertThat(stats.getThresholds()).isEqualTo("local://=20.0ms");
    }

    // a query whose session sets hedged_reads_enabled=false: the wrapper leaves its files alone, however slow
    @Test
    void sessionWithoutHedgingIsNeverHedged()
            throws Exception
    {
        faultyFile.randomDelays(new Random(6), 0.5, 60);
        TrinoInputFile unhedged = hedgedReads.wrap(faultyFile, false, QueryReadStats.UNTRACKED);
        assertThat(unhedged).isSameAs(faultyFile);
        Random random = new Random(7);
        try (TrinoInput input = unhedged.newInput()) {
            for (int read = 0; read < 40; read++) {
                randomRead(input, random);
            }
        }
        assertThat(stats.getFilesNotHedgedBySession()).isEqualTo(1);
        assertThat(stats.getReads()).isZero();
        assertThat(stats.getHedgedReadOps()).isZero();
        assertThat(faultyFile.inputs).hasSize(1);
        assertNoInputLeaked();
    }

    // under HDFS's own hedging, which hedges every positional read, a query without hedging reads statefully
    @Test
    void sessionWithoutHedgingReadsHdfsStatefully()
            throws Exception
    {
        HedgedReads nativeHdfs = new HedgedReads(new HedgedReadConfig().setThreadPoolSize(4).setThreshold("20ms"), true, stats, pool, Ticker.systemTicker());
        TrinoInputFile hdfsFile = new LocationInputFile(localFile, Location.of("hdfs://namenode:8020/data.bin"));
        assertThat(nativeHdfs.wrap(hdfsFile)).isInstanceOf(PositionalReadInputFile.class);
        TrinoInputFile unhedged = nativeHdfs.wrap(hdfsFile, false, QueryReadStats.UNTRACKED);
        assertThat(unhedged).isInstanceOf(StatefulReadInputFile.class);
        assertThat(stats.getFilesNotHedgedBySession()).isEqualTo(1);
        Random random = new Random(8);
        try (TrinoInput input = unhedged.newInput()) {
            for (int read = 0; read < 200; read++) {
                randomRead(input, random);
            }
            // past the end, or before the start: refused, and the input still reads
            assertThatThrownBy(() -> input.readFully(FILE_SIZE - 10, new byte[20], 0, 20)).isInstanceOf(java.io.EOFException.class);
            assertThatThrownBy(() -> input.readFully(-1, new byte[20], 0, 20)).isInstanceOf(java.io.EOFException.class);
            randomRead(input, random);
        }
        // a file of the same catalog on other storage is not HDFS's to hedge: left alone
        assertThat(nativeHdfs.wrap(localFile, false, QueryReadStats.UNTRACKED)).isSameAs(localFile);
        nativeHdfs.shutdown();
    }

    @Test
    void randomReadsReturnTheFileBytes()
            throws Exception
    {
        Random random = new Random(1);
        int reads = 300;
        try (TrinoInput input = hedgedReads.wrap(faultyFile).newInput()) {
            for (int read = 0; read < reads; read++) {
                randomRead(input, random);
            }
        }
        assertThat(stats.getReads()).isEqualTo(reads);
        assertThat(stats.getReadFailures().getTotalCount()).isZero();
        assertNoInputLeaked();
    }

    @Test
    void randomReadsOfRandomlySlowInputsAreHedgedAndExact()
            throws Exception
    {
        // three reads in ten wait up to 60ms, on the primary's input, the hedge's, or both: either may win
        faultyFile.randomDelays(new Random(2), 0.3, 60);
        Random random = new Random(3);
        int reads = 150;
        try (TrinoInput input = hedgedReads.wrap(faultyFile).newInput()) {
            for (int read = 0; read < reads; read++) {
                randomRead(input, random);
            }
        }
        assertThat(stats.getReads()).isEqualTo(reads);
        assertThat(stats.getHedgedReadOps()).isPositive();
        assertThat(stats.getHedgedReadOpsWin()).isPositive();
        assertThat(stats.getReadFailures().getTotalCount()).isZero();
        // each hedge that ran opened an input of its own (one abandoned before it started opened none)
        assertThat(faultyFile.inputs).hasSizeBetween(2, 1 + (int) stats.getHedgedReadOps());
        assertNoInputLeaked();
    }

    @Test
    void slowFirstInputLosesToTheHedge()
            throws Exception
    {
        // far longer than any stall of a loaded machine: returning well before it proves the caller did not wait for the
        // slow input (which is interrupted, so the test does not wait for it either)
        faultyFile.firstInputDelayMillis = 120_000;
        Random random = new Random(4);
        try (TrinoInput input = hedgedReads.wrap(faultyFile).newInput()) {
            long start = System.nanoTime();
            byte[] buffer = new byte[MAX_READ];
            input.readFully(1000, buffer, 0, MAX_READ);
            assertThat(NANOSECONDS.toMillis(System.nanoTime() - start)).as("the hedge's bytes, without waiting for the slow input").isLessThan(60_000);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 1000, 1000 + MAX_READ));
            assertThat(stats.getHedgedReadOps()).isEqualTo(1);
            assertThat(stats.getHedgedReadOpsWin()).isEqualTo(1);

            // the slow input is interrupted and closed once its read stops; the hedge's input serves the next reads
            FaultyInput slow = faultyFile.inputs.getFirst();
            awaitClosed(slow);
            assertThat(slow.failures.get()).isEqualTo(1);
            for (int read = 0; read < 50; read++) {
                randomRead(input, random);
            }
            assertThat(slow.reads.get()).isEqualTo(1);
            assertThat(faultyFile.inputs.get(1).reads.get()).isPositive();
        }
        assertNoInputLeaked();
    }

    @Test
    void readFailingOnBothAttemptsDoesNotBreakTheInput()
            throws Exception
    {
        Random random = new Random(5);
        try (TrinoInput input = hedgedReads.wrap(faultyFile).newInput()) {
            // each read waits until another is under way, then fails: the hedge runs, and fails too
            faultyFile.failTogether = new CountDownLatch(2);
            faultyFile.failing = true;
            assertThatThrownBy(() -> input.readFully(0, new byte[100], 0, 100))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("injected failure")
                    // the hedge's failure, on an input of its own
                    .satisfies(failure -> assertThat(failure.getSuppressed()).singleElement()
                            .satisfies(suppressed -> assertThat(suppressed.getMessage()).contains("injected failure").isNotEqualTo(failure.getMessage())));
            assertThat(stats.getBothFailed()).isEqualTo(1);
            assertThat(stats.getHedgedReadOps()).isEqualTo(1);
            assertThat(stats.getReadFailures().getTotalCount()).isEqualTo(1);

            faultyFile.failTogether = null;
            faultyFile.failing = false;
            for (int read = 0; read < 20; read++) {
                randomRead(input, random);
            }

            // failing at once, before the threshold: the read fails
            faultyFile.failing = true;
            assertThatThrownBy(() -> input.readTail(10))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("injected failure");
            faultyFile.failing = false;
            for (int read = 0; read < 20; read++) {
                randomRead(input, random);
            }
            assertThat(stats.getReadFailures().getTotalCount()).isEqualTo(2);
        }
        assertNoInputLeaked();
    }

    @Test
    void readPastTheEndFailsAsTheUnwrappedInput()
            throws Exception
    {
        try (TrinoInput unwrapped = localFile.newInput(); TrinoInput input = hedgedReads.wrap(faultyFile).newInput()) {
            long[][] cases = {{FILE_SIZE - 10, 20}, {FILE_SIZE, 1}, {FILE_SIZE + 100, 10}};
            for (long[] positionAndLength : cases) {
                long position = positionAndLength[0];
                int length = (int) positionAndLength[1];
                // Trino's local input reports the end of the file as an IOException caused by an EOFException
                Throwable expected = failureOf(() -> unwrapped.readFully(position, new byte[length], 0, length));
                assertThat(expected).isInstanceOf(IOException.class).hasRootCauseInstanceOf(EOFException.class);
                assertSameFailure(failureOf(() -> input.readFully(position, new byte[length], 0, length)), expected);
                assertSameFailure(failureOf(() -> input.readFully(position, length)), expected);
                // and the input still reads
                assertThat(input.readFully(FILE_SIZE - 10, 10).getBytes()).isEqualTo(Arrays.copyOfRange(data, FILE_SIZE - 10, FILE_SIZE));
            }
            // a tail longer than the file is the whole file, as unwrapped
            byte[] buffer = new byte[FILE_SIZE + 100];
            assertThat(input.readTail(buffer, 0, FILE_SIZE + 100)).isEqualTo(unwrapped.readTail(new byte[FILE_SIZE + 100], 0, FILE_SIZE + 100)).isEqualTo(FILE_SIZE);
            assertThat(Arrays.copyOf(buffer, FILE_SIZE)).isEqualTo(data);
            assertThat(input.readTail(FILE_SIZE + 1).getBytes()).isEqualTo(data);
            assertThat(input.readFully(0, 0).length()).isZero();
        }
        assertThat(stats.getReadFailures().getTotalCount()).isEqualTo(6);
        assertNoInputLeaked();
    }

    private void randomRead(TrinoInput input, Random random)
            throws IOException
    {
        int length = random.nextInt(MAX_READ + 1);
        long position = random.nextLong(FILE_SIZE - length + 1);
        switch (random.nextInt(4)) {
            case 0 -> {
                // into the middle of a larger buffer: the bytes around it stay as they were
                int offset = random.nextInt(100);
                byte[] buffer = new byte[offset + length + 100];
                Arrays.fill(buffer, (byte) 0x5A);
                input.readFully(position, buffer, offset, length);
                assertThat(Arrays.copyOfRange(buffer, offset, offset + length)).isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + length));
                assertUntouched(buffer, 0, offset);
                assertUntouched(buffer, offset + length, buffer.length);
            }
            case 1 -> {
                Slice slice = input.readFully(position, length);
                assertThat(slice.getBytes()).isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + length));
            }
            case 2 -> {
                int maxLength = random.nextInt(20) == 0 ? FILE_SIZE + random.nextInt(1000) : length;
                int offset = random.nextInt(100);
                byte[] buffer = new byte[offset + maxLength];
                Arrays.fill(buffer, (byte) 0x5A);
                int read = input.readTail(buffer, offset, maxLength);
                assertThat(read).isEqualTo(Math.min(maxLength, FILE_SIZE));
                assertThat(Arrays.copyOfRange(buffer, offset, offset + read)).isEqualTo(Arrays.copyOfRange(data, FILE_SIZE - read, FILE_SIZE));
                assertUntouched(buffer, 0, offset);
                assertUntouched(buffer, offset + read, buffer.length);
            }
            default -> {
                Slice slice = input.readTail(length);
                assertThat(slice.getBytes()).isEqualTo(Arrays.copyOfRange(data, FILE_SIZE - length, FILE_SIZE));
            }
        }
    }

    private static void assertUntouched(byte[] buffer, int from, int to)
    {
        for (int index = from; index < to; index++) {
            if (buffer[index] != 0x5A) {
                fail("byte %s of the buffer, outside the range read, was written", index);
            }
        }
    }

    private static Throwable failureOf(Read read)
    {
        try {
            read.run();
        }
        catch (Throwable t) {
            return t;
        }
        return fail("no failure");
    }

    private static void assertSameFailure(Throwable actual, Throwable expected)
    {
        assertThat(actual).hasSameClassAs(expected).hasMessage(expected.getMessage());
        assertThat(actual.getCause()).hasSameClassAs(expected.getCause());
        assertThat(actual.getSuppressed()).isEmpty();
    }

    // once the pool has stopped, no attempt is left to close an input: every input opened was closed, once
    private void assertNoInputLeaked()
            throws InterruptedException
    {
        pool.shutdown();
        assertThat(pool.awaitTermination(10, SECONDS)).isTrue();
        assertThat(faultyFile.inputs).isNotEmpty();
        for (FaultyInput input : faultyFile.inputs) {
            assertThat(input.closes.get()).as("closes of %s", input).isEqualTo(1);
            assertThat(input.readsAfterClose.get()).as("reads after close of %s", input).isZero();
            assertThat(input.concurrentReads.get()).as("concurrent reads of %s", input).isZero();
        }
    }

    private static void awaitClosed(FaultyInput input)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (input.closes.get() == 0) {
            if (System.nanoTime() > deadline) {
                fail("%s was not closed", input);
            }
            MILLISECONDS.sleep(1);
        }
    }

    @FunctionalInterface
    private interface Read
    {
        void run()
                throws IOException;
    }

    /** The file, with faults injected into the reads of the inputs it opens. */
    private static final class FaultyInputFile
            extends ForwardingInputFile
    {
        private final List<FaultyInput> inputs = new CopyOnWriteArrayList<>();
        // every read of the first input opened waits this long first
        private volatile long firstInputDelayMillis;
        // every read fails
        private volatile boolean failing;
        // a failing read counts this down, and fails once it is down (once as many reads are under way)
        private volatile CountDownLatch failTogether;
        private Random random;
        private double randomDelayChance;
        private int randomDelayMaxMillis;

        FaultyInputFile(TrinoInputFile delegate)
        {
            super(delegate);
        }

        synchronized void randomDelays(Random random, double chance, int maxMillis)
        {
            this.random = random;
            this.randomDelayChance = chance;
            this.randomDelayMaxMillis = maxMillis;
        }

        synchronized long nextRandomDelayMillis()
        {
            if (random == null || random.nextDouble() >= randomDelayChance) {
                return 0;
            }
            return random.nextInt(randomDelayMaxMillis + 1);
        }

        @Override
        public TrinoInput newInput()
                throws IOException
        {
            FaultyInput input;
            synchronized (this) {
                input = new FaultyInput(this, inputs.size(), delegate().newInput());
                inputs.add(input);
            }
            return input;
        }
    }

    private static final class FaultyInput
            implements TrinoInput
    {
        private final FaultyInputFile file;
        private final int index;
        private final TrinoInput delegate;
        private final AtomicInteger reads = new AtomicInteger();
        private final AtomicInteger failures = new AtomicInteger();
        private final AtomicInteger closes = new AtomicInteger();
        private final AtomicInteger readsAfterClose = new AtomicInteger();
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicInteger concurrentReads = new AtomicInteger();

        FaultyInput(FaultyInputFile file, int index, TrinoInput delegate)
        {
            this.file = file;
            this.index = index;
            this.delegate = delegate;
        }

        @Override
        public void readFully(long position, byte[] buffer, int bufferOffset, int length)
                throws IOException
        {
            enter();
            try {
                inject();
                delegate.readFully(position, buffer, bufferOffset, length);
            }
            finally {
                inFlight.decrementAndGet();
            }
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int length)
                throws IOException
        {
            enter();
            try {
                inject();
                return delegate.readTail(buffer, bufferOffset, length);
            }
            finally {
                inFlight.decrementAndGet();
            }
        }

        private void enter()
        {
            reads.incrementAndGet();
            if (closes.get() > 0) {
                readsAfterClose.incrementAndGet();
            }
            if (inFlight.incrementAndGet() > 1) {
                concurrentReads.incrementAndGet();
            }
        }

        // waits and fails as the file says
        private void inject()
                throws IOException
        {
            try {
                long delay = file.nextRandomDelayMillis() + (index == 0 ? file.firstInputDelayMillis : 0);
                if (delay > 0) {
                    MILLISECONDS.sleep(delay);
                }
            }
            catch (InterruptedException _) {
                failures.incrementAndGet();
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted: " + this);
            }
            if (file.failing) {
                CountDownLatch together = file.failTogether;
                if (together != null) {
                    together.countDown();
                    try {
                        if (!together.await(10, SECONDS)) {
                            throw new AssertionError("no other read came along");
                        }
                    }
                    catch (InterruptedException _) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException();
                    }
                }
                failures.incrementAndGet();
                throw new IOException("injected failure: " + this);
            }
        }

        @Override
        public void close()
                throws IOException
        {
            closes.incrementAndGet();
            delegate.close();
        }

        @Override
        public String toString()
        {
            return "input " + index;
        }
    }

    // a local file that says it lives at another location (an HDFS path), for the routing by scheme
    private static final class LocationInputFile
            extends ForwardingInputFile
    {
        private final Location location;

        LocationInputFile(TrinoInputFile delegate, Location location)
        {
            super(delegate);
            this.location = location;
        }

        @Override
        public TrinoInput newInput()
                throws IOException
        {
            return delegate().newInput();
        }

        @Override
        public Location location()
        {
            return location;
        }
    }
}
