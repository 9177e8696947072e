package io.overdrive.merge.shards;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestShardTopology
{
    @Test
    void testShardsAndReplicas()
    {
        ShardTopology topology = ShardTopology.create(
                List.of("http://a:8080/hive/sales", "https://b:8443/hive/sales"),
                Map.of("shards.replicas.2", "https://b2:8443/hive/sales, https://b3:8443/hive/sales", "shards.uris", "ignored"));
        assertThat(topology.shards()).hasSize(2);
        assertThat(topology.shards().get(0).replicas()).containsExactly(new ShardUri(URI.create("http://a:8080"), "hive", Optional.of("sales")));
        assertThat(topology.shards().get(1).number()).isEqualTo(2);
        assertThat(topology.shards().get(1).replicas()).extracting(ShardUri::server)
                .containsExactly(URI.create("https://b:8443"), URI.create("https://b2:8443"), URI.create("https://b3:8443"));
        assertThat(topology.fixedSchema()).contains("sales");
        assertThat(topology.shards().get(1).describe()).isEqualTo("shard 2 (https://b:8443/hive/sales)");
    }

    @Test
    void testCatalogWithoutSchema()
    {
        ShardTopology topology = ShardTopology.create(List.of("http://a:8080/hive", "http://b:8080/memory"), Map.of());
        assertThat(topology.fixedSchema()).isEmpty();
        assertThat(topology.shards().get(1).replicas().getFirst().catalog()).isEqualTo("memory");
    }

    @Test
    void testReplicaPropertiesAreSeparated()
    {
        assertThat(ShardTopology.withoutReplicas(Map.of("shards.uris", "x", "shards.replicas.1", "y", "merge.fifo", "true")))
                .isEqualTo(Map.of("shards.uris", "x", "merge.fifo", "true"));
    }

    @Test
    void testPasswordNeedsHttpsOnEveryReplica()
    {
        ShardTopology.create(List.of("https://a:8443/c"), Map.of("shards.replicas.1", "https://b:8443/c")).requireHttps();
        assertThatThrownBy(() -> ShardTopology.create(List.of("https://a:8443/c"), Map.of("shards.replicas.1", "http://b:8080/c")).requireHttps())
                .hasMessage("shards.password needs https:// shard URIs (Trino refuses passwords over http), but shard 1 has replica http://b:8080; use https:// in shards.uris and shards.replicas.<n>");
    }

    @Test
    void testErrorsNameThePropertyAndTheFix()
    {
        assertThatThrownBy(() -> ShardTopology.create(List.of("a:8080/hive"), Map.of()))
                .hasMessage("shards.uris: 'a:8080/hive' is not a shard URI; write http(s)://host:port/catalog[/schema]");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a/hive"), Map.of()))
                .hasMessageContaining("'http://a/hive' is not a shard URI");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a:8080/"), Map.of()))
                .hasMessageContaining("is not a shard URI");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a:8080/c/s/t"), Map.of()))
                .hasMessageContaining("is not a shard URI");
        assertThatThrownBy(() -> ShardTopology.create(List.of("ftp://a:8080/c"), Map.of()))
                .hasMessageContaining("is not a shard URI");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a:8080/c"), Map.of("shards.replicas.2", "http://b:8080/c")))
                .hasMessage("shards.replicas.2: '2' is not a shard number; shards are numbered 1..1 in the order of shards.uris");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a:8080/c"), Map.of("shards.replicas.first", "http://b:8080/c")))
                .hasMessageContaining("'first' is not a shard number");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a:8080/c/s"), Map.of("shards.replicas.1", "http://b:8080/other/s")))
                .hasMessage("shards.replicas.1: replica http://b:8080/other/s names catalog/schema 'other/s' but shard 1 is 'c/s' in shards.uris; replicas hold the same tables, so use the same catalog and schema");
        assertThatThrownBy(() -> ShardTopology.create(List.of("http://a:8080/c/s1", "http://b:8080/c/s2"), Map.of()))
                .hasMessageContaining("every shard must name the same schema (or none)");
    }
}
