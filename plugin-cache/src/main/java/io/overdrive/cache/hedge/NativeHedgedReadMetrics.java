package io.overdrive.cache.hedge;

import io.airlift.log.Logger;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * HDFS's own hedged read counters. HDFS keeps them in a private static field of {@code DFSClient}
 * ({@code HEDGED_READ_METRIC}), in the class loader Trino gives HDFS, and exports them nowhere; reflection is the only
 * way to read them. Where that fails (another Hadoop), the native counters read 0 and a warning says why.
 */
interface NativeHedgedReadMetrics
{
    NativeHedgedReadMetrics NONE = new NativeHedgedReadMetrics()
    {
        @Override
        public long hedgedReadOps()
        {
            return 0;
        }

        @Override
        public long hedgedReadOpsWin()
        {
            return 0;
        }

        @Override
        public long hedgedReadOpsInCurThread()
        {
            return 0;
        }
    };

    long hedgedReadOps();

    long hedgedReadOpsWin();

    long hedgedReadOpsInCurThread();

    /** The counters of the HDFS client loaded by {@code hdfsClassLoader}. */
    static NativeHedgedReadMetrics of(ClassLoader hdfsClassLoader)
    {
        try {
            Class<?> client = Class.forName("org.apache.hadoop.hdfs.DFSClient", true, hdfsClassLoader);
            Field field = client.getDeclaredField("HEDGED_READ_METRIC");
            field.setAccessible(true);
            Object metrics = field.get(null);
            Method ops = metrics.getClass().getMethod("getHedgedReadOps");
            Method wins = metrics.getClass().getMethod("getHedgedReadWins");
            Method inCurThread = metrics.getClass().getMethod("getHedgedReadOpsInCurThread");
            return new NativeHedgedReadMetrics()
            {
                @Override
                public long hedgedReadOps()
                {
                    return read(ops);
                }

                @Override
                public long hedgedReadOpsWin()
                {
                    return read(wins);
                }

                @Override
                public long hedgedReadOpsInCurThread()
                {
                    return read(inCurThread);
                }

                private long read(Method getter)
                {
                    try {
                        return (long) getter.invoke(metrics);
                    }
                    catch (ReflectiveOperationException e) {
                        return 0;
                    }
                }
            };
        }
        catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Logger.get(NativeHedgedReadMetrics.class).warn(e, "HDFS's hedged read counters cannot be read: HedgedReadOps and its siblings count Overdrive's wrapper only");
            return NONE;
        }
    }
}
