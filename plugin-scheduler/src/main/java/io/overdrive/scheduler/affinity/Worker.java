package io.overdrive.scheduler.affinity;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A live worker as the connector sees it.
 *
 * @param nodeId the engine's node identifier ({@code node.id}); preferences are hashed on it, so they survive a
 * change of address and every node can compute them for itself
 * @param hostAndPort the address a split is given to run there, as {@code HostAddress.toString()} writes it
 */
public record Worker(String nodeId, String hostAndPort)
{
    public Worker
    {
        requireNonNull(nodeId, "nodeId is null");
        requireNonNull(hostAndPort, "hostAndPort is null");
        checkArgument(!nodeId.isEmpty(), "nodeId is empty");
        checkArgument(!hostAndPort.isEmpty(), "hostAndPort is empty");
    }
}
