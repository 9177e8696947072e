package io.overdrive.it.harness;

import com.google.common.collect.ImmutableMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.io.MoreFiles.deleteRecursively;
import static com.google.common.io.RecursiveDeleteOption.ALLOW_INSECURE;
import static java.util.Objects.requireNonNull;

/**
 * A real S3 server (s3proxy over the local file system) in its own JVM, started from the {@code s3-server} module's
 * class path, with one bucket. It can be made to answer like a remote object store (first-byte latency with a tail,
 * throttling), and counts the object reads and bytes it serves.
 */
public final class S3Storage
        implements AutoCloseable
{
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);

    private final ServerControl server;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final String bucket;

    private S3Storage(ServerControl server)
    {
        this.server = requireNonNull(server, "server is null");
        this.endpoint = URI.create(server.ready("endpoint"));
        this.accessKey = server.ready("access-key");
        this.secretKey = server.ready("secret-key");
        this.bucket = server.ready("bucket");
    }

    public static S3Storage start(ProjectLayout layout, Path workDirectory, String bucket)
    {
        Path data = workDirectory.resolve("data");
        // the objects of an earlier run are not this run's
        if (Files.exists(data)) {
            try {
                deleteRecursively(data, ALLOW_INSECURE);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Path readyFile = workDirectory.resolve("s3-ready.properties");
        return new S3Storage(ServerControl.start(
                "The S3 server",
                "s3-server",
                workDirectory,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dfile.encoding=UTF-8"),
                layout.s3ServerClasspath(),
                "io.overdrive.it.s3.S3Server",
                List.of(data.toString(), bucket, readyFile.toString()),
                readyFile,
                STARTUP_TIMEOUT));
    }

    /** {@code http://127.0.0.1:port} */
    public URI endpoint()
    {
        return endpoint;
    }

    public String bucket()
    {
        return bucket;
    }

    /** {@code s3://<bucket>/<path>} */
    public String uri(String path)
    {
        return "s3://" + bucket + (path.startsWith("/") ? path : "/" + path);
    }

    /**
     * The catalog properties of Trino's native S3 file system for this server, as an operator sets them for an
     * S3-compatible store: path-style access, its endpoint, static keys.
     */
    public Map<String, String> catalogProperties()
    {
        return catalogProperties(endpoint, accessKey, secretKey);
    }

    /**
     * The catalog properties that read an S3 server at {@code endpoint} (such as the S3 image's container) through Trino's
     * native S3 file system, signing with the given keys: path-style access, region {@code us-east-1}.
     */
    public static Map<String, String> catalogProperties(URI endpoint, String accessKey, String secretKey)
    {
        return ImmutableMap.<String, String>builder()
                .put("fs.native-s3.enabled", "true")
                .put("s3.endpoint", endpoint.toString())
                .put("s3.region", "us-east-1")
                .put("s3.path-style-access", "true")
                .put("s3.aws-access-key", accessKey)
                .put("s3.aws-secret-key", secretKey)
                .buildOrThrow();
    }

    /**
     * Makes every object read wait {@code fixed} before its first byte, and a share {@code tailShare} of them a further
     * random 0 to {@code tail}; returns once the server has applied it. Zeros turn it off.
     */
    public void setFirstByteLatency(Duration fixed, Duration tail, double tailShare)
    {
        server.apply("first-byte %s %s %s".formatted(fixed.toMillis(), tail.toMillis(), tailShare));
    }

    /**
     * Makes every {@code n}-th read (0: none) of the objects whose key contains {@code keyPart}, counted from now on,
     * wait a further {@code wait} before its first byte; returns once the server has applied it. Counting only a
     * table's own objects keeps which reads are slow independent of the metastore's and other tables' requests.
     */
    public void setSlowGet(int n, Duration wait, String keyPart)
    {
        checkArgument(!keyPart.isEmpty() && !keyPart.contains(" "), "key part must be non-empty and without spaces: %s", keyPart);
        server.apply(n == 0 ? "slow-get off" : "slow-get %s %s %s".formatted(n, wait.toMillis(), keyPart));
    }

    /**
     * Makes a share {@code share} (0 to 1) of the object reads reach a slow endpoint, where they wait a further random
     * 0 to {@code wait} before their first byte (0 and zero: none); returns once the server has applied it.
     */
    public void setSlowEndpoint(double share, Duration wait)
    {
        server.apply(share == 0 || wait.isZero() ? "slow-endpoint off" : "slow-endpoint %s %s".formatted(share, wait.toMillis()));
    }

    /** Limits the object bytes all reads together send per second (0: unlimited); returns once the server has applied it. */
    public void setBandwidth(long bytesPerSecond)
    {
        server.apply(bytesPerSecond == 0 ? "bandwidth off" : "bandwidth " + bytesPerSecond);
    }

    /** Refuses every {@code n}-th object read with 503 Slow Down (0: none); returns once the server has applied it. */
    public void setSlowDownEvery(int n)
    {
        server.apply(n == 0 ? "slow-down off" : "slow-down " + n);
    }

    /** Object reads (GETs, each range request one) served since the server started. */
    public long getRequests()
    {
        return server.answer("get-requests");
    }

    /** Object bytes those reads sent. */
    public long getBytes()
    {
        return server.answer("get-bytes");
    }

    /**
     * The distinct object bytes sent since the server started or since {@link #resetDistinctBytes()}: each byte of each
     * object once, however many reads sent it.
     */
    public long distinctBytes()
    {
        return server.answer("distinct-bytes");
    }

    /** Starts the distinct bytes from zero; returns once the server has done it. */
    public void resetDistinctBytes()
    {
        server.apply("distinct-reset");
    }

    /** Object reads refused with 503 Slow Down. */
    public long slowDowns()
    {
        return server.answer("slow-downs");
    }

    @Override
    public void close()
    {
        server.close();
    }
}
