package io.overdrive.cache;

import io.trino.node.InternalNode;
import io.trino.spi.NodeVersion;
import io.trino.spi.connector.ConnectorContext;
import io.trino.testing.TestingConnectorContext;
import io.trino.testing.TestingNodeManager;

import java.net.URI;

/** Connector contexts of the nodes of a small cluster, as Trino's node manager shows them on each node. */
public final class TestingNodeContexts
{
    private TestingNodeContexts() {}

    /** A worker, which runs splits and sees only itself. */
    public static ConnectorContext workerContext()
    {
        return new TestingConnectorContext(TestingNodeManager.builder().localNode(node("worker", 8080, false)).build());
    }

    /**
     * The coordinator of a cluster with two workers ({@code worker-1}, {@code worker-2}), as Trino's node manager shows
     * it there: among the worker nodes exactly when {@code node-scheduler.include-coordinator=true}.
     */
    public static ConnectorContext coordinatorContext(boolean includeCoordinator)
    {
        TestingNodeManager.Builder nodes = TestingNodeManager.builder()
                .localNode(node("coordinator", 8080, true))
                .addNode(node("worker-1", 8081, false))
                .addNode(node("worker-2", 8082, false));
        if (!includeCoordinator) {
            nodes.doNotScheduleOnCoordinator();
        }
        return new TestingConnectorContext(nodes.build());
    }

    public static InternalNode node(String nodeId, int port, boolean coordinator)
    {
        return new InternalNode(nodeId, URI.create("http://127.0.0.1:" + port), NodeVersion.UNKNOWN, coordinator);
    }
}
