package io.overdrive.it.benchmark;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static com.google.common.collect.Iterables.getOnlyElement;

/**
 * Overdrive's {@code PageCacheStats} MBean of one catalog, read from the platform MBean server (only workers export
 * it, so in one JVM it is the worker's).
 */
record OverdriveMetrics(long bytesFromCache, long bytesFromRemote, long admissionRejections, long bytesCached)
{
    static OverdriveMetrics read(String catalog)
    {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = name(catalog);
            return new OverdriveMetrics(
                    (Long) server.getAttribute(name, "BytesFromCache"),
                    (Long) server.getAttribute(name, "BytesFromRemote"),
                    (Long) server.getAttribute(name, "AdmissionRejections"),
                    (Long) server.getAttribute(name, "BytesCached"));
        }
        catch (Exception e) {
            throw new RuntimeException("cannot read the PageCacheStats MBean of catalog " + catalog, e);
        }
    }

    /** Every attribute of the catalog's MBean, for the log. */
    static String describe(String catalog)
    {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = name(catalog);
            Map<String, Object> attributes = new TreeMap<>();
            for (MBeanAttributeInfo attribute : server.getMBeanInfo(name).getAttributes()) {
                attributes.put(attribute.getName(), server.getAttribute(name, attribute.getName()));
            }
            return name + " " + attributes;
        }
        catch (Exception e) {
            return catalog + ": " + e;
        }
    }

    private static ObjectName name(String catalog)
            throws MalformedObjectNameException
    {
        // the catalog is one of the name's key properties; match it exactly (overdrive vs overdrive_small)
        List<ObjectName> names = ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("*:type=PageCacheStats,*"), null).stream()
                .filter(name -> name.getKeyPropertyList().entrySet().stream().anyMatch(entry -> !entry.getKey().equals("type") && entry.getValue().equals(catalog)))
                .toList();
        return getOnlyElement(names);
    }
}
