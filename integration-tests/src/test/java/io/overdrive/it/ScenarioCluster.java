package io.overdrive.it;

import io.overdrive.it.harness.TrinoProcessCluster;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/** A Trino cluster (coordinator and workers) over HDFS that {@link ClusterScenarios} runs against. */
public interface ScenarioCluster
        extends AutoCloseable
{
    Connection connect()
            throws SQLException;

    /** The coordinator's HTTP address, where {@code /metrics} is served. */
    URI coordinator();

    /** The workers' HTTP addresses. */
    List<URI> workers();

    /** Whether the coordinator saw {@code count} active nodes (itself included) within {@code timeout}. */
    default boolean awaitActiveNodes(long count, Duration timeout)
    {
        return awaitActiveNodes(this::connect, count, timeout);
    }

    /** The same for any coordinator {@code connections} reach. */
    static boolean awaitActiveNodes(Connections connections, long count, Duration timeout)
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection connection = connections.connect()) {
                if ((long) TrinoProcessCluster.query(connection, "SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'").getFirst().getFirst() == count) {
                    return true;
                }
            }
            catch (SQLException | RuntimeException ignored) {
                // starting, or busy noticing a node that is gone
            }
            sleepUninterruptibly(500, MILLISECONDS);
        }
        return false;
    }

    interface Connections
    {
        Connection connect()
                throws SQLException;
    }

    /** Kills a worker as a crash would, without a graceful shutdown. */
    void killWorker(int index);

    /**
     * Stops every worker as an operator's restart does (its shutdown hooks run), starts it again with the same node id,
     * port and files (its page cache directory among them), and returns once the coordinator counts every node active.
     */
    void restartWorkers();

    @Override
    void close();
}
