package io.overdrive.cache.page;

import alluxio.client.quota.CacheScope;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestTableScopes
{
    private static final String ALPHABET = "ab_Z09-. é東😀$x";

    @Test
    void everyTableNameGetsAScopeOfItsOwn()
    {
        TableScopes scopes = new TableScopes();
        Map<CacheScope, TableScopes.CachedTable> seen = new HashMap<>();
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            String schema = randomName(random);
            Optional<String> table = random.nextInt(5) == 0 ? Optional.empty() : Optional.of(randomName(random));
            CacheScope scope = scopes.scopeOf(new CacheReadContext(Optional.of(schema), table, true)).orElseThrow();
            TableScopes.CachedTable named = new TableScopes.CachedTable(schema, table);
            assertThat(scope.level()).isEqualTo(table.isPresent() ? CacheScope.Level.TABLE : CacheScope.Level.SCHEMA);
            assertThat(scopes.tableOf(scope)).contains(named);
            // the same name, the same scope; two names, two scopes
            TableScopes.CachedTable earlier = seen.putIfAbsent(scope, named);
            assertThat(earlier == null || earlier.equals(named)).as("%s and %s share a scope", earlier, named).isTrue();
            if (table.isPresent()) {
                // a table's scope lies within its schema's, as quotas count it
                CacheScope schemaScope = scopes.scopeOf(new CacheReadContext(Optional.of(schema), Optional.empty(), true)).orElseThrow();
                assertThat(scope.parent()).isEqualTo(schemaScope);
            }
        }
    }

    @Test
    void readsOfNoTableHaveNoScope()
    {
        TableScopes scopes = new TableScopes();
        assertThat(scopes.scopeOf(CacheReadContext.UNKNOWN)).isEmpty();
        assertThat(scopes.tableOf(CacheScope.GLOBAL)).isEmpty();
    }

    @Test
    void plainNamesKeepTheirLettersAndDigits()
    {
        assertThat(TableScopes.encode("lineitem2")).isEqualTo("lineitem2");
        assertThat(TableScopes.encode("store_sales")).isEqualTo("store__sales");
        assertThat(TableScopes.encode("my-table")).isEqualTo("my_2dtable");
        assertThat(TableScopes.encode("é")).isEqualTo("_c3_a9");
        assertThat(TableScopes.encode("")).isEqualTo("_");
    }

    private static String randomName(Random random)
    {
        int length = random.nextInt(4);
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < length; i++) {
            name.appendCodePoint(ALPHABET.codePoints().skip(random.nextInt((int) ALPHABET.codePoints().count())).findFirst().orElseThrow());
        }
        return name.toString();
    }
}
