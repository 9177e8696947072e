package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static io.overdrive.scheduler.affinity.Workers.workers;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

public class TestMembershipTracker
{
    private static final Duration REFRESH = new Duration(5, SECONDS);

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final Ticker ticker = new Ticker()
    {
        @Override
        public long read()
        {
            return nanos.get();
        }
    };

    @Test
    public void testRefreshesOncePerInterval()
    {
        AtomicReference<List<Worker>> live = new AtomicReference<>(workers(3));
        AtomicInteger reads = new AtomicInteger();
        MembershipTracker tracker = new MembershipTracker(() -> {
            reads.incrementAndGet();
            return live.get();
        }, REFRESH, ticker);

        Membership first = tracker.get();
        assertThat(first.workers()).isEqualTo(workers(3));

        live.set(workers(4));
        advance(4);
        assertThat(tracker.get()).isSameAs(first);
        assertThat(reads).hasValue(1);

        advance(1);
        Membership second = tracker.get();
        assertThat(second.workers()).isEqualTo(workers(4));
        assertThat(reads).hasValue(2);
    }

    @Test
    public void testKeepsTheSameSnapshotWhileTheWorkersAreUnchanged()
    {
        MembershipTracker tracker = new MembershipTracker(() -> workers(3).reversed(), REFRESH, ticker);
        Membership first = tracker.get();
        advance(60);
        assertThat(tracker.get()).isSameAs(first);
    }

    @Test
    public void testFailingSourceKeepsTheLastSnapshot()
    {
        AtomicReference<Supplier<Collection<Worker>>> source = new AtomicReference<>(() -> workers(2));
        MembershipTracker tracker = new MembershipTracker(() -> source.get().get(), REFRESH, ticker);
        Membership known = tracker.get();

        source.set(() -> {
            throw new UnsupportedOperationException("Nodes cannot be listed on a worker node");
        });
        advance(10);
        assertThat(tracker.get()).isSameAs(known);
    }

    @Test
    public void testSourceFailingFromTheStartGivesAnEmptyMembershipUntilItRecovers()
    {
        AtomicReference<Supplier<Collection<Worker>>> source = new AtomicReference<>(() -> {
            throw new IllegalStateException("not ready");
        });
        MembershipTracker tracker = new MembershipTracker(() -> source.get().get(), REFRESH, ticker);
        assertThat(tracker.get().isEmpty()).isTrue();

        source.set(() -> workers(2));
        advance(5);
        assertThat(tracker.get().workers()).isEqualTo(workers(2));
    }

    private void advance(int seconds)
    {
        nanos.addAndGet(SECONDS.toNanos(seconds));
    }
}
