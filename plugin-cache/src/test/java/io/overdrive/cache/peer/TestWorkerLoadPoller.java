package io.overdrive.cache.peer;

import io.airlift.units.Duration;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.scheduler.affinity.LoadReport;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.overdrive.scheduler.affinity.Worker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The load signal over real sockets: a worker's peer service answers the coordinator's poller with its task executor's
 * counts; the poller hands the placer fresh reports only, with the worker's completion rate. The worker's counts come
 * from a stand-in for Trino's task executor at the boundary (its MBean), the rest is the product's code.
 */
class TestWorkerLoadPoller
{
    private static final String SECRET = "a-secret-of-the-catalog-0123456789";

    @TempDir
    Path directory;

    private PageCache cache;
    private PeerStats serverStats;
    private PeerPageServer server;
    private final AtomicReference<Optional<WorkerLoadSample>> load = new AtomicReference<>(Optional.empty());

    @BeforeEach
    void setUp()
    {
        PageCacheConfig config = new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(directory.toString())
                .setMaxSizes("16MB")
                .setPageSize(io.airlift.units.DataSize.of(64, KILOBYTE))
                .setAdmissionEnabled(false)
                .setAsyncWriteEnabled(false);
        cache = PageCache.create("lake", config, new PageCacheStats());
        serverStats = new PeerStats();
        server = new PeerPageServer(new InetSocketAddress("127.0.0.1", 0), cache, () -> load.get(), new PeerAuth(SECRET, InstantSource.system()), config(SECRET), serverStats);
    }

    @AfterEach
    void tearDown()
    {
        server.close();
        cache.close();
    }

    @Test
    void thePlacerGetsEachWorkersCountsAndCompletionRate()
    {
        PlacementStats stats = new PlacementStats();
        Worker worker = new Worker("worker-1", "127.0.0.1:" + (server.port() - 1));
        try (WorkerLoadPoller poller = new WorkerLoadPoller(config(SECRET), stats, () -> List.of(worker), System::nanoTime)) {
            assertThat(poller.isEnabled()).isTrue();
            load.set(Optional.of(new WorkerLoadSample(5, 100)));
            LoadReport first = awaitReport(poller, "worker-1", report -> report.outstandingSplits() == 5);
            assertThat(first.completedSplitsPerSecond()).isZero();
            load.set(Optional.of(new WorkerLoadSample(7, 100_000)));
            LoadReport second = awaitReport(poller, "worker-1", report -> report.outstandingSplits() == 7);
            assertThat(second.completedSplitsPerSecond()).isPositive();
            assertThat(second.receivedNanos()).isGreaterThan(first.receivedNanos());
            // a worker the placer never heard of has no report
            assertThat(poller.report("worker-2")).isNull();
        }
        assertThat(stats.getLoadPolls().getTotalCount()).isGreaterThanOrEqualTo(2);
        assertThat(serverStats.getLoadAnswers()).isGreaterThanOrEqualTo(2);
        assertThat(serverStats.getUnauthenticated()).isZero();
    }

    @Test
    void aWorkerThatCannotTellOrRefusesOrIsGoneHasNoReport()
            throws Exception
    {
        load.set(Optional.empty());
        PlacementStats stats = new PlacementStats();
        Worker silent = new Worker("silent", "127.0.0.1:" + (server.port() - 1));
        Worker gone = new Worker("gone", "127.0.0.1:" + (freePort() - 1));
        try (WorkerLoadPoller poller = new WorkerLoadPoller(config(SECRET), stats, () -> List.of(silent, gone), System::nanoTime)) {
            // the placer's first question starts the polling
            assertThat(poller.report("silent")).isNull();
            await("the silent worker answered 'unknown' and both were polled twice", () -> serverStats.getLoadUnknown() >= 2 && stats.getLoadPolls().getTotalCount() >= 4);
            assertThat(poller.report("silent")).isNull();
            assertThat(poller.report("gone")).isNull();
        }
        assertThat(stats.getLoadPollFailures().getTotalCount()).isGreaterThanOrEqualTo(stats.getLoadPolls().getTotalCount());

        // a poller with another secret is refused, and so has no report either
        load.set(Optional.of(new WorkerLoadSample(3, 3)));
        PlacementStats otherStats = new PlacementStats();
        try (WorkerLoadPoller poller = new WorkerLoadPoller(config("another-secret-0123456789"), otherStats, () -> List.of(silent), System::nanoTime)) {
            assertThat(poller.report("silent")).isNull();
            await("requests refused", () -> serverStats.getUnauthenticated() >= 2 && otherStats.getLoadPolls().getTotalCount() >= 2);
            assertThat(poller.report("silent")).isNull();
        }
        assertThat(otherStats.getLoadPollFailures().getTotalCount()).isGreaterThanOrEqualTo(otherStats.getLoadPolls().getTotalCount());
        assertThat(serverStats.getLoadAnswers()).isZero();
    }

    @Test
    void aReportIsUsedForThreeIntervalsAndTheRateComesFromTheLastTwo()
    {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        PlacementStats stats = new PlacementStats();
        // polling starts with the first question; the worker's address answers nothing, so only accept() brings reports
        Worker unreachable = new Worker("w", "127.0.0.1:" + (freePort() - 1));
        try (WorkerLoadPoller poller = new WorkerLoadPoller(config(SECRET), stats, () -> List.of(unreachable), now::get)) {
            long interval = config(SECRET).getLoadPollInterval().roundTo(NANOSECONDS);
            poller.accept("w", new WorkerLoadSample(10, 1_000), now.get());
            now.addAndGet(SECONDS.toNanos(2));
            poller.accept("w", new WorkerLoadSample(4, 1_050), now.get());
            LoadReport report = poller.report("w");
            assertThat(report.outstandingSplits()).isEqualTo(4);
            assertThat(report.completedSplitsPerSecond()).isCloseTo(25, within(1e-9));
            now.addAndGet(3 * interval);
            assertThat(poller.report("w")).isEqualTo(report);
            now.addAndGet(1);
            assertThat(poller.report("w")).isNull();
            // a restarted worker counts from zero again: no negative rate
            poller.accept("w", new WorkerLoadSample(1, 3), now.get());
            assertThat(poller.report("w").completedSplitsPerSecond()).isZero();
        }
    }

    @Test
    void withoutTheSecretNothingIsPolled()
    {
        PlacementStats stats = new PlacementStats();
        Supplier<List<Worker>> workers = () -> {
            throw new AssertionError("polled without a secret");
        };
        try (WorkerLoadPoller poller = new WorkerLoadPoller(new PeerConfig(), stats, workers, System::nanoTime)) {
            assertThat(poller.isEnabled()).isFalse();
            assertThat(poller.report("w")).isNull();
        }
        assertThat(stats.getLoadPolls().getTotalCount()).isZero();
    }

    @Test
    void theTaskExecutorsCountsAreReadFromEitherOfTrinosExecutors()
            throws Exception
    {
        MBeanServer mbeans = MBeanServerFactory.newMBeanServer();
        WorkerLoadSource source = new WorkerLoadSource.TaskExecutorLoad(mbeans);
        assertThat(source.sample()).isEmpty();
        // the time-sharing executor: the leaf splits it started, and its finished splits over the five levels
        ObjectName timeSharing = new ObjectName(WorkerLoadSource.TaskExecutorLoad.TIME_SHARING);
        mbeans.registerMBean(new Attributes(Map.of(
                "CurrentLeafSplitsSize", 12,
                "CompletedSplitsLevel0", 1L,
                "CompletedSplitsLevel1", 2L,
                "CompletedSplitsLevel2", 3L,
                "CompletedSplitsLevel3", 4L,
                "CompletedSplitsLevel4", 5L)), timeSharing);
        assertThat(source.sample()).contains(new WorkerLoadSample(12, 15));
        // the thread-per-driver executor (Trino 483's default): running and queued leaf splits, the pool's finished runs
        mbeans.unregisterMBean(timeSharing);
        mbeans.registerMBean(new Attributes(Map.of(
                "TotalRunningLeafSplits", 8,
                "TotalPendingLeafSplits", 30,
                "TaskExecutor.CompletedTaskCount", 977L)), new ObjectName(WorkerLoadSource.TaskExecutorLoad.THREAD_PER_DRIVER));
        assertThat(source.sample()).contains(new WorkerLoadSample(38, 977));
    }

    // an MBean with fixed attributes under Trino's names (Airlift flattens nested attributes into dotted names)
    private static final class Attributes
            implements DynamicMBean
    {
        private final Map<String, Object> values;

        Attributes(Map<String, Object> values)
        {
            this.values = Map.copyOf(values);
        }

        @Override
        public Object getAttribute(String attribute)
                throws AttributeNotFoundException
        {
            Object value = values.get(attribute);
            if (value == null) {
                throw new AttributeNotFoundException(attribute);
            }
            return value;
        }

        @Override
        public void setAttribute(Attribute attribute)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public AttributeList getAttributes(String[] attributes)
        {
            AttributeList list = new AttributeList();
            for (String attribute : attributes) {
                if (values.containsKey(attribute)) {
                    list.add(new Attribute(attribute, values.get(attribute)));
                }
            }
            return list;
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object invoke(String actionName, Object[] params, String[] signature)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public MBeanInfo getMBeanInfo()
        {
            MBeanAttributeInfo[] attributes = values.entrySet().stream()
                    .map(entry -> new MBeanAttributeInfo(entry.getKey(), entry.getValue().getClass().getName(), entry.getKey(), true, false, false))
                    .toArray(MBeanAttributeInfo[]::new);
            return new MBeanInfo(Attributes.class.getName(), "fixed attributes", attributes, null, null, null);
        }
    }

    private static LoadReport awaitReport(WorkerLoadPoller poller, String nodeId, Predicate<LoadReport> condition)
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            LoadReport report = poller.report(nodeId);
            if (report != null && condition.test(report)) {
                return report;
            }
            sleep();
        }
        throw new AssertionError("no such report of " + nodeId + " within 10 s: " + poller.report(nodeId));
    }

    private static void await(String what, BooleanSupplier condition)
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("%s within 10 s", what).isLessThan(deadline);
            sleep();
        }
    }

    private static void sleep()
    {
        try {
            Thread.sleep(10);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static PeerConfig config(String secret)
    {
        return new PeerConfig()
                .setSharedSecret(secret)
                .setPortOffset(1)
                .setLoadPollInterval(new Duration(100, MILLISECONDS));
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
