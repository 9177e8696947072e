package io.overdrive.it.containers;

import io.overdrive.it.ScenarioCluster;
import io.overdrive.it.harness.OpenMetrics;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * {@code docker/compose.yaml} as its documentation says to start it (Debian's {@code docker-compose}), one query
 * through each of its catalogs, then taken down with its volumes.
 */
@TestInstance(PER_CLASS)
class TestComposeCluster
{
    private static final String PROJECT = "overdrive-compose-test";
    private static final URI COORDINATOR = URI.create("http://127.0.0.1:8080");
    // one result of "count by (instance, role) (...)": {"metric":{"instance":"...","role":"..."},"value":[<time>,"<count>"]}
    private static final Pattern COUNT_PER_INSTANCE = Pattern.compile("\\{\"metric\":\\{[^}]*\"instance\":\"127\\.0\\.0\\.1:808[0-2]\"[^}]*},\"value\":\\[[0-9.]+,\"[1-9][0-9]*\"]}");
    private static final List<URI> WORKERS = List.of(URI.create("http://127.0.0.1:8081"), URI.create("http://127.0.0.1:8082"));

    private Path composeFile;
    private Path log;

    @BeforeAll
    void up()
    {
        DockerImages.require();
        ProjectLayout layout = ProjectLayout.fromSystemProperty();
        composeFile = layout.root().resolve("docker/compose.yaml");
        log = layout.root().resolve("integration-tests/target/docker-compose.log");
        compose("down", "-v");
        long start = System.nanoTime();
        compose("up", "-d");
        awaitActiveNodes(3);
        System.out.printf("[overdrive-it] docker/compose.yaml up (HDFS, coordinator + 2 workers) in %.1fs%n", (System.nanoTime() - start) / 1e9);
    }

    @AfterAll
    void down()
    {
        if (composeFile != null) {
            compose("down", "-v");
        }
    }

    @Test
    void everyCatalogAnswers()
            throws SQLException
    {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            assertThat(TrinoProcessCluster.query(connection, "SELECT count(*) FROM tpch.tiny.nation")).containsExactly(List.of(25L));
            statement.execute("CREATE SCHEMA hive.compose");
            statement.execute("CREATE TABLE hive.compose.orders WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.orders");
            String sql = "SELECT orderstatus, count(*), sum(totalprice) FROM %s.compose.orders GROUP BY 1 ORDER BY 1";
            List<List<Object>> stock = TrinoProcessCluster.query(connection, sql.formatted("hive"));
            assertThat(stock).hasSize(3);
            assertThat(TrinoProcessCluster.query(connection, sql.formatted("overdrive"))).isEqualTo(stock);
            assertThat(TrinoProcessCluster.query(connection, "SELECT connector_name FROM system.metadata.catalogs WHERE catalog_name = 'overdrive'"))
                    .containsExactly(List.of("overdrive_hive"));
        }
        // the read went through the workers' page caches, as their /metrics show
        double remote = 0;
        for (URI worker : WORKERS) {
            remote += OpenMetrics.value(OpenMetrics.scrape(worker), "JMX_io_overdrive_cache_page_NAME_overdrive_TYPE_PageCacheStats_ATTRIBUTE_BytesFromRemote").orElseThrow();
        }
        assertThat(remote).isPositive();
    }

    @Test
    void prometheusScrapesEveryNodeWithTheShippedConfiguration()
            throws Exception
    {
        Path prometheus = Stream.of(System.getenv("PATH").split(":")).map(directory -> Path.of(directory, "prometheus")).filter(Files::isExecutable).findFirst()
                .orElse(null);
        if (prometheus == null) {
            DockerImages.cannotRun("prometheus is not installed (docker/images.sh daemon installs it as root on Debian)");
        }
        int port = TrinoProcessCluster.freePort();
        Path data = log.resolveSibling("prometheus-data");
        TrinoProcessCluster.deleteRecursively(data);
        Process server = new ProcessBuilder(prometheus.toString(), "--config.file=" + composeFile.resolveSibling("prometheus.yml"),
                "--storage.tsdb.path=" + data, "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(log.resolveSibling("prometheus.log").toFile())
                .start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            URI query = URI.create("http://127.0.0.1:%s/api/v1/query?query=%s".formatted(port,
                    URLEncoder.encode("count by (instance, role) ({__name__=~\"JMX_io_overdrive_.*\"})", UTF_8)));
            String answer = "";
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (System.nanoTime() < deadline) {
                try {
                    answer = client.send(HttpRequest.newBuilder(query).build(), HttpResponse.BodyHandlers.ofString()).body();
                    if (COUNT_PER_INSTANCE.matcher(answer).results().count() == 3) {
                        break;
                    }
                }
                catch (IOException ignored) {
                    // Prometheus is starting
                }
                sleepUninterruptibly(1000, MILLISECONDS);
            }
            // every node's Overdrive series, as Prometheus stored them (the coordinator's placement, the workers' cache,
            // hedging and shared scans)
            assertThat(answer).contains("\"instance\":\"127.0.0.1:8080\"", "\"instance\":\"127.0.0.1:8081\"", "\"instance\":\"127.0.0.1:8082\"");
            assertThat(COUNT_PER_INSTANCE.matcher(answer).results().count()).as(answer).isEqualTo(3);
        }
        finally {
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static Connection connect()
            throws SQLException
    {
        return DriverManager.getConnection("jdbc:trino://" + COORDINATOR.getAuthority(), "overdrive", null);
    }

    private void awaitActiveNodes(long count)
    {
        if (!ScenarioCluster.awaitActiveNodes(TestComposeCluster::connect, count, Duration.ofMinutes(3))) {
            compose("logs", "--tail=40");
            throw new AssertionError("docker/compose.yaml: Trino did not see %s active nodes within 3 minutes; the containers' logs end in %s".formatted(count, log));
        }
    }

    private void compose(String... arguments)
    {
        List<String> command = new ArrayList<>(List.of("docker-compose", "-f", composeFile.toString(), "-p", PROJECT));
        command.addAll(List.of(arguments));
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("%s did not finish within 5 minutes (log: %s)".formatted(String.join(" ", command), log));
            }
            assertThat(process.exitValue()).as("%s (log: %s)", String.join(" ", command), log).isZero();
        }
        catch (IOException e) {
            throw new AssertionError("%s: %s".formatted(String.join(" ", command), e.getMessage()), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
