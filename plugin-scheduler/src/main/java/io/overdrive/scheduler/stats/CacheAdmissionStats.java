package io.overdrive.scheduler.stats;

import io.airlift.stats.CounterStat;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

/**
 * Worker-side counters of the affinity cache-admission decision, one instance per catalog, exported through JMX.
 */
public final class CacheAdmissionStats
{
    private final CounterStat admitted = new CounterStat();
    private final CounterStat notPreferred = new CounterStat();

    public void recordAdmitted()
    {
        admitted.update(1);
    }

    public void recordNotPreferred()
    {
        notPreferred.update(1);
    }

    @Managed
    @Nested
    public CounterStat getAdmitted()
    {
        return admitted;
    }

    @Managed(description = "Reads not cached because this worker is not a preferred worker of the file")
    @Nested
    public CounterStat getNotCachedNotPreferred()
    {
        return notPreferred;
    }
}
