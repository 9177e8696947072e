package io.overdrive.it;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.Set;

import static com.google.common.collect.Iterables.getOnlyElement;

/**
 * Reads the page cache MBean of an in-JVM worker through the platform MBean server, where jmxutils exports it (the
 * same MBean Trino's JMX connector lists).
 */
record PageCacheMetrics(long bytesFromCache, long bytesFromRemote, long hits, long misses, long bytesCached, long notCachedExcludedTable, long checksumFailures, long notCachedRecentlyModified)
{
    static PageCacheMetrics read(String catalog)
    {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = server.queryNames(new ObjectName("*:type=PageCacheStats,*"), null);
            ObjectName name = getOnlyElement(names.stream().filter(candidate -> catalog.equals(candidate.getKeyProperty("catalog"))).toList());
            return new PageCacheMetrics(
                    (Long) server.getAttribute(name, "BytesFromCache"),
                    (Long) server.getAttribute(name, "BytesFromRemote"),
                    (Long) server.getAttribute(name, "Hits"),
                    (Long) server.getAttribute(name, "Misses"),
                    (Long) server.getAttribute(name, "BytesCached"),
                    (Long) server.getAttribute(name, "NotCachedExcludedTable"),
                    (Long) server.getAttribute(name, "ChecksumFailures"),
                    (Long) server.getAttribute(name, "NotCachedRecentlyModified"));
        }
        catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    PageCacheMetrics minus(PageCacheMetrics earlier)
    {
        return new PageCacheMetrics(bytesFromCache - earlier.bytesFromCache, bytesFromRemote - earlier.bytesFromRemote, hits - earlier.hits, misses - earlier.misses, bytesCached, notCachedExcludedTable - earlier.notCachedExcludedTable, checksumFailures - earlier.checksumFailures, notCachedRecentlyModified - earlier.notCachedRecentlyModified);
    }

    double cacheShareOfBytes()
    {
        long total = bytesFromCache + bytesFromRemote;
        return total == 0 ? 0 : (double) bytesFromCache / total;
    }
}
