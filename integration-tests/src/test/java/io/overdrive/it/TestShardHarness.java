package io.overdrive.it;

import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.ShardClusters;
import io.overdrive.it.harness.ShardClusters.ShardRange;
import io.overdrive.it.harness.SlowProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The harness of the {@code overdrive_shards} tests and benchmark: shard clusters (single-node Trino servers with the
 * stock {@code memory} and {@code tpch} connectors), a TPC-H table split over them by key range, and the slow/refusing
 * TCP proxy in front of a shard, through which Trino's client protocol (JDBC) still works.
 */
@TestInstance(PER_CLASS)
class TestShardHarness
{
    private ShardClusters shards;

    @BeforeAll
    void startShards()
    {
        shards = ShardClusters.builder(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("shard-harness"))
                .shards(2)
                .heapSize("768m")
                .start();
    }

    @AfterAll
    void stopShards()
    {
        if (shards != null) {
            shards.close();
        }
    }

    @Test
    void memoryConnector()
    {
        assertThat(shards.execute(1, "CREATE TABLE memory.default.t AS SELECT * FROM tpch.tiny.nation")).isEqualTo(25);
        assertThat(shards.query(1, "SELECT count(*), sum(nationkey) FROM memory.default.t")).containsExactly(List.of(25L, 300L));
        assertThat(shards.uri(2, "memory", "shard")).isEqualTo(shards.httpUri(2) + "/memory/shard");
    }

    @Test
    void splitByKeyRange()
    {
        List<ShardRange> ranges = shards.loadSplit("tpch.tiny.orders", "orderkey", "memory.shard.orders");
        List<Object> source = shards.query(1, "SELECT count(*), min(orderkey), max(orderkey), sum(orderkey), sum(custkey) FROM tpch.tiny.orders").getFirst();
        assertThat(ranges).hasSize(2);
        // contiguous, disjoint, covering [min, max]
        assertThat(ranges.getFirst().lowerInclusive()).isEqualTo(source.get(1));
        assertThat(ranges.getFirst().upperExclusive()).isEqualTo(ranges.get(1).lowerInclusive());
        assertThat(ranges.getLast().upperExclusive()).isEqualTo((long) source.get(2) + 1);

        long rows = 0;
        long orderkeys = 0;
        long custkeys = 0;
        for (ShardRange range : ranges) {
            List<Object> part = shards.query(range.shard(), "SELECT count(*), min(orderkey), max(orderkey), sum(orderkey), sum(custkey) FROM memory.shard.orders").getFirst();
            assertThat(part.get(0)).isEqualTo(range.rows());
            assertThat((long) part.get(0)).isPositive();
            assertThat((long) part.get(1)).isGreaterThanOrEqualTo(range.lowerInclusive());
            assertThat((long) part.get(2)).isLessThan(range.upperExclusive());
            rows += (long) part.get(0);
            orderkeys += (long) part.get(3);
            custkeys += (long) part.get(4);
        }
        assertThat(List.<Object>of(rows, orderkeys, custkeys)).isEqualTo(List.of(source.get(0), source.get(3), source.get(4)));

        // the same table on a subset of the shards: all of it on shard 2, nothing on shard 1
        List<ShardRange> one = shards.loadSplit("tpch.tiny.orders", "orderkey", "memory.shard.orders_on_2", List.of(2));
        assertThat(one).singleElement().satisfies(range -> assertThat(range.rows()).isEqualTo(source.get(0)));
        assertThat(shards.query(1, "SELECT count(*) FROM memory.information_schema.tables WHERE table_name = 'orders_on_2'")).containsExactly(List.of(0L));
    }

    @Test
    void proxyPassesTrinoProtocolThrough()
            throws Exception
    {
        try (SlowProxy proxy = SlowProxy.start(shards.httpUri(1))) {
            assertThat(selectOne(proxy)).isEqualTo(1);
            assertThat(proxy.acceptedConnections()).isPositive();

            // the Host header is the proxy's, so the server's nextUri points back at the proxy
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(proxy.httpUri().resolve("/v1/statement"))
                    .header("X-Trino-User", "overdrive")
                    .POST(HttpRequest.BodyPublishers.ofString("SELECT 1"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"nextUri\":\"" + proxy.httpUri());

            // a delay on every response: SELECT 1 takes several round trips
            long undelayed = timeSelectOne(proxy);
            proxy.setDelay(Duration.ofMillis(400));
            long delayed = timeSelectOne(proxy);
            assertThat(delayed).isGreaterThanOrEqualTo(2 * 400);
            proxy.setDelay(Duration.ZERO);
            System.out.printf("[overdrive-it] SELECT 1 through the proxy: %d ms, with 400 ms delay: %d ms%n", undelayed, delayed);

            proxy.setRefusing(true);
            assertThatThrownBy(() -> selectOne(proxy)).isInstanceOf(SQLException.class);
            assertThat(proxy.refusedConnections()).isPositive();
            proxy.setRefusing(false);
            assertThat(selectOne(proxy)).isEqualTo(1);
        }
    }

    private static long timeSelectOne(SlowProxy proxy)
            throws SQLException
    {
        long start = System.nanoTime();
        assertThat(selectOne(proxy)).isEqualTo(1);
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static int selectOne(SlowProxy proxy)
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", "overdrive");
        try (Connection connection = DriverManager.getConnection(proxy.jdbcUrl(), properties);
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery("SELECT 1")) {
            assertThat(resultSet.next()).isTrue();
            return resultSet.getInt(1);
        }
    }
}
