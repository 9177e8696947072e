package io.overdrive.it.harness;

import javax.management.Attribute;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static java.util.stream.Collectors.toCollection;

/**
 * Reads MBean attributes of a Trino node over JMX remote on loopback, the way an operator's monitoring does.
 */
public final class JmxAttributes
{
    private JmxAttributes() {}

    /** Sums a numeric attribute over every MBean matching {@code pattern} on the node listening on {@code port}. */
    public static long sum(int port, String pattern, String attribute)
    {
        return withServer(port, server -> {
            long total = 0;
            for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
                total += ((Number) server.getAttribute(name, attribute)).longValue();
            }
            return total;
        });
    }

    /** A numeric attribute of the one MBean matching {@code pattern}, as a double (a percentile, a rate). */
    public static double value(int port, String pattern, String attribute)
    {
        return ((Number) only(port, pattern, attribute)).doubleValue();
    }

    /** An attribute of the one MBean matching {@code pattern}, as text (a map rendered by the MBean, a name). */
    public static String text(int port, String pattern, String attribute)
    {
        return String.valueOf(only(port, pattern, attribute));
    }

    private static Object only(int port, String pattern, String attribute)
    {
        return withServer(port, server -> {
            Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
            if (names.size() != 1) {
                throw new IllegalStateException("expected one MBean matching %s on port %s, found %s".formatted(pattern, port, names));
            }
            return server.getAttribute(names.iterator().next(), attribute);
        });
    }

    /**
     * Every whole-number attribute (a counter, a gauge) of the MBeans matching {@code pattern} on the node, summed by
     * name over those MBeans; none when nothing matches. For counters whose names a benchmark cannot be sure of.
     */
    public static Map<String, Long> counters(int port, String pattern)
    {
        return withServer(port, server -> {
            Map<String, Long> counters = new TreeMap<>();
            for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
                String[] attributes = Arrays.stream(server.getMBeanInfo(name).getAttributes())
                        .filter(MBeanAttributeInfo::isReadable)
                        .map(MBeanAttributeInfo::getName)
                        .toArray(String[]::new);
                for (Attribute attribute : server.getAttributes(name, attributes).asList()) {
                    if (attribute.getValue() instanceof Long || attribute.getValue() instanceof Integer) {
                        counters.merge(attribute.getName(), ((Number) attribute.getValue()).longValue(), Long::sum);
                    }
                }
            }
            return counters;
        });
    }

    /** The names of the numeric attributes (counters, gauges) of each MBean matching {@code pattern} on the node. */
    public static Map<ObjectName, Set<String>> numericAttributes(int port, String pattern)
    {
        return withServer(port, server -> {
            Map<ObjectName, Set<String>> attributes = new TreeMap<>();
            for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
                String[] readable = Arrays.stream(server.getMBeanInfo(name).getAttributes())
                        .filter(MBeanAttributeInfo::isReadable)
                        .map(MBeanAttributeInfo::getName)
                        .toArray(String[]::new);
                attributes.put(name, server.getAttributes(name, readable).asList().stream()
                        .filter(attribute -> attribute.getValue() instanceof Number)
                        .map(Attribute::getName)
                        .collect(toCollection(TreeSet::new)));
            }
            return attributes;
        });
    }

    private interface ServerFunction<T>
    {
        T apply(MBeanServerConnection server)
                throws Exception;
    }

    // JMX over RMI looks the connector up through JNDI: here only on loopback, at the test's own Trino processes
    @SuppressWarnings("BanJNDI")
    private static <T> T withServer(int port, ServerFunction<T> function)
    {
        JMXServiceURL url;
        try {
            url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:%s/jmxrmi".formatted(port));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(url, Map.of())) {
            return function.apply(connector.getMBeanServerConnection());
        }
        catch (IOException e) {
            throw new UncheckedIOException("JMX of the node on port %s is not reachable".formatted(port), e);
        }
        catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
