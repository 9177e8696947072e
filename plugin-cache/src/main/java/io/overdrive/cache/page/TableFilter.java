package io.overdrive.cache.page;

import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Locale.ROOT;
import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.joining;

/**
 * Which tables the page cache caches, from {@code cache.include-tables} and {@code cache.exclude-tables}: a table is
 * cached when it matches an include pattern (no include list: every table) and no exclude pattern, so exclude wins.
 * <p>
 * A pattern is {@code schema.table}; in either part {@code *} matches any characters, so {@code sales.*} is every table
 * of schema {@code sales} and {@code *.dim_*} every table whose name starts with {@code dim_}. Matching ignores case:
 * Trino hands the Hive connector lower-cased names. A read of no known table (a file opened outside a table scan)
 * matches only the pattern that matches everything, {@code *.*}: it is cached unless an include list without
 * {@code *.*} is set, or {@code *.*} is excluded.
 */
public final class TableFilter
{
    /** Every table, and reads of no known table: what the cache does when neither property is set. */
    public static final TableFilter ALL = new TableFilter(ImmutableList.of(), ImmutableList.of());

    // letters, digits and the characters Hive and Trino names are made of, plus the wildcard
    private static final String ALLOWED = "letters, digits, _, - and $, with * as the only wildcard (any characters)";

    private final List<TablePattern> include;
    private final List<TablePattern> exclude;

    private TableFilter(List<TablePattern> include, List<TablePattern> exclude)
    {
        this.include = ImmutableList.copyOf(requireNonNull(include, "include is null"));
        this.exclude = ImmutableList.copyOf(requireNonNull(exclude, "exclude is null"));
    }

    /** The filter of a catalog whose config was validated (see {@link TablePatterns}). */
    public static TableFilter create(PageCacheConfig config)
    {
        return create(config.getIncludeTables(), config.getExcludeTables());
    }

    /**
     * @param include entries of {@code cache.include-tables}; empty: every table
     * @param exclude entries of {@code cache.exclude-tables}
     * @throws IllegalArgumentException naming the property and the entry, for an entry that is not a pattern
     */
    public static TableFilter create(List<String> include, List<String> exclude)
    {
        List<TablePattern> included = parse(PageCacheConfig.INCLUDE_TABLES, include);
        List<TablePattern> excluded = parse(PageCacheConfig.EXCLUDE_TABLES, exclude);
        if (included.isEmpty() && excluded.isEmpty()) {
            return ALL;
        }
        return new TableFilter(included, excluded);
    }

    /**
     * The patterns of one property's entries.
     *
     * @throws IllegalArgumentException naming {@code property}, the entry and how to write it, for an entry that is not a
     * pattern
     */
    public static List<TablePattern> parse(String property, List<String> entries)
    {
        requireNonNull(property, "property is null");
        return entries.stream()
                .map(entry -> TablePattern.parse(property, entry))
                .collect(toImmutableList());
    }

    /** Whether neither property leaves anything out. */
    public boolean cachesEverything()
    {
        return include.isEmpty() && exclude.isEmpty();
    }

    /** Whether the read's pages may be cached at all. */
    public boolean caches(CacheReadContext context)
    {
        return caches(context.schema(), context.table());
    }

    public boolean caches(Optional<String> schema, Optional<String> table)
    {
        if (cachesEverything()) {
            return true;
        }
        if (schema.isEmpty() || table.isEmpty()) {
            return (include.isEmpty() || include.stream().anyMatch(TablePattern::matchesEverything))
                    && exclude.stream().noneMatch(TablePattern::matchesEverything);
        }
        String schemaName = schema.get().toLowerCase(ROOT);
        String tableName = table.get().toLowerCase(ROOT);
        return (include.isEmpty() || include.stream().anyMatch(pattern -> pattern.matches(schemaName, tableName)))
                && exclude.stream().noneMatch(pattern -> pattern.matches(schemaName, tableName));
    }

    /** What is cached, for the log: {@code every table except those matching *.tmp_*}. */
    @Override
    public String toString()
    {
        String included = include.isEmpty() ? "every table" : "the tables matching " + join(include);
        return exclude.isEmpty() ? included : "%s except those matching %s".formatted(included, join(exclude));
    }

    private static String join(List<TablePattern> patterns)
    {
        return patterns.stream().map(TablePattern::text).collect(joining(", "));
    }

    /** One {@code schema.table} pattern, lower-cased. */
    public record TablePattern(String text, Pattern schema, Pattern table)
    {
        public TablePattern
        {
            requireNonNull(text, "text is null");
            requireNonNull(schema, "schema is null");
            requireNonNull(table, "table is null");
        }

        static TablePattern parse(String property, String entry)
        {
            requireNonNull(entry, "entry is null");
            String text = entry.strip().toLowerCase(ROOT);
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (!Character.isLetterOrDigit(c) && "_-$*.".indexOf(c) < 0) {
                    throw invalid(property, entry, "holds '%s': schema and table patterns take %s, for example sales.* or *.dim_*".formatted(c, ALLOWED));
                }
            }
            int dot = text.indexOf('.');
            if (dot < 0) {
                throw invalid(property, entry, "is not schema.table: name the schema too, for example sales.%1$s, or *.%1$s for a table of that name in any schema".formatted(text.isEmpty() ? "orders" : text));
            }
            if (text.indexOf('.', dot + 1) >= 0) {
                throw invalid(property, entry, "has more than one dot: write schema.table, without the catalog (the property applies to this catalog's tables)");
            }
            String schema = text.substring(0, dot);
            String table = text.substring(dot + 1);
            if (schema.isEmpty()) {
                throw invalid(property, entry, "has an empty schema: write * for any schema, for example *.%s".formatted(table));
            }
            if (table.isEmpty()) {
                throw invalid(property, entry, "has an empty table: write * for any table, for example %s.*".formatted(schema));
            }
            return new TablePattern(text, glob(schema), glob(table));
        }

        boolean matches(String schemaName, String tableName)
        {
            return schema.matcher(schemaName).matches() && table.matcher(tableName).matches();
        }

        /** {@code *.*}: every table, and reads of no known table. */
        boolean matchesEverything()
        {
            return isOnlyWildcards(schema.pattern()) && isOnlyWildcards(table.pattern());
        }

        @Override
        public String toString()
        {
            return text;
        }

        private static IllegalArgumentException invalid(String property, String entry, String problem)
        {
            return new IllegalArgumentException("%s entry '%s' %s".formatted(property, entry.strip(), problem));
        }

        // '*' matches any characters, everything else itself
        private static Pattern glob(String part)
        {
            StringBuilder regex = new StringBuilder();
            int start = 0;
            for (int star = part.indexOf('*'); star >= 0; star = part.indexOf('*', start)) {
                if (star > start) {
                    regex.append(Pattern.quote(part.substring(start, star)));
                }
                regex.append(".*");
                start = star + 1;
            }
            if (start < part.length()) {
                regex.append(Pattern.quote(part.substring(start)));
            }
            return Pattern.compile(regex.toString(), Pattern.DOTALL);
        }

        private static boolean isOnlyWildcards(String regex)
        {
            return regex.replace(".*", "").isEmpty();
        }
    }
}
