package io.overdrive.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * A real HDFS (NameNode + DataNodes) in its own JVM, started from the {@code hdfs-server} module's class path.
 */
public final class HdfsCluster
        implements AutoCloseable
{
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(3);
    private static final Pattern XCEIVER_COUNT = Pattern.compile("\"XceiverCount\"\\s*:\\s*(\\d+)");

    private final ServerControl server;
    private final URI nameNodeUri;
    private final List<String> dataNodes;
    private final List<URI> dataNodeHttpUris;

    private HdfsCluster(ServerControl server, URI nameNodeUri, List<String> dataNodes, List<URI> dataNodeHttpUris)
    {
        this.server = requireNonNull(server, "server is null");
        this.nameNodeUri = requireNonNull(nameNodeUri, "nameNodeUri is null");
        this.dataNodes = List.copyOf(dataNodes);
        this.dataNodeHttpUris = List.copyOf(dataNodeHttpUris);
    }

    public static HdfsCluster start(ProjectLayout layout, Path workDirectory, int dataNodes)
    {
        Path readyFile = workDirectory.resolve("hdfs-ready.properties");
        ServerControl server = ServerControl.start(
                "HDFS",
                "hdfs-server",
                workDirectory,
                List.of("-Xmx768m", "-XX:+UseG1GC", "-Dfile.encoding=UTF-8"),
                layout.hdfsServerClasspath(),
                "io.overdrive.it.hdfs.MiniHdfsServer",
                List.of(workDirectory.resolve("data").toString(), Integer.toString(dataNodes), readyFile.toString()),
                readyFile,
                STARTUP_TIMEOUT);
        String dataNodesHttp = server.ready("datanodes.http", "");
        List<URI> dataNodeHttpUris = dataNodesHttp.isEmpty()
                ? List.of()
                : Stream.of(dataNodesHttp.split(",")).map(URI::create).toList();
        return new HdfsCluster(server, URI.create(server.ready("namenode.uri")), List.of(server.ready("datanodes").split(",")), dataNodeHttpUris);
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
        server.apply("read-delay-ms " + delay.toMillis());
    }

    /**
     * Makes one DataNode (an index into {@link #dataNodes()}) slow: before each block read request it waits a further
     * {@code fixed} plus a random {@code 0..random}; returns once the server has applied it.
     */
    public void setSlowDataNode(int index, Duration fixed, Duration random)
    {
        server.apply("slow-datanode %s %s %s".formatted(index, fixed.toMillis(), random.toMillis()));
    }

    /**
     * Caps what all DataNodes together send to readers at {@code bytesPerSecond} (one limit shared by every block read,
     * so concurrent readers compete for it, as for a data lake's storage bandwidth); returns once the server has
     * applied it.
     */
    public void setReadBandwidth(long bytesPerSecond)
    {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytesPerSecond must be positive: " + bytesPerSecond);
        }
        server.apply("read-bandwidth " + bytesPerSecond);
    }

    /** Lifts the read bandwidth limit, if any. */
    public void clearReadBandwidth()
    {
        server.apply("read-bandwidth off");
    }

    /**
     * Bytes every DataNode has sent to readers since HDFS started (block read packets with their checksums), counted by
     * the server as it sends them: exact at once, where the DataNodes' {@code BytesRead} metric is refreshed only every
     * 10 seconds. Take the difference over a run.
     */
    public long bytesRead()
    {
        return server.answer("bytes-read");
    }

    /** Block read requests every DataNode has served since HDFS started (each waits the read delay, if one is set). */
    public long readRequests()
    {
        return server.answer("read-requests");
    }

    /**
     * The NameNode's client calls since HDFS started, counted by the NameNode as it serves them: exact at once, where its
     * JMX {@code NameNodeActivity} is refreshed only every 10 seconds. Take the difference over a run.
     */
    public NameNodeOps nameNodeOps()
    {
        Matcher matcher = server.answer("namenode-ops", "(\\d+) (\\d+) (\\d+)");
        return new NameNodeOps(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3)));
    }

    /**
     * NameNode calls: {@code getBlockLocations} (each open of a file for reading), {@code getFileInfo} (a file's
     * status: length, modification time, existence) and {@code getListing} (a directory listing, per batch).
     */
    public record NameNodeOps(long opens, long fileInfos, long listings)
    {
        public NameNodeOps minus(NameNodeOps other)
        {
            return new NameNodeOps(opens - other.opens, fileInfos - other.fileInfos, listings - other.listings);
        }

        public long total()
        {
            return opens + fileInfos + listings;
        }
    }

    /** Heals the slow DataNode, if any. */
    public void clearSlowDataNode()
    {
        server.apply("slow-datanode off");
    }

    /** Block transfers the DataNodes serve now (their {@code XceiverCount}s summed): a read stream left open shows here. */
    public long activeTransfers()
    {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long total = 0;
        for (URI dataNode : dataNodeHttpUris()) {
            try {
                String body = client.send(HttpRequest.newBuilder(dataNode.resolve("/jmx?qry=Hadoop:service=DataNode,name=DataNodeInfo")).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
                Matcher matcher = XCEIVER_COUNT.matcher(body);
                if (!matcher.find()) {
                    throw new IllegalStateException("%s reports no XceiverCount: %s".formatted(dataNode, body));
                }
                total += Long.parseLong(matcher.group(1));
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
        return total;
    }

    /** Makes every DataNode fail every block read request (true), or serve them again (false). */
    public void setFailReads(boolean fail)
    {
        server.apply("fail-reads " + (fail ? "on" : "off"));
    }

    public ChildProcess process()
    {
        return server.process();
    }

    @Override
    public void close()
    {
        server.close();
    }
}
