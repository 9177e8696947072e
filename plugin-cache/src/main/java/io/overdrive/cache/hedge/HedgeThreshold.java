package io.overdrive.cache.hedge;

/** How long a read runs before it is hedged: fixed, or adaptive ({@link AdaptiveThreshold}). */
interface HedgeThreshold
{
    long nanos();

    /** A read of this storage took this long. */
    void record(long latencyNanos);

    static HedgeThreshold fixed(long nanos)
    {
        return new HedgeThreshold()
        {
            @Override
            public long nanos()
            {
                return nanos;
            }

            @Override
            public void record(long latencyNanos) {}
        };
    }
}
