package io.overdrive.it.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Bytes the HDFS DataNodes have served to readers: the sum of their {@code DataNodeActivity-*} {@code BytesRead}
 * counters, read over JMX-as-JSON on their HTTP info ports. The DataNodes of the test HDFS share one JVM, so every
 * port lists every DataNode's bean: beans are counted once by name.
 * <p>
 * Hadoop's metrics system caches a source's JMX attributes for its snapshot period (10 s by default) from the last
 * refresh, so a read waits until that long after the previous one, which then refreshes the values. The counters
 * include the checksums sent with the data (4 bytes per 512).
 */
final class DataNodeMetrics
{
    private static final String QUERY = "/jmx?qry=Hadoop:service=DataNode,name=DataNodeActivity-*";

    private final List<URI> dataNodes;
    private final Duration refreshWait;
    // HTTP/1.1: Hadoop's Jetty answers 400 to the h2c upgrade the JDK client tries by default
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper mapper = new ObjectMapper();
    private long lastReadNanos = System.nanoTime();

    DataNodeMetrics(List<URI> dataNodes, Duration refreshWait)
    {
        this.dataNodes = List.copyOf(requireNonNull(dataNodes, "dataNodes is null"));
        this.refreshWait = requireNonNull(refreshWait, "refreshWait is null");
        if (dataNodes.isEmpty()) {
            throw new IllegalArgumentException("HDFS did not report its DataNodes' HTTP ports (datanodes.http): rebuild integration-tests/hdfs-server");
        }
    }

    long bytesRead()
    {
        long wait = refreshWait.toNanos() - (System.nanoTime() - lastReadNanos);
        if (wait > 0) {
            sleepUninterruptibly(wait / 1_000_000 + 1, MILLISECONDS);
        }
        try {
            Map<String, Long> byBean = new HashMap<>();
            for (URI dataNode : dataNodes) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(dataNode.resolve(QUERY)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("%s answered %s: %s".formatted(dataNode, response.statusCode(), response.body()));
                }
                for (JsonNode bean : mapper.readTree(response.body()).path("beans")) {
                    byBean.put(bean.path("name").asText(), bean.path("BytesRead").asLong());
                }
            }
            if (byBean.size() < dataNodes.size()) {
                throw new IllegalStateException("expected %s DataNodeActivity beans, found %s".formatted(dataNodes.size(), byBean.keySet()));
            }
            return byBean.values().stream().mapToLong(Long::longValue).sum();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
        finally {
            lastReadNanos = System.nanoTime();
        }
    }
}
