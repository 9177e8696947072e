package io.overdrive.cache.hedge;

import io.airlift.log.Logger;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Sets the hedge threshold of the live HDFS clients of one catalog. HDFS reads its threshold from its client's
 * configuration on every hedged read ({@code DfsClientConf.getHedgedReadThresholdMillis()}), but fixes that
 * configuration when the client is created and offers no setter, and Trino keeps the clients in its own cache
 * ({@code io.trino.hdfs.TrinoFileSystemCache}) in the class loader it gives HDFS. Reflection is the only way in: every
 * use of it for this is in this class. Where a class, field or method is missing (another Trino or Hadoop) or the JVM
 * refuses to change the field, {@link #of} returns empty or {@link #set} throws; the caller then keeps the fixed
 * threshold the clients were created with and counts the failure.
 */
final class HdfsClientThreshold
{
    private static final Logger log = Logger.get(HdfsClientThreshold.class);

    private final Object fileSystemCache;
    private final Field cacheMap;
    private final Method holderFileSystem;
    private final Class<?> filterFileSystem;
    private final Method rawFileSystem;
    private final Class<?> distributedFileSystem;
    private final Method client;
    private final Method clientConf;
    private final Field thresholdField;
    private final Method threshold;

    private HdfsClientThreshold(ClassLoader hdfsClassLoader)
            throws ReflectiveOperationException
    {
        Class<?> cacheClass = Class.forName("io.trino.hdfs.TrinoFileSystemCache", true, hdfsClassLoader);
        Field instance = cacheClass.getDeclaredField("INSTANCE");
        instance.setAccessible(true);
        fileSystemCache = requireNonNull(instance.get(null), "TrinoFileSystemCache.INSTANCE is null");
        cacheMap = cacheClass.getDeclaredField("cache");
        cacheMap.setAccessible(true);
        holderFileSystem = Class.forName("io.trino.hdfs.TrinoFileSystemCache$FileSystemHolder", false, hdfsClassLoader).getDeclaredMethod("getFileSystem");
        holderFileSystem.setAccessible(true);
        filterFileSystem = Class.forName("org.apache.hadoop.fs.FilterFileSystem", false, hdfsClassLoader);
        rawFileSystem = filterFileSystem.getMethod("getRawFileSystem");
        distributedFileSystem = Class.forName("org.apache.hadoop.hdfs.DistributedFileSystem", false, hdfsClassLoader);
        client = distributedFileSystem.getMethod("getClient");
        clientConf = Class.forName("org.apache.hadoop.hdfs.DFSClient", false, hdfsClassLoader).getMethod("getConf");
        Class<?> confClass = Class.forName("org.apache.hadoop.hdfs.client.impl.DfsClientConf", false, hdfsClassLoader);
        thresholdField = confClass.getDeclaredField("hedgedReadThresholdMillis");
        thresholdField.setAccessible(true);
        threshold = confClass.getMethod("getHedgedReadThresholdMillis");
    }

    /** The threshold of the HDFS clients loaded by {@code hdfsClassLoader}; empty, with a warning, where it is out of reach. */
    static Optional<HdfsClientThreshold> of(ClassLoader hdfsClassLoader)
    {
        try {
            return Optional.of(new HdfsClientThreshold(hdfsClassLoader));
        }
        catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.warn(e, "The hedge threshold of HDFS's own hedged reads cannot be adapted in this Trino or Hadoop: it stays at hedged-read.adaptive-initial");
            return Optional.empty();
        }
    }

    /**
     * Sets the threshold of every live HDFS client of the catalog, and returns how many clients now have it.
     *
     * @throws ReflectiveOperationException where a client's threshold cannot be changed
     */
    int set(long millis)
            throws ReflectiveOperationException
    {
        int clients = 0;
        for (Object holder : ((Map<?, ?>) cacheMap.get(fileSystemCache)).values()) {
            Object fileSystem = holderFileSystem.invoke(holder);
            while (filterFileSystem.isInstance(fileSystem)) {
                fileSystem = rawFileSystem.invoke(fileSystem);
            }
            if (!distributedFileSystem.isInstance(fileSystem)) {
                // not created yet, or not HDFS (viewfs hedges through the HDFS clients it creates for itself, out of reach)
                continue;
            }
            Object conf = clientConf.invoke(client.invoke(fileSystem));
            if ((long) threshold.invoke(conf) != millis) {
                thresholdField.setLong(conf, millis);
                if ((long) threshold.invoke(conf) != millis) {
                    throw new IllegalAccessException("the JVM did not change DfsClientConf.hedgedReadThresholdMillis");
                }
            }
            clients++;
        }
        return clients;
    }
}
