package io.overdrive.it.s3;

import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;
import org.jclouds.http.HttpResponse;
import org.jclouds.http.HttpResponseException;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's object reads, made to behave like a remote object store's: a first-byte latency with a heavy tail,
 * every n-th read slow or throttled (503 Slow Down), and counts of the reads and bytes served. Everything else passes
 * through unchanged.
 */
final class ObjectStoreBehaviour
        extends ForwardingBlobStore
{
    private final AtomicLong getRequests = new AtomicLong();
    private final AtomicLong getBytes = new AtomicLong();
    private final AtomicLong slowDowns = new AtomicLong();
    private volatile FirstByte firstByte = new FirstByte(0, 0, 0);
    // every n-th GET is refused (0: none), counted over all GETs
    private volatile int slowDownEvery;
    private final AtomicLong getsSeen = new AtomicLong();
    // every n-th GET waits this much more before its first byte (0: none), counted over all GETs
    private volatile SlowGet slowGet = new SlowGet(0, 0);

    private record SlowGet(int every, long millis) {}

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

    void setSlowGet(int every, long millis)
    {
        if (every < 0 || millis < 0) {
            throw new IllegalArgumentException("slow-get needs n >= 0 and a wait >= 0");
        }
        slowGet = new SlowGet(every, millis);
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
        if (slow.every() > 0 && seen % slow.every() == 0) {
            waitMillis += slow.millis();
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
        if (blob != null) {
            getRequests.incrementAndGet();
            Long length = blob.getPayload().getContentMetadata().getContentLength();
            getBytes.addAndGet(length == null ? 0 : length);
        }
        return blob;
    }
}
