package io.overdrive.it.benchmark;

import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** The names of a Trino node's live threads, over its JMX port. */
final class WorkerThreads
{
    private WorkerThreads() {}

    // JMX over RMI looks the connector up through JNDI: here only on loopback, at the benchmark's own Trino processes
    @SuppressWarnings("BanJNDI")
    static List<String> names(int jmxPort)
    {
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:%s/jmxrmi".formatted(jmxPort)), Map.of())) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(server, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
            return Arrays.stream(threads.dumpAllThreads(false, false)).map(ThreadInfo::getThreadName).toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException("JMX of the node on port %s is not reachable".formatted(jmxPort), e);
        }
    }
}
