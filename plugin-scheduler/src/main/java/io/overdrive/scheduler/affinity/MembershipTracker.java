package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;
import com.google.errorprone.annotations.ThreadSafe;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.airlift.log.Logger;
import io.airlift.units.Duration;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static com.google.common.collect.Sets.difference;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The current {@link Membership}, re-read from a source of live workers (the connector's {@code NodeManager}) at most
 * once per refresh interval. The same snapshot instance is returned until the workers change, which is what lets a
 * {@link SplitPlacer} notice a change cheaply.
 * <p>
 * Never blocks a caller once a snapshot exists: a stale snapshot is returned while another thread refreshes. A source
 * that fails keeps the last snapshot (a placement never fails because the worker list could not be read); before the
 * first successful read the membership is empty, which leaves splits to the engine.
 */
@ThreadSafe
public final class MembershipTracker
        implements Supplier<Membership>
{
    private static final Logger log = Logger.get(MembershipTracker.class);

    private final Supplier<? extends Collection<Worker>> workers;
    private final long refreshNanos;
    private final Ticker ticker;
    private final ReentrantLock refreshLock = new ReentrantLock();
    // both written only under refreshLock; current is null until the first refresh
    private volatile Membership current;
    private volatile long lastRefreshNanos;

    public MembershipTracker(Supplier<? extends Collection<Worker>> workers, Duration refreshInterval)
    {
        this(workers, refreshInterval, Ticker.systemTicker());
    }

    public MembershipTracker(Supplier<? extends Collection<Worker>> workers, Duration refreshInterval, Ticker ticker)
    {
        this.workers = requireNonNull(workers, "workers is null");
        this.refreshNanos = requireNonNull(refreshInterval, "refreshInterval is null").roundTo(NANOSECONDS);
        checkArgument(refreshNanos > 0, "refreshInterval must be positive: %s", refreshInterval);
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    @Override
    public Membership get()
    {
        Membership snapshot = current;
        if (snapshot != null) {
            if (!isStale() || !refreshLock.tryLock()) {
                return snapshot;
            }
        }
        else {
            refreshLock.lock();
        }
        try {
            // another thread may have refreshed while this one waited for the lock
            if (current == null || isStale()) {
                refresh();
            }
            return current;
        }
        finally {
            refreshLock.unlock();
        }
    }

    private boolean isStale()
    {
        return ticker.read() - lastRefreshNanos >= refreshNanos;
    }

    @GuardedBy("refreshLock")
    private void refresh()
    {
        Membership previous = current;
        try {
            Membership fresh = Membership.of(workers.get());
            if (previous == null) {
                current = fresh;
            }
            else if (!fresh.equals(previous)) {
                log.info("Workers changed: %s joined, %s left, %s live", difference(nodeIds(fresh), nodeIds(previous)), difference(nodeIds(previous), nodeIds(fresh)), fresh.size());
                current = fresh;
            }
        }
        catch (RuntimeException e) {
            // no stack trace: a source that cannot work here fails at every interval
            log.warn("Cannot list the live workers, keeping the %s known ones: %s", previous == null ? 0 : previous.size(), e);
            if (previous == null) {
                current = Membership.empty();
            }
        }
        lastRefreshNanos = ticker.read();
    }

    private static Set<String> nodeIds(Membership membership)
    {
        return membership.workers().stream()
                .map(Worker::nodeId)
                .collect(toImmutableSet());
    }
}
