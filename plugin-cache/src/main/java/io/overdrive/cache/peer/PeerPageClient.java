package io.overdrive.cache.peer;

import com.google.common.net.HostAndPort;
import io.airlift.http.client.HttpClient;
import io.airlift.http.client.HttpClientConfig;
import io.airlift.http.client.Request;
import io.airlift.http.client.Response;
import io.airlift.http.client.ResponseHandler;
import io.airlift.http.client.jetty.JettyHttpClient;
import io.airlift.log.Logger;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.trino.spi.HostAddress;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Asks a peer worker's service ({@link PeerPageServer}) for bytes of a file, with Airlift's HTTP client (Jetty), as
 * Trino's nodes talk to each other. An answer is used only when it carries every byte asked for and each chunk matches
 * its checksum. Whatever else happens (no answer within {@code cache.peer.read-timeout}, a refused, busy or damaged
 * answer, a lost connection) the read returns false and the caller reads storage. A peer that refused, was unreachable or
 * sent damaged bytes is not asked again for {@code cache.peer.retry-after}; one that timed out or was busy is a peer
 * under load more often than a dead one, so it is skipped for {@link #FIRST_BACKOFF}, twice as long after each further
 * timeout in a row, at most {@code cache.peer.retry-after}: a busy worker's cached pages stay in use once it answers
 * again. A peer that does not hold the bytes is not a failure, and an answer ends its run of timeouts.
 */
public final class PeerPageClient
        implements PeerReads, Closeable
{
    private static final Logger log = Logger.get(PeerPageClient.class);
    // how long a peer that timed out or was busy is skipped, the first time in a row
    static final Duration FIRST_BACKOFF = new Duration(1, SECONDS);

    private final HttpClient client;
    private final boolean ownsClient;
    private final PeerAuth auth;
    private final PeerStats stats;
    private final int portOffset;
    private final long maxReadSize;
    private final long readTimeoutNanos;
    private final long retryAfterNanos;
    private final long fetchWaitMillis;
    private final LongSupplier ticker;
    // peers that failed, until when they are not asked
    private final Map<HostAndPort, Down> downUntil = new ConcurrentHashMap<>();

    public PeerPageClient(PeerAuth auth, PeerConfig config, PeerStats stats)
    {
        this(new JettyHttpClient("overdrive-peer", new HttpClientConfig()
                        .setConnectTimeout(config.getReadTimeout())
                        .setRequestTimeout(config.getReadTimeout())
                        .setIdleTimeout(new Duration(1, java.util.concurrent.TimeUnit.MINUTES))
                        .setMaxResponseContentLength(DataSize.ofBytes(config.getMaxReadSize().toBytes() + DataSize.of(1, MEGABYTE).toBytes()))
                        .setMaxConnectionsPerServer(64)),
                true, auth, config, stats, System::nanoTime);
    }

    PeerPageClient(HttpClient client, boolean ownsClient, PeerAuth auth, PeerConfig config, PeerStats stats, LongSupplier ticker)
    {
        this.client = requireNonNull(client, "client is null");
        this.ownsClient = ownsClient;
        this.auth = requireNonNull(auth, "auth is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.portOffset = config.getPortOffset();
        this.maxReadSize = config.getMaxReadSize().toBytes();
        this.readTimeoutNanos = config.getReadTimeout().roundTo(NANOSECONDS);
        this.retryAfterNanos = config.getRetryAfter().roundTo(NANOSECONDS);
        this.fetchWaitMillis = config.getFetchWait().toMillis();
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    /** Whether a read of this many bytes may ask a peer ({@code cache.peer.max-read-size}). */
    public boolean fits(long length)
    {
        return length <= maxReadSize;
    }

    /**
     * Reads {@code length} bytes from {@code start} of the file cached as {@code fileId} (pages of {@code pageSize})
     * into {@code target} from the first of {@code peers} (Trino's addresses of the workers; their service listens at
     * {@code cache.peer.port-offset} above) that is not marked down. Returns whether the bytes came, verified; only one
     * peer is asked, so a read waits at most {@code cache.peer.read-timeout} before the caller reads storage.
     */
    @Override
    public boolean read(List<HostAddress> peers, String fileId, int pageSize, long start, byte[] target, int targetOffset, int length)
    {
        if (peers.isEmpty() || !fits(length)) {
            return false;
        }
        for (HostAddress peer : peers) {
            HostAndPort service = HostAndPort.fromParts(peer.getHostText(), peer.getPort() + portOffset);
            Down down = downUntil.get(service);
            if (down != null && ticker.getAsLong() - down.until() < 0) {
                stats.recordSkippedPeerDown();
                continue;
            }
            return readFrom(service, fileId, pageSize, start, target, targetOffset, length);
        }
        return false;
    }

    private boolean readFrom(HostAndPort service, String fileId, int pageSize, long start, byte[] target, int targetOffset, int length)
    {
        String pathAndQuery = PeerProtocol.pathAndQuery(fileId, pageSize, start, length);
        Request request = Request.Builder.prepareGet()
                .setUri(URI.create("http://" + service + pathAndQuery))
                .setHeader("Authorization", auth.sign(pathAndQuery))
                .build();
        long begin = ticker.getAsLong();
        Outcome outcome = client.execute(request, new Answer(target, targetOffset, length, System.nanoTime(), readTimeoutNanos));
        if (outcome == Outcome.MISS_FETCHING && fetchWaitMillis > 0) {
            // the peer is reading these bytes from storage now: waiting for that read costs less than a read of our own,
            // which would send the same bytes twice. The peer answers within the wait; a stalled one costs the read
            // timeout past it
            stats.recordFetchWait();
            String waiting = PeerProtocol.pathAndQuery(fileId, pageSize, start, length, fetchWaitMillis);
            long timeoutNanos = readTimeoutNanos + MILLISECONDS.toNanos(fetchWaitMillis);
            outcome = client.execute(Request.Builder.prepareGet()
                            .setUri(URI.create("http://" + service + waiting))
                            .setHeader("Authorization", auth.sign(waiting))
                            .setRequestTimeout(new Duration(timeoutNanos, NANOSECONDS))
                            .build(),
                    new Answer(target, targetOffset, length, System.nanoTime(), timeoutNanos));
        }
        long nanos = ticker.getAsLong() - begin;
        switch (outcome) {
            case HIT -> {
                stats.recordHit(length, nanos);
                // it answers: its run of timeouts, if any, is over
                downUntil.remove(service);
                return true;
            }
            case MISS, MISS_FETCHING -> {
                stats.recordMiss();
                downUntil.remove(service);
            }
            case FAILED_TIMEOUT -> fail(service, PeerFailure.TIMEOUT, nanos);
            case FAILED_CONNECTION -> fail(service, PeerFailure.CONNECTION, nanos);
            case FAILED_CHECKSUM -> fail(service, PeerFailure.CHECKSUM, nanos);
            case FAILED_REFUSED -> fail(service, PeerFailure.REFUSED, nanos);
            case FAILED_BUSY -> fail(service, PeerFailure.BUSY, nanos);
        }
        return false;
    }

    /**
     * Asks {@code service} (this worker's own) for bytes it does not hold, counting nothing: loads the client's and the
     * server's code and opens a connection, so that a worker's first peer read does not take a cold JVM's few hundred
     * milliseconds and time out.
     */
    void warmUp(HostAndPort service, int pageSize)
    {
        String pathAndQuery = PeerProtocol.pathAndQuery("warm-up", pageSize, 0, 1);
        Request request = Request.Builder.prepareGet()
                .setUri(URI.create("http://" + service + pathAndQuery))
                .setHeader("Authorization", auth.sign(pathAndQuery))
                .build();
        try {
            client.execute(request, new Answer(new byte[1], 0, 1, System.nanoTime(), readTimeoutNanos));
        }
        catch (RuntimeException e) {
            log.debug(e, "Warming up the peer client on %s failed", service);
        }
    }

    private void fail(HostAndPort service, PeerFailure failure, long nanos)
    {
        stats.recordFailure(failure, nanos);
        long now = ticker.getAsLong();
        boolean underLoad = failure == PeerFailure.TIMEOUT || failure == PeerFailure.BUSY;
        Down down = downUntil.compute(service, (_, previous) -> {
            if (!underLoad) {
                return new Down(now + retryAfterNanos, 0);
            }
            // the first timeout in a row, or the next one after the peer was asked again
            int inARow = previous == null ? 1 : previous.timeoutsInARow() + 1;
            long backoff = FIRST_BACKOFF.roundTo(NANOSECONDS) << Math.min(inARow - 1, 30);
            return new Down(now + Math.min(retryAfterNanos, backoff), inARow);
        });
        if (down.timeoutsInARow() <= 1) {
            log.warn("Peer %s failed (%s): reading storage instead, and not asking it again for %s", service, failure.name().toLowerCase(java.util.Locale.ENGLISH),
                    new Duration(down.until() - now, NANOSECONDS).convertToMostSuccinctTimeUnit());
        }
    }

    /** A peer not asked until {@code until} (the ticker's time), after {@code timeoutsInARow} timeouts in a row (0: another failure). */
    private record Down(long until, int timeoutsInARow) {}

    @Override
    public void close()
    {
        if (ownsClient) {
            client.close();
        }
    }

    private enum Outcome
    {
        HIT, MISS, MISS_FETCHING, FAILED_TIMEOUT, FAILED_CONNECTION, FAILED_CHECKSUM, FAILED_REFUSED, FAILED_BUSY
    }

    private final class Answer
            implements ResponseHandler<Outcome, RuntimeException>
    {
        private final byte[] target;
        private final int offset;
        private final int length;
        private final long begin;
        private final long timeoutNanos;

        Answer(byte[] target, int offset, int length, long begin, long timeoutNanos)
        {
            this.target = target;
            this.offset = offset;
            this.length = length;
            this.begin = begin;
            this.timeoutNanos = timeoutNanos;
        }

        @Override
        public Outcome handleException(Request request, Exception exception)
        {
            // Jetty's total timeout fails the request with a TimeoutException; a connection that times out as it opens, with
            // another exception, after the same time
            for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
                if (cause instanceof java.util.concurrent.TimeoutException) {
                    return Outcome.FAILED_TIMEOUT;
                }
            }
            return System.nanoTime() - begin >= timeoutNanos ? Outcome.FAILED_TIMEOUT : Outcome.FAILED_CONNECTION;
        }

        @Override
        public Outcome handle(Request request, Response response)
        {
            switch (response.getStatusCode()) {
                case 200 -> {
                    // below
                }
                case 404 -> {
                    return "true".equals(response.getHeader(PeerProtocol.FETCHING_HEADER)) ? Outcome.MISS_FETCHING : Outcome.MISS;
                }
                case 401, 400 -> {
                    return Outcome.FAILED_REFUSED;
                }
                case 503 -> {
                    return Outcome.FAILED_BUSY;
                }
                default -> {
                    return Outcome.FAILED_CONNECTION;
                }
            }
            byte[] checksums = new byte[PeerProtocol.chunks(length) * Integer.BYTES];
            try (InputStream body = response.getInputStream()) {
                if (body.readNBytes(checksums, 0, checksums.length) != checksums.length
                        || body.readNBytes(target, offset, length) != length
                        || body.read() != -1) {
                    return Outcome.FAILED_CHECKSUM;
                }
            }
            catch (IOException | RuntimeException e) {
                return handleException(request, e);
            }
            // a damaged answer may have written target: the caller reads storage over it
            return PeerProtocol.verify(checksums, target, offset, length) ? Outcome.HIT : Outcome.FAILED_CHECKSUM;
        }
    }
}
