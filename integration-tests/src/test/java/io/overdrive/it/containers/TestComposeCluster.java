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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * {@code docker/compose.yaml} as its documentation says to start it (Debian's {@code docker-compose}), one query
 * through each of its catalogs, tables on its HDFS and on its S3 server, then taken down with its volumes.
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
        System.out.printf("[overdrive-it] docker/compose.yaml up (HDFS, S3, coordinator + 2 workers) in %.1fs%n", (System.nanoTime() - start) / 1e9);
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

    /**
     * docs/install.md's catalog file and config.properties line are what this cluster runs, and its check, run as the
     * guide says (a query twice, then its SQL), shows the second run answered from a worker's cache.
     */
    @Test
    void theInstallGuideIsWhatThisClusterRuns()
            throws Exception
    {
        Path root = composeFile.getParent().getParent();
        String guide = Files.readString(root.resolve("docs/install.md"));
        assertThat(block(guide, "docker/catalog/overdrive.properties"))
                .as("docs/install.md shows docker/catalog/overdrive.properties as it is")
                .isEqualTo(Files.readString(root.resolve("docker/catalog/overdrive.properties")));
        String entrypoint = Files.readString(root.resolve("docker/trino/entrypoint.sh"));
        for (String line : block(guide, "etc/config.properties").strip().split("\n")) {
            assertThat(entrypoint).as("docker/trino/entrypoint.sh writes docs/install.md's config.properties line").contains("echo \"" + line + "\"");
        }
        String check = block(guide, "check").strip().replaceFirst(";$", "");

        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS hive.guide");
            statement.execute("CREATE TABLE hive.guide.customer WITH (format = 'PARQUET') AS SELECT * FROM tpch.tiny.customer");
            String query = "SELECT mktsegment, count(*), sum(acctbal) FROM overdrive.guide.customer GROUP BY 1 ORDER BY 1";
            List<List<Object>> stock = TrinoProcessCluster.query(connection, query.replace("overdrive.", "hive."));
            assertThat(TrinoProcessCluster.query(connection, query)).isEqualTo(stock);
            Map<String, Double> before = pageCacheTotals(TrinoProcessCluster.query(connection, check));
            assertThat(TrinoProcessCluster.query(connection, query)).isEqualTo(stock);
            Map<String, Double> after = pageCacheTotals(TrinoProcessCluster.query(connection, check));
            // the second run read its file from a worker's cache, not from storage
            assertThat(after.get("Hits")).as("Hits over the workers, before %s, after %s", before, after).isGreaterThan(before.get("Hits"));
            assertThat(after.get("BytesFromCache")).as("BytesFromCache, before %s, after %s", before, after).isGreaterThan(before.get("BytesFromCache"));
            assertThat(after.get("BytesFromRemote")).as("BytesFromRemote, before %s, after %s", before, after).isEqualTo(before.get("BytesFromRemote"));
            statement.execute("DROP TABLE hive.guide.customer");
            statement.execute("DROP SCHEMA hive.guide");
        }
    }

    // the fenced block that follows "<!-- name -->" in a Markdown text, without its fences
    private static String block(String markdown, String name)
    {
        Matcher matcher = Pattern.compile("<!-- " + Pattern.quote(name) + " -->\n```[a-z]*\n(.*?)```\n", Pattern.DOTALL).matcher(markdown);
        assertThat(matcher.find()).as("docs/install.md has a block marked <!-- %s -->", name).isTrue();
        return matcher.group(1);
    }

    // the check's rows (node_id, attribute, value) summed over the nodes, per attribute
    private static Map<String, Double> pageCacheTotals(List<List<Object>> rows)
    {
        Map<String, Double> totals = new TreeMap<>();
        for (List<Object> row : rows) {
            totals.merge((String) row.get(1), ((Number) row.get(2)).doubleValue(), Double::sum);
        }
        assertThat(totals).as("the check's rows %s", rows).containsOnlyKeys("Hits", "BytesFromCache", "BytesFromRemote");
        return totals;
    }

    @Test
    void tablesOnTheS3Service()
            throws SQLException
    {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // the metastore stays on HDFS; the tables live in the S3 service's bucket (external locations: Trino's file
            // metastore reads a managed table from under its own directory), written by both catalogs
            statement.execute("CREATE SCHEMA hive.compose_s3");
            statement.execute("CREATE TABLE hive.compose_s3.orders WITH (format = 'PARQUET', external_location = 's3://lake/compose_s3/orders') AS SELECT * FROM tpch.tiny.orders");
            statement.execute("CREATE TABLE overdrive.compose_s3.lineitem WITH (format = 'ORC', external_location = 's3://lake/compose_s3/lineitem') " +
                    "AS SELECT orderkey, quantity, extendedprice, discount, returnflag FROM tpch.tiny.lineitem WHERE orderkey < 3000");
            statement.execute("INSERT INTO overdrive.compose_s3.lineitem " +
                    "SELECT orderkey, quantity, extendedprice, discount, returnflag FROM tpch.tiny.lineitem WHERE orderkey BETWEEN 3000 AND 5999");
            assertThat(TrinoProcessCluster.query(connection, "SELECT DISTINCT regexp_extract(\"$path\", '^s3://lake/compose_s3/[a-z]+/') FROM " +
                    "(SELECT \"$path\" FROM hive.compose_s3.orders UNION ALL SELECT \"$path\" FROM hive.compose_s3.lineitem) ORDER BY 1"))
                    .containsExactly(List.of("s3://lake/compose_s3/lineitem/"), List.of("s3://lake/compose_s3/orders/"));

            // (the files' paths were read through stock hive, so that overdrive_hive's first read of them is the join's)
            double remoteBefore = workersSum("JMX_io_overdrive_cache_page_NAME_overdrive_TYPE_PageCacheStats_ATTRIBUTE_BytesFromRemote");
            String join = "SELECT o.orderstatus, l.returnflag, count(*), sum(l.extendedprice * (1 - l.discount)), max(o.comment) " +
                    "FROM %1$s.compose_s3.orders o JOIN %1$s.compose_s3.lineitem l ON o.orderkey = l.orderkey GROUP BY 1, 2 ORDER BY 1, 2";
            List<List<Object>> stock = TrinoProcessCluster.query(connection, join.formatted("hive"));
            assertThat(stock).hasSizeGreaterThan(3);
            assertThat(TrinoProcessCluster.query(connection, join.formatted("overdrive"))).isEqualTo(stock);
            // overdrive_hive's cold read came from S3 through the workers' page caches
            assertThat(workersSum("JMX_io_overdrive_cache_page_NAME_overdrive_TYPE_PageCacheStats_ATTRIBUTE_BytesFromRemote")).isGreaterThan(remoteBefore);

            // rows inserted through stock hive, a new file beside the cached ones, are in overdrive_hive's next answer
            String flags = "SELECT returnflag, count(*), sum(quantity) FROM %s.compose_s3.lineitem GROUP BY 1 ORDER BY 1";
            List<List<Object>> before = TrinoProcessCluster.query(connection, flags.formatted("overdrive"));
            statement.execute("INSERT INTO hive.compose_s3.lineitem SELECT orderkey, quantity, extendedprice, discount, 'X' FROM tpch.tiny.lineitem WHERE orderkey < 100");
            List<List<Object>> after = TrinoProcessCluster.query(connection, flags.formatted("hive"));
            assertThat(after).hasSize(before.size() + 1).containsAll(before);
            assertThat(TrinoProcessCluster.query(connection, flags.formatted("overdrive"))).isEqualTo(after);
            statement.execute("DROP TABLE overdrive.compose_s3.lineitem");
            statement.execute("DROP TABLE hive.compose_s3.orders");
            statement.execute("DROP SCHEMA hive.compose_s3");
        }
    }

    private static double workersSum(String metric)
    {
        double sum = 0;
        for (URI worker : WORKERS) {
            sum += OpenMetrics.value(OpenMetrics.scrape(worker), metric).orElseThrow();
        }
        return sum;
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

            // docker/monitoring/overdrive-alerts.yml, loaded by that configuration, records the workers' cache series
            // with a catalog label, from which its alerts are computed
            URI recorded = URI.create("http://127.0.0.1:%s/api/v1/query?query=%s".formatted(port,
                    URLEncoder.encode("count by (instance) (overdrive:PageCacheStats_BytesFromRemote{catalog=\"overdrive\"})", UTF_8)));
            Pattern workerCounted = Pattern.compile("\"instance\":\"127\\.0\\.0\\.1:808[12]\"");
            deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (System.nanoTime() < deadline) {
                answer = client.send(HttpRequest.newBuilder(recorded).build(), HttpResponse.BodyHandlers.ofString()).body();
                if (workerCounted.matcher(answer).results().count() == WORKERS.size()) {
                    break;
                }
                sleepUninterruptibly(1000, MILLISECONDS);
            }
            assertThat(workerCounted.matcher(answer).results().count()).as(answer).isEqualTo(WORKERS.size());
            String rules = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:%s/api/v1/rules?type=alert".formatted(port))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(rules).contains("\"status\":\"success\"", "\"type\":\"alerting\"").doesNotContain("\"health\":\"err\"");
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
