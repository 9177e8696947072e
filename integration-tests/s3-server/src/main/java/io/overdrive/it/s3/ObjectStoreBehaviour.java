package io.overdrive.it.s3;

import com.google.common.util.concurrent.RateLimiter;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.internal.BlobImpl;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;
import org.jclouds.http.HttpResponse;
import org.jclouds.http.HttpResponseException;
import org.jclouds.io.payloads.DelegatingPayload;

import java.io.FileOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The server's object reads, made to behave like a remote object store's: a first-byte latency with a heavy tail, a
 * slow endpoint that a share of the reads reach, every n-th read slow or throttled (503 Slow Down), a bandwidth shared by
 * all reads, and counts of the reads served and of the object bytes sent (as they are sent: a read whose client closed
 * its connection stops being counted where its sending stopped). Everything else passes through unchanged.
 */
final class ObjectStoreBehaviour
        extends ForwardingBlobStore
{
    // diagnostics: every GET served, one line each (time, object, ranges, bytes), to the file OVERDRIVE_S3_GET_LOG names
    private static final Optional<PrintStream> GET_LOG = Optional.ofNullable(System.getenv("OVERDRIVE_S3_GET_LOG")).filter(path -> !path.isBlank()).map(path -> {
        try {
            return new PrintStream(new FileOutputStream(path, true), false, UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    });

    private final AtomicLong getRequests = new AtomicLong();
    private final AtomicLong getBytes = new AtomicLong();
    private final AtomicLong slowDowns = new AtomicLong();
    private final DistinctRanges distinct = new DistinctRanges();
    private volatile FirstByte firstByte = new FirstByte(0, 0, 0);
    // every n-th GET is refused (0: none), counted over all GETs
    private volatile int slowDownEvery;
    private final AtomicLong getsSeen = new AtomicLong();
    // every n-th GET of the objects whose key contains a given part waits this much more before its first byte (0:
    // none), counted from when it was set over those GETs only, so that which reads are slow does not depend on the
    // requests (metastore files, other tables) sent before or beside them
    private volatile SlowGet slowGet = new SlowGet(0, 0, "", new AtomicLong());
    // a share of GETs reach a slow endpoint and wait a further random 0 to millis before their first byte
    private volatile SlowEndpoint slowEndpoint = new SlowEndpoint(0, 0);
    // the object bytes all GETs together may send per second (empty: unlimited)
    private volatile Optional<RateLimiter> bandwidth = Optional.empty();

    private record SlowGet(int every, long millis, String keyPart, AtomicLong seen)
    {
        boolean slows(String key)
        {
            return every > 0 && key.contains(keyPart) && seen.incrementAndGet() % every == 0;
        }
    }

    private record SlowEndpoint(double share, long millis) {}

    private record FirstByte(long fixedMillis, long tailMillis, double tailShare) {}

    ObjectStoreBehaviour(BlobStore delegate)
    {
        super(delegate);
    }

    void setFirstByteLatency(long fixedMillis, long tailMillis, double tailShare)
    {
        if (fixedMillis < 0 || tailMillis < 0 || tailShare < 0 || tailShare > 1) {
            throw new IllegalArgumentException("first-byte latency needs fixed >= 0, tail >= 0 and 0 <= share <= 1");
        }
        firstByte = new FirstByte(fixedMillis, tailMillis, tailShare);
    }

    /** Every n-th GET (0: none) of the objects whose key contains {@code keyPart} ("": all) waits millis more. */
    void setSlowGet(int every, long millis, String keyPart)
    {
        if (every < 0 || millis < 0) {
            throw new IllegalArgumentException("slow-get needs n >= 0 and a wait >= 0");
        }
        slowGet = new SlowGet(every, millis, keyPart, new AtomicLong());
    }

    void setSlowEndpoint(double share, long millis)
    {
        if (share < 0 || share > 1 || millis < 0) {
            throw new IllegalArgumentException("slow-endpoint needs 0 <= share <= 1 and a wait >= 0");
        }
        slowEndpoint = new SlowEndpoint(share, millis);
    }

    /** Bytes per second shared by all object reads; 0 for unlimited. */
    void setBandwidth(long bytesPerSecond)
    {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bandwidth needs bytes per second >= 0, or 0 for unlimited");
        }
        bandwidth = bytesPerSecond == 0 ? Optional.empty() : Optional.of(RateLimiter.create(bytesPerSecond));
    }

    void setSlowDownEvery(int every)
    {
        if (every < 0) {
            throw new IllegalArgumentException("slow-down needs a positive n, or 0 for none: " + every);
        }
        slowDownEvery = every;
    }

    long getRequests()
    {
        return getRequests.get();
    }

    long getBytes()
    {
        return getBytes.get();
    }

    /** The distinct object bytes sent since the last {@link #resetDistinct()}: each byte of each object once. */
    long distinctBytes()
    {
        return distinct.bytes();
    }

    void resetDistinct()
    {
        distinct.reset();
    }

    long slowDowns()
    {
        return slowDowns.get();
    }

    @Override
    public Blob getBlob(String container, String name)
    {
        return getBlob(container, name, GetOptions.NONE);
    }

    @Override
    public Blob getBlob(String container, String name, GetOptions options)
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long seen = getsSeen.incrementAndGet();
        int every = slowDownEvery;
        if (every > 0 && seen % every == 0) {
            slowDowns.incrementAndGet();
            throw new HttpResponseException("SlowDown", null, HttpResponse.builder().statusCode(503).message("Slow Down").build());
        }
        FirstByte latency = firstByte;
        long waitMillis = latency.fixedMillis();
        if (latency.tailMillis() > 0 && random.nextDouble() < latency.tailShare()) {
            waitMillis += random.nextLong(latency.tailMillis() + 1);
        }
        SlowGet slow = slowGet;
        if (slow.slows(name)) {
            waitMillis += slow.millis();
        }
        SlowEndpoint endpoint = slowEndpoint;
        if (endpoint.millis() > 0 && random.nextDouble() < endpoint.share()) {
            waitMillis += random.nextLong(endpoint.millis() + 1);
        }
        if (waitMillis > 0) {
            try {
                Thread.sleep(waitMillis);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting before the first byte", e);
            }
        }
        Blob blob = delegate().getBlob(container, name, options);
        if (blob == null) {
            return null;
        }
        getRequests.incrementAndGet();
        GET_LOG.ifPresent(log -> {
            synchronized (log) {
                log.printf("%d %s/%s %s %d%n", System.currentTimeMillis(), container, name, options.getRanges(), blob.getMetadata().getContentMetadata().getContentLength());
                log.flush();
            }
        });
        String object = container + "/" + name;
        long start = rangeStart(container, name, options);
        return sending(blob, bandwidth, getBytes, (offset, length) -> distinct.add(object, start + offset, start + offset + length));
    }

    // where the (one) range asked for starts: "a-b" and "a-" at a, the last n bytes ("-n") at the size less n
    private long rangeStart(String container, String name, GetOptions options)
    {
        List<String> ranges = options.getRanges();
        if (ranges.isEmpty()) {
            return 0;
        }
        if (ranges.size() > 1) {
            throw new IllegalArgumentException("more than one range asked for: " + ranges);
        }
        String range = ranges.getFirst();
        if (range.startsWith("-")) {
            long size = delegate().blobMetadata(container, name).getSize();
            return Math.max(0, size - Long.parseLong(range.substring(1)));
        }
        return Long.parseLong(range.substring(0, range.indexOf('-')));
    }

    /** Where bytes sent lie in the range sent: {@code offset} from its start, {@code length} of them. */
    private interface Sent
    {
        void sent(long offset, long length);
    }

    // the object's bytes, counted in sent as the server reads them to send them (a GET whose client went away stops
    // being sent, and counted, at its next write), no faster than the limiter, if any, lets all reads together send
    // them. A new blob around the same metadata: setting another payload on the provider's blob would close the payload
    // being wrapped
    private static Blob sending(Blob blob, Optional<RateLimiter> limiter, AtomicLong sent, Sent where)
    {
        BlobImpl sending = new BlobImpl(blob.getMetadata());
        sending.setPayload(new DelegatingPayload(blob.getPayload())
        {
            @Override
            public InputStream openStream()
                    throws IOException
            {
                return new SendingInputStream(super.openStream(), limiter, sent, where);
            }

            @Override
            @SuppressWarnings("deprecation")
            public InputStream getInput()
            {
                return new SendingInputStream(super.getInput(), limiter, sent, where);
            }
        });
        sending.setAllHeaders(blob.getAllHeaders());
        return sending;
    }

    private static final class SendingInputStream
            extends FilterInputStream
    {
        // at most this much is read, paid for and counted at a time
        private static final int CHUNK = 64 * 1024;

        private final Optional<RateLimiter> limiter;
        private final AtomicLong sent;
        private final Sent where;
        private long position;

        SendingInputStream(InputStream in, Optional<RateLimiter> limiter, AtomicLong sent, Sent where)
        {
            super(in);
            this.limiter = limiter;
            this.sent = sent;
            this.where = where;
        }

        @Override
        public int read()
                throws IOException
        {
            int value = super.read();
            if (value >= 0) {
                limiter.ifPresent(rate -> rate.acquire(1));
                sent.incrementAndGet();
                where.sent(position, 1);
                position++;
            }
            return value;
        }

        @Override
        public int read(byte[] buffer, int offset, int length)
                throws IOException
        {
            int read = super.read(buffer, offset, Math.min(length, CHUNK));
            if (read > 0) {
                limiter.ifPresent(rate -> rate.acquire(read));
                sent.addAndGet(read);
                where.sent(position, read);
                position += read;
            }
            return read;
        }
    }
}
