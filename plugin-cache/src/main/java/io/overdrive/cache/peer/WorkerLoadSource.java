package io.overdrive.cache.peer;

import io.airlift.log.Logger;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * This worker's load as its peer service reports it: read from the JMX attributes of Trino's task executor in this
 * JVM. Empty where neither of Trino 483's executors is found (then the placer balances the catalog by its own account
 * of placements).
 */
@FunctionalInterface
public interface WorkerLoadSource
{
    WorkerLoadSource NONE = Optional::empty;

    Optional<WorkerLoadSample> sample();

    /**
     * The task executor of this JVM's Trino server.
     */
    static WorkerLoadSource taskExecutor()
    {
        return new TaskExecutorLoad(ManagementFactory.getPlatformMBeanServer());
    }

    /**
     * Reads the attributes of whichever of Trino's task executors this server runs: the thread-per-driver executor
     * (Trino 483's default) counts the leaf splits running and queued in the worker's tasks; the time-sharing executor
     * ({@code experimental.thread-per-driver-scheduler-enabled=false}) the leaf splits it has started (running, waiting
     * for a thread or blocked), not those still queued in their tasks.
     */
    final class TaskExecutorLoad
            implements WorkerLoadSource
    {
        private static final Logger log = Logger.get(TaskExecutorLoad.class);
        static final String THREAD_PER_DRIVER = "trino.execution.executor.dedicated:name=ThreadPerDriverTaskExecutor";
        static final String TIME_SHARING = "trino.execution.executor.timesharing:name=TimeSharingTaskExecutor";
        // per executor: the attributes summed into the outstanding splits, then those summed into the finished ones
        private static final List<Shape> SHAPES = List.of(
                new Shape(THREAD_PER_DRIVER, List.of("TotalRunningLeafSplits", "TotalPendingLeafSplits"), List.of("TaskExecutor.CompletedTaskCount")),
                new Shape(TIME_SHARING, List.of("CurrentLeafSplitsSize"),
                        List.of("CompletedSplitsLevel0", "CompletedSplitsLevel1", "CompletedSplitsLevel2", "CompletedSplitsLevel3", "CompletedSplitsLevel4")));

        private final MBeanServer server;
        private volatile boolean warned;

        private record Shape(String objectName, List<String> outstanding, List<String> completed)
        {
            ObjectName name()
            {
                try {
                    return new ObjectName(objectName);
                }
                catch (MalformedObjectNameException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        TaskExecutorLoad(MBeanServer server)
        {
            this.server = requireNonNull(server, "server is null");
        }

        @Override
        public Optional<WorkerLoadSample> sample()
        {
            for (Shape shape : SHAPES) {
                try {
                    long outstanding = sum(shape.name(), shape.outstanding());
                    long completed = sum(shape.name(), shape.completed());
                    return Optional.of(new WorkerLoadSample(Math.max(0, outstanding), Math.max(0, completed)));
                }
                catch (InstanceNotFoundException e) {
                    // not this executor: try the next
                }
                catch (JMException | RuntimeException e) {
                    log.debug(e, "Reading %s failed", shape.objectName());
                    return Optional.empty();
                }
            }
            if (!warned) {
                warned = true;
                log.info("Neither %s nor %s in this server: this worker does not report its load, and the placer balances by its own account", THREAD_PER_DRIVER, TIME_SHARING);
            }
            return Optional.empty();
        }

        private long sum(ObjectName name, List<String> attributes)
                throws JMException
        {
            AttributeList values = server.getAttributes(name, attributes.toArray(String[]::new));
            if (values.size() != attributes.size()) {
                throw new AttributeNotFoundException("%s of %s: %s found".formatted(attributes, name, values.size()));
            }
            long total = 0;
            for (Object value : values.asList().stream().map(Attribute::getValue).toList()) {
                total += ((Number) value).longValue();
            }
            return total;
        }
    }
}
