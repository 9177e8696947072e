package io.overdrive.merge.shards;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Optional;

import com.google.common.base.Splitter;

import static java.util.Objects.requireNonNull;

/**
 * One replica of a shard: its coordinator, the catalog the shard's tables live in, and optionally the one schema this
 * catalog exposes (without it, every schema of the remote catalog).
 */
public record ShardUri(URI server, String catalog, Optional<String> schema)
{
    public ShardUri
    {
        requireNonNull(server, "server is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(schema, "schema is null");
    }

    /**
     * Parses {@code http(s)://host:port/catalog[/schema]}; {@code property} names the catalog property in the error.
     */
    public static ShardUri parse(String text, String property)
    {
        String fix = "%s: '%s' is not a shard URI; write http(s)://host:port/catalog[/schema]".formatted(property, text);
        URI uri;
        try {
            uri = new URI(text.trim());
        }
        catch (URISyntaxException e) {
            throw new IllegalArgumentException(fix, e);
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null || uri.getPort() == -1 || uri.getQuery() != null || uri.getFragment() != null || uri.getPath() == null) {
            throw new IllegalArgumentException(fix);
        }
        List<String> path = Splitter.on('/').omitEmptyStrings().splitToList(uri.getPath());
        if (path.isEmpty() || path.size() > 2) {
            throw new IllegalArgumentException(fix);
        }
        URI server = URI.create(uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort());
        return new ShardUri(server, path.get(0), path.size() == 2 ? Optional.of(path.get(1)) : Optional.empty());
    }

    @Override
    public String toString()
    {
        return server + "/" + catalog + schema.map(name -> "/" + name).orElse("");
    }
}
