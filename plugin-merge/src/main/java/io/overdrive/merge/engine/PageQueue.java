package io.overdrive.merge.engine;

import io.overdrive.merge.SortedPageSource;
import io.trino.spi.Page;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A bounded single-producer, single-consumer queue of pages between two merge layers, or between the last layer and
 * the consumer. Neither side ever blocks: the producer gets a future that is pending while the queue is full and
 * pauses until it completes (when the consumer has drained the queue to half); the consumer sees the queue as a
 * {@link SortedPageSource}. Futures are completed outside the lock because their callbacks schedule tasks.
 */
final class PageQueue
        implements SortedPageSource
{
    private final int capacity;
    private final int resumeSize;
    private final AtomicLong mergeBufferedBytes;

    // guarded by this
    private final ArrayDeque<Page> pages = new ArrayDeque<>();
    private long bufferedBytes;
    private boolean producerFinished;
    private long rowsOffered;
    private Throwable failure;
    private boolean closed;
    private CompletableFuture<Void> notEmpty = new CompletableFuture<>();
    private CompletableFuture<Void> notFull = CompletableFuture.completedFuture(null);

    PageQueue(int capacity, AtomicLong mergeBufferedBytes)
    {
        checkArgument(capacity > 0, "capacity must be positive");
        this.capacity = capacity;
        this.resumeSize = capacity / 2;
        this.mergeBufferedBytes = requireNonNull(mergeBufferedBytes, "mergeBufferedBytes is null");
    }

    /**
     * Adds a page. Returns a future that is pending while the producer should pause; a page offered after the
     * consumer closed the queue is dropped.
     */
    CompletableFuture<?> offer(Page page)
    {
        requireNonNull(page, "page is null");
        CompletableFuture<Void> wake;
        CompletableFuture<?> result;
        synchronized (this) {
            if (closed || producerFinished) {
                return NOT_BLOCKED;
            }
            pages.addLast(page);
            rowsOffered += page.getPositionCount();
            long bytes = page.getSizeInBytes();
            bufferedBytes += bytes;
            mergeBufferedBytes.addAndGet(bytes);
            wake = notEmpty;
            if (pages.size() >= capacity) {
                if (notFull.isDone()) {
                    notFull = new CompletableFuture<>();
                }
                result = notFull;
            }
            else {
                result = NOT_BLOCKED;
            }
        }
        wake.complete(null);
        return result;
    }

    /**
     * The producer will add no more pages.
     */
    void finish()
    {
        CompletableFuture<Void> wake;
        synchronized (this) {
            producerFinished = true;
            wake = notEmpty;
        }
        wake.complete(null);
    }

    /**
     * Fails the queue: the consumer gets {@code cause} from its next call, buffered pages are released.
     */
    void fail(Throwable cause)
    {
        requireNonNull(cause, "cause is null");
        CompletableFuture<Void> wakeConsumer;
        CompletableFuture<Void> wakeProducer;
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            producerFinished = true;
            releasePages();
            wakeConsumer = notEmpty;
            wakeProducer = notFull;
        }
        wakeConsumer.complete(null);
        wakeProducer.complete(null);
    }

    /**
     * The consumer is done with the queue: buffered pages are released and later pages dropped.
     */
    @Override
    public void close()
    {
        CompletableFuture<Void> wakeConsumer;
        CompletableFuture<Void> wakeProducer;
        synchronized (this) {
            closed = true;
            releasePages();
            wakeConsumer = notEmpty;
            wakeProducer = notFull;
        }
        wakeConsumer.complete(null);
        wakeProducer.complete(null);
    }

    /**
     * Runs {@code action} unless the producer has finished, with the producer unable to finish meanwhile; returns what
     * the action returned, or false when the producer had finished.
     */
    /** Rows of every page the producer added (those the consumer discarded by closing early included). */
    synchronized long rowsOffered()
    {
        return rowsOffered;
    }

    synchronized boolean unlessProducerFinished(BooleanSupplier action)
    {
        return !producerFinished && action.getAsBoolean();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        synchronized (this) {
            if (!pages.isEmpty() || producerFinished || closed) {
                return NOT_BLOCKED;
            }
            if (notEmpty.isDone()) {
                notEmpty = new CompletableFuture<>();
            }
            return notEmpty;
        }
    }

    @Override
    public Page getNextPage()
    {
        Page page;
        CompletableFuture<Void> wakeProducer = null;
        synchronized (this) {
            throwIfFailed();
            page = pages.pollFirst();
            if (page == null) {
                return null;
            }
            long bytes = page.getSizeInBytes();
            bufferedBytes -= bytes;
            mergeBufferedBytes.addAndGet(-bytes);
            if (pages.size() <= resumeSize && !notFull.isDone()) {
                wakeProducer = notFull;
            }
        }
        if (wakeProducer != null) {
            wakeProducer.complete(null);
        }
        return page;
    }

    @Override
    public boolean isFinished()
    {
        synchronized (this) {
            throwIfFailed();
            return closed || (producerFinished && pages.isEmpty());
        }
    }

    synchronized long getBufferedBytes()
    {
        return bufferedBytes;
    }

    @Override
    public synchronized String toString()
    {
        return "PageQueue[pages=%s, finished=%s, closed=%s, failed=%s, notEmptyPending=%s, notFullPending=%s]".formatted(
                pages.size(), producerFinished, closed, failure != null, !notEmpty.isDone(), !notFull.isDone());
    }

    private void releasePages()
    {
        pages.clear();
        mergeBufferedBytes.addAndGet(-bufferedBytes);
        bufferedBytes = 0;
    }

    private void throwIfFailed()
    {
        if (failure != null) {
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (failure instanceof Error error) {
                throw error;
            }
            throw new RuntimeException(failure);
        }
    }
}
