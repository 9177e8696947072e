package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.overdrive.cache.session.QueryReadStats;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Runs a read and, once it has run past its threshold, a second identical one (the hedge); the first to succeed wins.
 * As in HDFS's {@code DFSInputStream.hedgedFetchBlockByteRange}, both run on the hedged read pool, so the reading thread
 * returns as soon as either succeeds; a read that finds the pool full runs in the reading thread, unhedged, and a hedge
 * that finds it full runs in the reading thread (HDFS's {@code HedgedReadOpsInCurThread}). The loser is interrupted (on
 * the pool's virtual threads that closes a socket it is blocked in, see {@link HedgedReads#pool}), and its resources are
 * released once it stops, whenever that is; so are those of every attempt of a read that fails or
 * whose caller is interrupted. A hedge starts only within the {@link HedgeBudget}.
 */
final class Hedger
{
    /** One read; it owns its resources (a stream, a buffer) until {@link #release} or until it is returned as the winner. */
    interface Attempt
    {
        /** Reads; called at most once, on a pool thread or on the reading thread. */
        void run()
                throws IOException;

        /** Bytes this attempt read, counted as wasted when it loses. */
        long bytesRead();

        /** Releases what this attempt holds; called once, after {@link #run} returned or failed, or when it never ran. */
        void release();
    }

    private final ExecutorService pool;
    private final HedgeBudget budget;
    private final HedgedReadStats stats;
    private final Ticker ticker;

    Hedger(ExecutorService pool, HedgeBudget budget, HedgedReadStats stats, Ticker ticker)
    {
        this.pool = requireNonNull(pool, "pool is null");
        this.budget = requireNonNull(budget, "budget is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    /**
     * Runs {@code primary}, hedged with an attempt from {@code hedges} once it has run past {@code threshold}.
     *
     * @return the attempt that succeeded first; the caller now owns its resources
     * @throws IOException the primary's failure (the hedge's attached as suppressed) when no attempt succeeded
     */
    Attempt read(Attempt primary, Supplier<Attempt> hedges, HedgeThreshold threshold)
            throws IOException
    {
        return read(primary, hedges, threshold, QueryReadStats.UNTRACKED);
    }

    /** As {@link #read(Attempt, Supplier, HedgeThreshold)}, counting the hedge and its win in the reading query's {@code readStats} too. */
    Attempt read(Attempt primary, Supplier<Attempt> hedges, HedgeThreshold threshold, QueryReadStats readStats)
            throws IOException
    {
        long start = ticker.read();
        Attempt winner = hedgedRead(primary, hedges, threshold, readStats);
        stats.recordReadLatency(ticker.read() - start);
        return winner;
    }

    private Attempt hedgedRead(Attempt primary, Supplier<Attempt> hedges, HedgeThreshold threshold, QueryReadStats readStats)
            throws IOException
    {
        stats.recordRead();
        budget.recordRead();
        Task first = new Task(primary, false, threshold);
        if (!trySubmit(first)) {
            stats.recordUnhedgedPoolFull();
            first.run();
            return first.outcome();
        }
        Task second = null;
        try {
            try {
                first.done.get(threshold.nanos(), NANOSECONDS);
                return first.attempt;
            }
            catch (TimeoutException _) {
                // past the threshold: hedge it
            }
            catch (ExecutionException _) {
                return first.outcome();
            }
            if (!budget.tryAcquire()) {
                stats.recordRefusedByBudget();
                return await(first);
            }
            second = new Task(hedges.get(), true, threshold);
            boolean inCallerThread = !trySubmit(second);
            stats.recordHedge(inCallerThread);
            readStats.recordHedge();
            if (inCallerThread) {
                second.run();
            }
            Task winner = firstSuccess(first, second);
            (winner == first ? second : first).abandon();
            if (winner == second) {
                stats.recordWin();
                readStats.recordHedgeWin();
            }
            return winner.attempt;
        }
        catch (InterruptedException e) {
            first.abandon();
            if (second != null) {
                second.abandon();
            }
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while reading");
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    private boolean trySubmit(Task task)
    {
        try {
            pool.execute(task);
            return true;
        }
        catch (RejectedExecutionException _) {
            return false;
        }
    }

    private static Attempt await(Task task)
            throws InterruptedException, IOException
    {
        try {
            task.done.get();
            return task.attempt;
        }
        catch (ExecutionException _) {
            return task.outcome();
        }
    }

    // the first attempt to succeed; when both fail, both are released and the primary's failure is thrown
    private Task firstSuccess(Task first, Task second)
            throws InterruptedException, IOException
    {
        CompletableFuture<Task> success = new CompletableFuture<>();
        AtomicInteger failures = new AtomicInteger();
        for (Task task : new Task[] {first, second}) {
            task.done.whenComplete((done, failure) -> {
                if (failure == null) {
                    success.complete(done);
                }
                else if (failures.incrementAndGet() == 2) {
                    success.completeExceptionally(failure);
                }
            });
        }
        try {
            return success.get();
        }
        catch (ExecutionException _) {
            first.abandon();
            second.abandon();
            Throwable failure = first.failure;
            if (second.failure != null && second.failure != failure) {
                failure.addSuppressed(second.failure);
            }
            stats.recordFailure(true);
            throw rethrow(failure);
        }
    }

    private static IOException rethrow(Throwable failure)
    {
        switch (failure) {
            case IOException e -> {
                return e;
            }
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new UncheckedIOException(new IOException(failure));
        }
    }

    private final class Task
            implements Runnable
    {
        private final Attempt attempt;
        private final boolean hedge;
        private final HedgeThreshold threshold;
        private final long createdAt = ticker.read();
        private final CompletableFuture<Task> done = new CompletableFuture<>();
        // guarded by this
        private Thread runner;
        private boolean started;
        private boolean finished;
        private boolean abandoned;
        private boolean interruptedByAbandon;
        private volatile Throwable failure;

        Task(Attempt attempt, boolean hedge, HedgeThreshold threshold)
        {
            this.attempt = requireNonNull(attempt, "attempt is null");
            this.hedge = hedge;
            this.threshold = threshold;
        }

        @Override
        public void run()
        {
            synchronized (this) {
                if (abandoned) {
                    finished = true;
                    attempt.release();
                    done.cancel(false);
                    return;
                }
                started = true;
                runner = Thread.currentThread();
            }
            stats.recordAttemptStarted();
            Throwable failure = null;
            try {
                attempt.run();
            }
            catch (Throwable t) {
                failure = t;
            }
            long latency = ticker.read() - createdAt;
            this.failure = failure;
            boolean release;
            boolean stopped;
            synchronized (this) {
                runner = null;
                finished = true;
                release = abandoned;
                stopped = interruptedByAbandon && failure != null;
                if (interruptedByAbandon) {
                    // the interrupt was ours, to stop this attempt; the thread goes on serving others
                    Thread.interrupted();
                }
            }
            stats.recordAttemptFinished(stopped);
            if (failure == null) {
                if (hedge) {
                    stats.recordHedgeLatency(latency);
                }
                else {
                    stats.recordPrimaryLatency(latency);
                    threshold.record(latency);
                }
            }
            if (release) {
                if (failure == null) {
                    stats.recordWastedBytes(attempt.bytesRead());
                }
                attempt.release();
            }
            if (failure == null) {
                done.complete(this);
            }
            else {
                done.completeExceptionally(failure);
            }
        }

        /** This attempt's result is not wanted: stop it if it runs, and release it once it has stopped. */
        void abandon()
        {
            synchronized (this) {
                if (abandoned) {
                    return;
                }
                abandoned = true;
                if (!started) {
                    // still queued: run() releases it when the pool gets to it
                    return;
                }
                if (!finished) {
                    interruptedByAbandon = true;
                    runner.interrupt();
                    return;
                }
            }
            if (failure == null) {
                stats.recordWastedBytes(attempt.bytesRead());
            }
            attempt.release();
        }

        /** The attempt when it succeeded; its failure, released, when it did not. */
        Attempt outcome()
                throws IOException
        {
            if (failure == null) {
                return attempt;
            }
            abandon();
            stats.recordFailure(false);
            throw rethrow(failure);
        }
    }
}
