package io.overdrive.it.harness;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

/**
 * Reads MBean attributes of a Trino node over JMX remote on loopback, the way an operator's monitoring does.
 */
public final class JmxAttributes
{
    private JmxAttributes() {}

    /** Sums a numeric attribute over every MBean matching {@code pattern} on the node listening on {@code port}. */
    // JMX over RMI looks the connector up through JNDI: here only on loopback, at the test's own Trino processes
    @SuppressWarnings("BanJNDI")
    public static long sum(int port, String pattern, String attribute)
    {
        JMXServiceURL url;
        try {
            url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:%s/jmxrmi".formatted(port));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(url, Map.of())) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
            long total = 0;
            for (ObjectName name : names) {
                total += ((Number) server.getAttribute(name, attribute)).longValue();
            }
            return total;
        }
        catch (IOException e) {
            throw new UncheckedIOException("JMX of the node on port %s is not reachable".formatted(port), e);
        }
        catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
