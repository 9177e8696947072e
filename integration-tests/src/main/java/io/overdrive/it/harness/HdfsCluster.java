package io.overdrive.it.harness;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A real HDFS (NameNode + DataNodes) in its own JVM, started from the {@code hdfs-server} module's class path.
 */
public final class HdfsCluster
        implements AutoCloseable
{
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(3);

    private final ChildProcess process;
    private final URI nameNodeUri;
    private final List<String> dataNodes;
    private final List<URI> dataNodeHttpUris;

    private HdfsCluster(ChildProcess process, URI nameNodeUri, List<String> dataNodes, List<URI> dataNodeHttpUris)
    {
        this.process = requireNonNull(process, "process is null");
        this.nameNodeUri = requireNonNull(nameNodeUri, "nameNodeUri is null");
        this.dataNodes = List.copyOf(dataNodes);
        this.dataNodeHttpUris = List.copyOf(dataNodeHttpUris);
    }

    public static HdfsCluster start(ProjectLayout layout, Path workDirectory, int dataNodes)
    {
        Path readyFile = workDirectory.resolve("hdfs-ready.properties");
        try {
            Files.createDirectories(workDirectory);
            Files.deleteIfExists(readyFile);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChildProcess process = ChildProcess.startJava(
                "hdfs-server",
                workDirectory,
                List.of("-Xmx768m", "-XX:+UseG1GC", "-Dfile.encoding=UTF-8"),
                layout.hdfsServerClasspath(),
                "io.overdrive.it.hdfs.MiniHdfsServer",
                List.of(workDirectory.resolve("data").toString(), Integer.toString(dataNodes), readyFile.toString()));
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (!Files.exists(readyFile)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("HDFS server exited during startup; log %s:\n%s".formatted(process.logFile(), process.logTail(40)));
            }
            if (System.nanoTime() > deadline) {
                process.close();
                throw new IllegalStateException("HDFS did not start within %s; log %s:\n%s".formatted(STARTUP_TIMEOUT, process.logFile(), process.logTail(40)));
            }
            sleepUninterruptibly(200, MILLISECONDS);
        }
        Properties ready = new Properties();
        try (Reader reader = Files.newBufferedReader(readyFile)) {
            ready.load(reader);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<URI> dataNodeHttpUris = ready.getProperty("datanodes.http", "").isEmpty()
                ? List.of()
                : Stream.of(ready.getProperty("datanodes.http").split(",")).map(URI::create).toList();
        return new HdfsCluster(process, URI.create(ready.getProperty("namenode.uri")), List.of(ready.getProperty("datanodes").split(",")), dataNodeHttpUris);
    }

    /** {@code hdfs://127.0.0.1:port} */
    public URI nameNodeUri()
    {
        return nameNodeUri;
    }

    public String uri(String path)
    {
        return nameNodeUri + (path.startsWith("/") ? path : "/" + path);
    }

    public List<String> dataNodes()
    {
        return dataNodes;
    }

    /** Each DataNode's HTTP info server ({@code http://127.0.0.1:port}), whose {@code /jmx} shows its metrics. */
    public List<URI> dataNodeHttpUris()
    {
        return dataNodeHttpUris;
    }

    /**
     * Makes every DataNode wait this long before serving each block read request (0 turns it off), to mimic remote
     * storage latency; returns once the server has applied it.
     */
    public void setReadDelay(Duration delay)
    {
        String applied = "read delay set to " + delay.toMillis() + " ms";
        process.sendLine("read-delay-ms " + delay.toMillis());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!process.logTail(20).contains(applied)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("HDFS did not apply the read delay; log %s:\n%s".formatted(process.logFile(), process.logTail(40)));
            }
            sleepUninterruptibly(50, MILLISECONDS);
        }
    }

    public ChildProcess process()
    {
        return process;
    }

    @Override
    public void close()
    {
        process.close();
    }
}
