package io.overdrive.cache.scan;

import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Remote storage as the shared scans see it: a real local file behind a boundary that counts every read per page and
 * can make reads slow, block them until released, or fail them. Faults only: the bytes are the file's.
 */
final class StorageBoundary
        implements TrinoInputFile
{
    private final TrinoInputFile file;
    private final int pageSize;
    private final Map<Long, AtomicInteger> readsPerPage = new ConcurrentHashMap<>();
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger inputsOpen = new AtomicInteger();
    private volatile long delayMillis;
    private volatile double failureChance;
    // the latch the next read waits on; the latch release() opens
    private final AtomicReference<CountDownLatch> gate = new AtomicReference<>();
    private volatile CountDownLatch releaseLatch = new CountDownLatch(0);
    private final AtomicReference<IOException> nextFailure = new AtomicReference<>();
    private final CountDownLatch blockedRead = new CountDownLatch(1);
    private volatile int blockedReadLength;
    // bytes that read-ahead threads are reading now (their buffers are allocated), and the most seen at once
    private final AtomicLong readAheadBytesReading = new AtomicLong();
    private final AtomicLong maxReadAheadBytesReading = new AtomicLong();

    StorageBoundary(TrinoInputFile file, int pageSize)
    {
        this.file = requireNonNull(file, "file is null");
        this.pageSize = pageSize;
    }

    void setDelayMillis(long delayMillis)
    {
        this.delayMillis = delayMillis;
    }

    void setFailureChance(double failureChance)
    {
        this.failureChance = failureChance;
    }

    /** The next read blocks until {@link #release}; it then fails with {@code failure} if one is given. */
    void blockNextRead(IOException failure)
    {
        nextFailure.set(failure);
        CountDownLatch latch = new CountDownLatch(1);
        releaseLatch = latch;
        gate.set(latch);
    }

    void awaitBlockedRead()
            throws InterruptedException
    {
        if (!blockedRead.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("no read reached the storage");
        }
    }

    /** How many bytes the blocked read reads. */
    int blockedReadLength()
    {
        return blockedReadLength;
    }

    void release()
    {
        releaseLatch.countDown();
    }

    /** How many remote reads covered the page. */
    int reads(long page)
    {
        AtomicInteger count = readsPerPage.get(page);
        return count == null ? 0 : count.get();
    }

    Map<Long, AtomicInteger> readsPerPage()
    {
        return readsPerPage;
    }

    long bytesRead()
    {
        return bytesRead.get();
    }

    int reads()
    {
        return reads.get();
    }

    int inputsOpen()
    {
        return inputsOpen.get();
    }

    /** The most bytes that read-ahead threads were reading from this file at once. */
    long maxReadAheadBytesReading()
    {
        return maxReadAheadBytesReading.get();
    }

    private void read(TrinoInput input, long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        CountDownLatch latch = gate.getAndSet(null);
        if (latch != null) {
            blockedReadLength = length;
            blockedRead.countDown();
            try {
                latch.await();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading " + file.location());
            }
            IOException failure = nextFailure.getAndSet(null);
            if (failure != null) {
                throw failure;
            }
        }
        if (failureChance > 0 && ThreadLocalRandom.current().nextDouble() < failureChance) {
            throw new IOException("injected storage failure");
        }
        if (delayMillis > 0) {
            try {
                Thread.sleep(delayMillis);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading " + file.location());
            }
        }
        boolean readAhead = Thread.currentThread().getName().startsWith("overdrive-read-ahead-");
        if (readAhead) {
            maxReadAheadBytesReading.accumulateAndGet(readAheadBytesReading.addAndGet(length), Math::max);
        }
        try {
            input.readFully(position, buffer, offset, length);
        }
        finally {
            if (readAhead) {
                readAheadBytesReading.addAndGet(-length);
            }
        }
        reads.incrementAndGet();
        bytesRead.addAndGet(length);
        for (long page = position / pageSize; page <= (position + length - 1) / pageSize; page++) {
            readsPerPage.computeIfAbsent(page, _ -> new AtomicInteger()).incrementAndGet();
        }
    }

    @Override
    public TrinoInput newInput()
            throws IOException
    {
        TrinoInput input = file.newInput();
        inputsOpen.incrementAndGet();
        return new TrinoInput()
        {
            private boolean closed;

            @Override
            public void readFully(long position, byte[] buffer, int bufferOffset, int bufferLength)
                    throws IOException
            {
                read(input, position, buffer, bufferOffset, bufferLength);
            }

            @Override
            public int readTail(byte[] buffer, int bufferOffset, int bufferLength)
            {
                throw new UnsupportedOperationException("the page cache reads positions");
            }

            @Override
            public synchronized void close()
                    throws IOException
            {
                if (!closed) {
                    closed = true;
                    inputsOpen.decrementAndGet();
                    input.close();
                }
            }
        };
    }

    @Override
    public TrinoInputStream newStream()
    {
        throw new UnsupportedOperationException("the page cache reads positions");
    }

    @Override
    public long length()
            throws IOException
    {
        return file.length();
    }

    @Override
    public Instant lastModified()
            throws IOException
    {
        return file.lastModified();
    }

    @Override
    public boolean exists()
            throws IOException
    {
        return file.exists();
    }

    @Override
    public Location location()
    {
        return file.location();
    }
}
