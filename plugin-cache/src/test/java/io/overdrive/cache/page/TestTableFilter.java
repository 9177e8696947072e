package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestTableFilter
{
    private static final CacheReadContext NO_TABLE = CacheReadContext.UNKNOWN;

    @Test
    void noPropertiesCacheEverything()
    {
        TableFilter filter = TableFilter.create(List.of(), List.of());
        assertThat(filter).isSameAs(TableFilter.ALL);
        assertThat(filter.cachesEverything()).isTrue();
        assertThat(caches(filter, "sales", "orders")).isTrue();
        assertThat(filter.caches(NO_TABLE)).isTrue();
    }

    @Test
    void wildcardMatchesAnyCharactersWithinItsPart()
    {
        TableFilter filter = TableFilter.create(List.of("sales.*", "*.dim_*", "tpch.lineitem", "web.*_2024*"), List.of());
        assertThat(caches(filter, "sales", "orders")).isTrue();
        assertThat(caches(filter, "sales", "")).as("* matches nothing too").isTrue();
        assertThat(caches(filter, "hr", "dim_employee")).isTrue();
        assertThat(caches(filter, "hr", "dim_")).isTrue();
        assertThat(caches(filter, "hr", "fact_dim_employee")).isFalse();
        assertThat(caches(filter, "tpch", "lineitem")).isTrue();
        assertThat(caches(filter, "tpch", "lineitems")).isFalse();
        assertThat(caches(filter, "tpch", "orders")).isFalse();
        assertThat(caches(filter, "web", "clicks_2024_01")).isTrue();
        assertThat(caches(filter, "web", "clicks_2023_01")).isFalse();
        // a dot in a name is not a separator, and '*' never reaches into the other part
        assertThat(caches(filter, "salesx", "orders")).isFalse();
        assertThat(caches(filter, "xsales", "orders")).isFalse();
    }

    @Test
    void literalCharactersAreNotRegularExpressions()
    {
        TableFilter filter = TableFilter.create(List.of("a$b.t-1"), List.of());
        assertThat(caches(filter, "a$b", "t-1")).isTrue();
        assertThat(caches(filter, "ab", "t-1")).isFalse();
        assertThat(caches(filter, "a$b", "t1")).isFalse();
    }

    @Test
    void matchingIgnoresCase()
    {
        TableFilter filter = TableFilter.create(List.of("Sales.Dim_*"), List.of("SALES.DIM_SECRET"));
        assertThat(caches(filter, "sales", "dim_customer")).isTrue();
        assertThat(caches(filter, "SALES", "Dim_Customer")).isTrue();
        assertThat(caches(filter, "sales", "dim_secret")).isFalse();
    }

    @Test
    void excludeWinsOverInclude()
    {
        TableFilter filter = TableFilter.create(List.of("sales.*"), List.of("sales.orders_staging", "*.tmp_*"));
        assertThat(caches(filter, "sales", "orders")).isTrue();
        assertThat(caches(filter, "sales", "orders_staging")).isFalse();
        assertThat(caches(filter, "sales", "tmp_load")).isFalse();
        assertThat(caches(filter, "hr", "employees")).as("not included").isFalse();

        TableFilter excludeOnly = TableFilter.create(List.of(), List.of("*.tmp_*"));
        assertThat(caches(excludeOnly, "hr", "employees")).isTrue();
        assertThat(caches(excludeOnly, "hr", "tmp_employees")).isFalse();
        assertThat(excludeOnly.cachesEverything()).isFalse();
    }

    @Test
    void readOfNoKnownTableMatchesOnlyTheAllPattern()
    {
        assertThat(TableFilter.create(List.of(), List.of("sales.*")).caches(NO_TABLE)).as("no include list").isTrue();
        assertThat(TableFilter.create(List.of("sales.*"), List.of()).caches(NO_TABLE)).as("an include list").isFalse();
        assertThat(TableFilter.create(List.of("sales.*", "*.*"), List.of("hr.*")).caches(NO_TABLE)).as("*.* includes everything").isTrue();
        assertThat(TableFilter.create(List.of("**.*"), List.of()).caches(NO_TABLE)).isTrue();
        assertThat(TableFilter.create(List.of(), List.of("*.*")).caches(NO_TABLE)).as("*.* excludes everything").isFalse();
        assertThat(TableFilter.create(List.of(), List.of("*.*")).caches(CacheReadContext.forTable("sales", "orders", true))).isFalse();
        // half a table is no table
        assertThat(TableFilter.create(List.of("sales.*"), List.of()).caches(new CacheReadContext(Optional.of("sales"), Optional.empty(), true))).isFalse();
    }

    @Test
    void describesWhatIsCached()
    {
        assertThat(TableFilter.ALL).hasToString("every table");
        assertThat(TableFilter.create(List.of(), List.of("*.tmp_*"))).hasToString("every table except those matching *.tmp_*");
        assertThat(TableFilter.create(List.of("Sales.*", "*.dim_*"), List.of("sales.staging"))).hasToString("the tables matching sales.*, *.dim_* except those matching sales.staging");
    }

    @Test
    void invalidEntriesNameThePropertyTheEntryAndTheFix()
    {
        assertInvalid("orders", "cache.include-tables entry 'orders' is not schema.table: name the schema too, for example sales.orders, or *.orders for a table of that name in any schema");
        assertInvalid("hive.sales.orders", "cache.include-tables entry 'hive.sales.orders' has more than one dot: write schema.table, without the catalog (the property applies to this catalog's tables)");
        assertInvalid(".orders", "cache.include-tables entry '.orders' has an empty schema: write * for any schema, for example *.orders");
        assertInvalid("sales.", "cache.include-tables entry 'sales.' has an empty table: write * for any table, for example sales.*");
        assertInvalid("sales.ord?rs", "cache.include-tables entry 'sales.ord?rs' holds '?': schema and table patterns take letters, digits, _, - and $, with * as the only wildcard (any characters), for example sales.* or *.dim_*");
        assertInvalid("\"sales\".\"orders\"", "cache.include-tables entry '\"sales\".\"orders\"' holds '\"'");
        assertInvalid("sales orders.x", "cache.include-tables entry 'sales orders.x' holds ' '");
        assertThatThrownBy(() -> TableFilter.create(List.of(), List.of("sales.*", "tmp")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cache.exclude-tables entry 'tmp' is not schema.table");
    }

    private static void assertInvalid(String entry, String message)
    {
        assertThatThrownBy(() -> TableFilter.create(List.of(entry), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    private static boolean caches(TableFilter filter, String schema, String table)
    {
        return filter.caches(CacheReadContext.forTable(schema, table, true));
    }
}
