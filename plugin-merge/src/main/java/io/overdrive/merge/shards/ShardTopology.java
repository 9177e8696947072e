package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.google.common.base.Splitter;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * The catalog's shards, from {@code shards.uris} and the {@code shards.replicas.<n>} properties (the other replicas of
 * shard n, counting from 1). All replicas must name the same remote catalog and schema as their shard's first URI:
 * replicas hold the same data.
 */
public record ShardTopology(List<Shard> shards)
{
    static final String REPLICAS_PREFIX = "shards.replicas.";
    private static final Pattern REPLICAS = Pattern.compile(Pattern.quote(REPLICAS_PREFIX) + "(.*)");

    public ShardTopology
    {
        shards = ImmutableList.copyOf(requireNonNull(shards, "shards is null"));
    }

    /**
     * Splits the catalog properties into the replica properties (consumed here) and the rest (for Airlift).
     */
    public static Map<String, String> withoutReplicas(Map<String, String> properties)
    {
        ImmutableMap.Builder<String, String> rest = ImmutableMap.builder();
        properties.forEach((key, value) -> {
            if (!key.startsWith(REPLICAS_PREFIX)) {
                rest.put(key, value);
            }
        });
        return rest.buildOrThrow();
    }

    /**
     * Fails naming the first replica whose URI is not https: {@code shards.password} is sent to every replica, and
     * {@code ShardsConfig} sees only {@code shards.uris}.
     */
    public void requireHttps()
    {
        for (Shard shard : shards) {
            for (ShardUri replica : shard.replicas()) {
                if (!"https".equalsIgnoreCase(replica.server().getScheme())) {
                    throw new IllegalArgumentException("shards.password needs https:// shard URIs (Trino refuses passwords over http), but shard %s has replica %s; use https:// in shards.uris and shards.replicas.<n>"
                            .formatted(shard.number(), replica.server()));
                }
            }
        }
    }

    public static ShardTopology create(List<String> uris, Map<String, String> properties)
    {
        Map<Integer, List<ShardUri>> replicas = new HashMap<>();
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            Matcher matcher = REPLICAS.matcher(entry.getKey());
            if (!matcher.matches()) {
                continue;
            }
            int number = parseShardNumber(entry.getKey(), matcher.group(1), uris.size());
            replicas.put(number, Splitter.on(',').trimResults().omitEmptyStrings().splitToList(entry.getValue()).stream()
                    .map(uri -> ShardUri.parse(uri, entry.getKey()))
                    .collect(toImmutableList()));
        }
        List<Shard> shards = new ArrayList<>();
        for (int i = 0; i < uris.size(); i++) {
            int number = i + 1;
            ShardUri first = ShardUri.parse(uris.get(i), "shards.uris");
            ImmutableList.Builder<ShardUri> all = ImmutableList.<ShardUri>builder().add(first);
            for (ShardUri replica : replicas.getOrDefault(number, List.of())) {
                if (!replica.catalog().equals(first.catalog()) || !replica.schema().equals(first.schema())) {
                    throw new IllegalArgumentException("%s%s: replica %s names catalog/schema '%s%s' but shard %s is '%s%s' in shards.uris; replicas hold the same tables, so use the same catalog and schema".formatted(
                            REPLICAS_PREFIX, number, replica, replica.catalog(), replica.schema().map(s -> "/" + s).orElse(""),
                            number, first.catalog(), first.schema().map(s -> "/" + s).orElse("")));
                }
                all.add(replica);
            }
            shards.add(new Shard(number, all.build()));
        }
        List<Optional<String>> schemas = shards.stream().map(shard -> shard.replicas().getFirst().schema()).distinct().toList();
        if (schemas.size() > 1) {
            throw new IllegalArgumentException("shards.uris: every shard must name the same schema (or none), but they name %s; the catalog serves one table set".formatted(schemas));
        }
        return new ShardTopology(shards);
    }

    private static int parseShardNumber(String property, String text, int shardCount)
    {
        try {
            int number = Integer.parseInt(text);
            if (number >= 1 && number <= shardCount) {
                return number;
            }
        }
        catch (NumberFormatException _) {
            // reported below
        }
        throw new IllegalArgumentException("%s: '%s' is not a shard number; shards are numbered 1..%s in the order of shards.uris".formatted(property, text, shardCount));
    }

    /**
     * The schema every shard names in its URI, if any: the catalog then serves only that schema.
     */
    public Optional<String> fixedSchema()
    {
        return shards.getFirst().replicas().getFirst().schema();
    }
}
