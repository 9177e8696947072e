package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock the test moves by hand, starting at one second.
 */
final class ManualTicker
        extends Ticker
{
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read()
    {
        return nanos.get();
    }

    void advance(long delta)
    {
        nanos.addAndGet(delta);
    }
}
