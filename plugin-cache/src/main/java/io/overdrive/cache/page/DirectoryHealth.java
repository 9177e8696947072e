package io.overdrive.cache.page;

import com.google.common.base.Throwables;
import com.google.common.base.Ticker;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Whether a cache directory is in use. Consecutive I/O failures past a threshold take it out of use; after a back-off
 * it is probed, and a probe that works puts it back. The back-off starts at {@code cache.directory-retry-interval} and
 * doubles after each failed probe (and after each relapse soon after coming back), up to {@link #MAX_BACKOFF} or the
 * interval, whichever is longer, so a dead disk costs a probe now and then, never a stream of failing reads. An
 * interrupt (a cancelled query) is no failure ({@link #isInterrupt}).
 */
final class DirectoryHealth
{
    static final Duration MAX_BACKOFF = new Duration(30, MINUTES);

    private static final Logger log = Logger.get(DirectoryHealth.class);

    private final Path path;
    private final int failureThreshold;
    private final long initialBackoffNanos;
    private final long maxBackoffNanos;
    private final Ticker ticker;
    private final PageCacheStats stats;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();

    private volatile boolean disabled;
    private long backoffNanos;
    private long nextProbeNanos;
    private long restoredAtNanos = Long.MIN_VALUE;

    DirectoryHealth(Path path, int failureThreshold, Duration retryInterval, Ticker ticker, PageCacheStats stats)
    {
        this.path = requireNonNull(path, "path is null");
        this.failureThreshold = failureThreshold;
        this.initialBackoffNanos = retryInterval.roundTo(NANOSECONDS);
        this.maxBackoffNanos = Math.max(initialBackoffNanos, MAX_BACKOFF.roundTo(NANOSECONDS));
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.backoffNanos = initialBackoffNanos;
    }

    boolean isEnabled()
    {
        return !disabled;
    }

    void succeeded()
    {
        // called on every page read: read before writing, so a healthy directory costs no shared write
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
    }

    void failed(String operation, Throwable cause)
    {
        if (isInterrupt(cause)) {
            // a cancelled query or split stopped the operation: that says nothing about the disk
            return;
        }
        if (consecutiveFailures.incrementAndGet() >= failureThreshold) {
            disable("%s consecutive I/O errors, the last one on %s: %s".formatted(failureThreshold, operation, cause));
        }
    }

    /**
     * Whether a failure is an interrupt of the thread rather than an I/O error: a file channel closed by the interrupt
     * ({@link ClosedByInterruptException}, also wrapped, as Alluxio wraps what its page store throws), an interrupted
     * operation, or any failure on a thread that is interrupted now. A cancelled query or split interrupts the thread
     * that reads (and caches) its pages.
     */
    static boolean isInterrupt(Throwable cause)
    {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        return Throwables.getCausalChain(cause).stream().anyMatch(throwable -> throwable instanceof ClosedByInterruptException
                || throwable instanceof InterruptedException
                || (throwable instanceof InterruptedIOException && !(throwable instanceof SocketTimeoutException)));
    }

    /** Takes the directory out of use until a probe finds it working again. */
    synchronized void disable(String reason)
    {
        if (disabled) {
            return;
        }
        long now = ticker.read();
        // a relapse within one back-off period of coming back is the same trouble: wait longer before the next probe
        boolean relapse = restoredAtNanos != Long.MIN_VALUE && now - restoredAtNanos < backoffNanos * 2;
        backoffNanos = relapse ? Math.min(backoffNanos * 2, maxBackoffNanos) : initialBackoffNanos;
        nextProbeNanos = now + backoffNanos;
        disabled = true;
        stats.recordDirectoryDisabled();
        log.error("Overdrive cache directory %s is taken out of use: %s. Reads that would have used it go to remote storage; it is probed again in %s.",
                path, reason, new Duration(backoffNanos, NANOSECONDS).convertToMostSuccinctTimeUnit());
    }

    synchronized boolean isProbeDue()
    {
        return disabled && ticker.read() - nextProbeNanos >= 0;
    }

    synchronized void probeFailed(Throwable cause)
    {
        backoffNanos = Math.min(backoffNanos * 2, maxBackoffNanos);
        nextProbeNanos = ticker.read() + backoffNanos;
        stats.recordDirectoryProbeFailure();
        log.warn("Overdrive cache directory %s still fails (%s); probed again in %s", path, cause, new Duration(backoffNanos, NANOSECONDS).convertToMostSuccinctTimeUnit());
    }

    synchronized void restore()
    {
        if (!disabled) {
            return;
        }
        consecutiveFailures.set(0);
        restoredAtNanos = ticker.read();
        disabled = false;
        stats.recordDirectoryRestored();
        log.info("Overdrive cache directory %s works again and is back in use", path);
    }
}
