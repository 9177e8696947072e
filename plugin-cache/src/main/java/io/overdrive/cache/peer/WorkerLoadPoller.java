package io.overdrive.cache.peer;

import com.google.common.net.HostAndPort;
import com.google.inject.Inject;
import io.airlift.http.client.HttpClient;
import io.airlift.http.client.HttpClientConfig;
import io.airlift.http.client.Request;
import io.airlift.http.client.StringResponseHandler.StringResponse;
import io.airlift.http.client.jetty.JettyHttpClient;
import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.overdrive.scheduler.affinity.LoadReport;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.overdrive.scheduler.affinity.ReportedLoads;
import io.overdrive.scheduler.affinity.Worker;
import io.trino.spi.NodeManager;
import jakarta.annotation.PreDestroy;

import java.io.Closeable;
import java.net.URI;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static com.google.common.util.concurrent.MoreExecutors.directExecutor;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static io.airlift.http.client.StringResponseHandler.createStringResponseHandler;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The coordinator's side of the load signal: asks every live worker's peer service for its load
 * ({@link PeerProtocol#LOAD_PATH}, signed with the catalog's secret) every {@code cache.peer.load-poll-interval}, and
 * hands the placer each worker's latest answer while it is at most three intervals old, with the rate at which the
 * worker finished splits between its last two answers. Starts polling on the placer's first question, so a worker
 * (where nothing is placed) never polls. A worker that does not answer has no fresh report, and while one live worker
 * has none the placer balances by its own decayed account of placements.
 */
public final class WorkerLoadPoller
        implements ReportedLoads, Closeable
{
    private static final Logger log = Logger.get(WorkerLoadPoller.class);

    private final boolean enabled;
    private final Supplier<List<Worker>> workers;
    private final HttpClient client;
    private final PeerAuth auth;
    private final PlacementStats stats;
    private final int portOffset;
    private final long intervalNanos;
    private final long maxAgeNanos;
    private final LongSupplier ticker;
    private final Map<String, Polled> polled = new ConcurrentHashMap<>();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ScheduledExecutorService executor;

    private record Polled(WorkerLoadSample sample, LoadReport report) {}

    @Inject
    public WorkerLoadPoller(PeerConfig config, PlacementStats stats, NodeManager nodeManager)
    {
        this(config, stats, () -> nodeManager.getWorkerNodes().stream()
                .map(node -> new Worker(node.getNodeIdentifier(), node.getHostAndPort().toString()))
                .toList(), System::nanoTime);
    }

    WorkerLoadPoller(PeerConfig config, PlacementStats stats, Supplier<List<Worker>> workers, LongSupplier ticker)
    {
        this.enabled = config.isEnabled();
        this.workers = requireNonNull(workers, "workers is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.portOffset = config.getPortOffset();
        this.intervalNanos = config.getLoadPollInterval().roundTo(NANOSECONDS);
        this.maxAgeNanos = 3 * intervalNanos;
        this.auth = enabled ? new PeerAuth(config.getSharedSecret().orElseThrow(), InstantSource.system()) : null;
        Duration timeout = config.getLoadPollInterval();
        this.client = enabled
                ? new JettyHttpClient("overdrive-load", new HttpClientConfig()
                        .setConnectTimeout(timeout)
                        .setRequestTimeout(timeout)
                        .setIdleTimeout(new Duration(1, MINUTES)))
                : null;
        this.executor = enabled ? newSingleThreadScheduledExecutor(daemonThreadsNamed("overdrive-load-poller-%s")) : null;
    }

    /**
     * Whether the workers report their loads here: peer reads are on ({@code cache.peer.shared-secret}).
     */
    public boolean isEnabled()
    {
        return enabled;
    }

    @Override
    public LoadReport report(String nodeId)
    {
        if (!enabled) {
            return null;
        }
        if (!started.get() && started.compareAndSet(false, true) && !closed.get()) {
            executor.scheduleWithFixedDelay(this::pollSafely, 0, intervalNanos, NANOSECONDS);
        }
        Polled last = polled.get(nodeId);
        if (last == null || ticker.getAsLong() - last.report().receivedNanos() > maxAgeNanos) {
            return null;
        }
        return last.report();
    }

    private void pollSafely()
    {
        try {
            poll();
        }
        catch (RuntimeException e) {
            log.warn(e, "Polling the workers' loads failed");
        }
    }

    /**
     * Asks every live worker not still answering the previous request, and forgets workers no longer live.
     */
    void poll()
    {
        List<Worker> live = workers.get();
        Set<String> liveIds = live.stream().map(Worker::nodeId).collect(toImmutableSet());
        polled.keySet().retainAll(liveIds);
        for (Worker worker : live) {
            if (inFlight.add(worker.nodeId())) {
                ask(worker);
            }
        }
    }

    private void ask(Worker worker)
    {
        HostAndPort address = HostAndPort.fromString(worker.hostAndPort());
        HostAndPort service = HostAndPort.fromParts(address.getHost(), address.getPort() + portOffset);
        Request request = Request.Builder.prepareGet()
                .setUri(URI.create("http://" + service + PeerProtocol.LOAD_PATH))
                .setHeader("Authorization", auth.sign(PeerProtocol.LOAD_PATH))
                .build();
        var future = client.executeAsync(request, createStringResponseHandler());
        future.addListener(() -> {
            inFlight.remove(worker.nodeId());
            WorkerLoadSample sample = null;
            try {
                StringResponse response = future.get();
                if (response.getStatusCode() == 200) {
                    sample = WorkerLoadSample.decode(response.getBody());
                }
                else {
                    log.debug("Worker %s answered the load request with %s: %s", worker.nodeId(), response.getStatusCode(), response.getBody());
                }
            }
            catch (Exception e) {
                log.debug(e, "Worker %s did not answer the load request", worker.nodeId());
            }
            stats.recordLoadPoll(sample != null);
            if (sample != null) {
                accept(worker.nodeId(), sample, ticker.getAsLong());
            }
        }, directExecutor());
    }

    /**
     * Records a worker's answer received at {@code nowNanos}: the rate is taken from its previous answer.
     */
    void accept(String nodeId, WorkerLoadSample sample, long nowNanos)
    {
        polled.compute(nodeId, (_, previous) -> {
            double rate = 0;
            if (previous != null && nowNanos > previous.report().receivedNanos() && sample.completedSplits() >= previous.sample().completedSplits()) {
                rate = (sample.completedSplits() - previous.sample().completedSplits()) * 1e9 / (nowNanos - previous.report().receivedNanos());
            }
            return new Polled(sample, new LoadReport(sample.outstandingSplits(), rate, nowNanos));
        });
    }

    @PreDestroy
    @Override
    public void close()
    {
        if (!enabled || !closed.compareAndSet(false, true)) {
            return;
        }
        executor.shutdownNow();
        client.close();
    }
}
