package io.overdrive.cache.peer;

import com.google.common.net.HostAndPort;
import io.airlift.log.Logger;
import io.overdrive.cache.page.PageCache;
import io.trino.spi.HostAddress;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A worker's part in peer reads: the service that serves its cached pages to the catalog's other workers
 * ({@link PeerPageServer}) and the client that asks them for the pages it misses ({@link PeerPageClient}). Started with
 * the page cache on every node that runs splits, when {@code cache.peer.shared-secret} is set.
 */
public final class PeerService
        implements Closeable
{
    private static final Logger log = Logger.get(PeerService.class);

    private final PeerPageServer server;
    private final PeerPageClient client;

    private PeerService(PeerPageServer server, PeerPageClient client)
    {
        this.server = requireNonNull(server, "server is null");
        this.client = requireNonNull(client, "client is null");
    }

    /**
     * The service of this worker ({@code self}: its Trino address; the service listens {@code cache.peer.port-offset}
     * above its port), or empty when {@code cache.peer.shared-secret} is not set.
     *
     * @throws IllegalStateException when the service's port cannot be bound
     */
    public static Optional<PeerService> start(String catalog, PeerConfig config, PeerStats stats, PageCache cache, HostAddress self)
    {
        return start(catalog, config, stats, cache, PagesInFlight.NONE, self);
    }

    /**
     * @param inFlight this worker's storage reads in flight, which a peer asking for their bytes may wait for
     */
    public static Optional<PeerService> start(String catalog, PeerConfig config, PeerStats stats, PageCache cache, PagesInFlight inFlight, HostAddress self)
    {
        if (!config.isEnabled()) {
            log.info("Catalog %s: peer reads are off, so each worker reads storage for the pages it does not cache even when another worker caches them. " +
                    "To turn them on, set %s to the same secret on every node (for example %s=${ENV:OVERDRIVE_PEER_SECRET})", catalog, PeerConfig.SHARED_SECRET, PeerConfig.SHARED_SECRET);
            return Optional.empty();
        }
        PeerAuth auth = new PeerAuth(config.getSharedSecret().orElseThrow(), InstantSource.system());
        InetSocketAddress address = new InetSocketAddress(config.getBindAddress(), self.getPort() + config.getPortOffset());
        PeerPageServer server = new PeerPageServer(address, cache, inFlight, WorkerLoadSource.taskExecutor(), auth, config, stats);
        log.info("Catalog %s: serving cached pages to peers on %s:%s", catalog, config.getBindAddress(), server.port());
        PeerPageClient client = new PeerPageClient(auth, config, stats);
        String host = config.getBindAddress().equals("0.0.0.0") ? self.getHostText() : config.getBindAddress();
        client.warmUp(HostAndPort.fromParts(host, server.port()), cache.pageSize());
        return Optional.of(new PeerService(server, client));
    }

    public PeerReads reads()
    {
        return client;
    }

    @Override
    public void close()
    {
        try (client) {
            server.close();
        }
    }
}
