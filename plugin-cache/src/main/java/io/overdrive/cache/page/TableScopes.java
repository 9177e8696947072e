package io.overdrive.cache.page;

import alluxio.client.quota.CacheScope;

import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The scope each cached page is kept under, from the table its read was for: {@code schema.table}, or {@code schema}
 * for a read of a schema's file with no table, or none. Quotas count and evict by it, and {@code system.cached_tables}
 * reports by it, so every page carries one whether or not quotas are set. The scopes made so far are remembered with
 * their table (one entry per table read since the start), to name them back.
 * <p>
 * Alluxio accepts only word characters ({@code [A-Za-z0-9_]}) in a scope's names, and Trino's do not keep to them (a
 * quoted name holds any character): each name is written with letters and digits as they are, {@code _} as
 * {@code __} and every other character as {@code _} and the two hex digits of each of its UTF-8 bytes, so that two
 * different names never share a scope.
 */
final class TableScopes
{
    private static final HexFormat HEX = HexFormat.of();

    private final Map<CacheScope, CachedTable> tables = new ConcurrentHashMap<>();

    /** The table of a scope, schema and table names as the read gave them; absent for a schema or global scope. */
    record CachedTable(String schema, Optional<String> table) {}

    /** The scope a read's pages are kept under: its table within its schema, or its schema, or none. */
    Optional<CacheScope> scopeOf(CacheReadContext context)
    {
        if (context.schema().isEmpty()) {
            return Optional.empty();
        }
        String schema = context.schema().get();
        CacheScope scope = CacheScope.create(encode(schema) + context.table().map(table -> CacheScope.SEPARATOR + encode(table)).orElse(""));
        tables.computeIfAbsent(scope, _ -> new CachedTable(schema, context.table()));
        return Optional.of(scope);
    }

    // letters and digits as they are, "_" as "__", anything else as "_" and the hex digits of each UTF-8 byte: never
    // empty for a name that is not (an empty name, which no table has, becomes "_")
    static String encode(String name)
    {
        if (name.isEmpty()) {
            return "_";
        }
        StringBuilder encoded = new StringBuilder(name.length() + 8);
        for (byte value : name.getBytes(UTF_8)) {
            char character = (char) (value & 0xFF);
            if ((character >= 'a' && character <= 'z') || (character >= 'A' && character <= 'Z') || (character >= '0' && character <= '9')) {
                encoded.append(character);
            }
            else if (character == '_') {
                encoded.append("__");
            }
            else {
                encoded.append('_').append(HEX.formatHex(new byte[] {value}));
            }
        }
        return encoded.toString();
    }

    /** The schema and table a scope made here stands for; absent for the global scope (pages of no table). */
    Optional<CachedTable> tableOf(CacheScope scope)
    {
        return Optional.ofNullable(tables.get(scope));
    }
}
