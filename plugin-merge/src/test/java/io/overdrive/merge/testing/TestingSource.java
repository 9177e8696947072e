package io.overdrive.merge.testing;

import io.overdrive.merge.SortedPageSource;
import io.trino.spi.Page;

import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * A source over pages in memory that behaves like a remote stream: with some probability a page is "not there yet"
 * and {@link #isBlocked()} returns a future that another thread completes a little later. It can fail at a given
 * page (by throwing from {@link #getNextPage()} or by failing its future), and it counts how often it is closed.
 */
public final class TestingSource
        implements SortedPageSource
{
    public enum Failure { NONE, THROW, FAIL_FUTURE }

    private final List<Page> pages;
    private final ScheduledExecutorService executor;
    private final double blockProbability;
    private final int maxDelayMicros;
    private final Random random;
    private final int failAtPage;
    private final Failure failure;
    private final AtomicInteger closes = new AtomicInteger();
    private final AtomicInteger pagesReturned = new AtomicInteger();

    private int next;
    private CompletableFuture<?> blocked;

    public TestingSource(List<Page> pages, ScheduledExecutorService executor, double blockProbability, int maxDelayMicros, long seed, int failAtPage, Failure failure)
    {
        this.pages = List.copyOf(pages);
        this.executor = requireNonNull(executor, "executor is null");
        this.blockProbability = blockProbability;
        this.maxDelayMicros = maxDelayMicros;
        this.random = new Random(seed);
        this.failAtPage = failAtPage;
        this.failure = requireNonNull(failure, "failure is null");
    }

    public static TestingSource inMemory(List<Page> pages, ScheduledExecutorService executor)
    {
        return new TestingSource(pages, executor, 0, 0, 0, -1, Failure.NONE);
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return blocked == null ? NOT_BLOCKED : blocked;
    }

    @Override
    public Page getNextPage()
    {
        if (closes.get() > 0) {
            throw new IllegalStateException("source used after close");
        }
        if (blocked != null) {
            if (!blocked.isDone()) {
                return null;
            }
            if (blocked.isCompletedExceptionally()) {
                throw new IllegalStateException("input stream failed (future)");
            }
            blocked = null;
        }
        else if (next < pages.size() && (random.nextDouble() < blockProbability || (next == failAtPage && failure == Failure.FAIL_FUTURE))) {
            CompletableFuture<Void> future = new CompletableFuture<>();
            blocked = future;
            boolean fail = next == failAtPage && failure == Failure.FAIL_FUTURE;
            long delay = maxDelayMicros == 0 ? 0 : random.nextInt(maxDelayMicros);
            executor.schedule(() -> {
                if (fail) {
                    future.completeExceptionally(new IllegalStateException("input stream failed (future)"));
                }
                else {
                    future.complete(null);
                }
            }, delay, TimeUnit.MICROSECONDS);
            return null;
        }
        if (next >= pages.size()) {
            return null;
        }
        if (next == failAtPage && failure == Failure.THROW) {
            throw new IllegalStateException("input stream failed (throw)");
        }
        pagesReturned.incrementAndGet();
        return pages.get(next++);
    }

    @Override
    public boolean isFinished()
    {
        return next >= pages.size();
    }

    @Override
    public void close()
    {
        closes.incrementAndGet();
    }

    public int closeCount()
    {
        return closes.get();
    }

    public int pagesReturned()
    {
        return pagesReturned.get();
    }
}
