package io.overdrive.cache.inspection;

import alluxio.client.file.cache.PageId;
import io.airlift.units.DataSize;
import io.overdrive.cache.page.CacheReadContext;
import io.overdrive.cache.page.PageCache;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorSecurityContext;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.security.ConnectorIdentity;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.trino.spi.connector.SystemTable.Distribution.ALL_NODES;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code system.cached_tables} and {@code system.cache_directories} over a real page cache: one row per table with
 * pages cached, with the same bytes and hits as the cache's own statistics, and one row per directory.
 */
class TestCachedTablesTable
{
    private static final int PAGE_SIZE = 4096;
    private static final ConnectorTransactionHandle TRANSACTION = new ConnectorTransactionHandle() {};

    @TempDir
    Path first;
    @TempDir
    Path second;

    @Test
    void rowsPerTableAgreeWithTheCacheStatistics()
    {
        PageCacheStats stats = new PageCacheStats();
        PageCacheConfig config = config().setTableQuota(DataSize.ofBytes(64 * PAGE_SIZE)).setSchemaQuota(DataSize.ofBytes(128 * PAGE_SIZE));
        long start = System.currentTimeMillis();
        try (PageCache cache = PageCache.create("lake", config, stats)) {
            // 3 files of orders (2 pages each), 1 of the customer table with a name that is no plain word
            for (int file = 0; file < 3; file++) {
                write(cache, "orders-" + file, 2, CacheReadContext.forTable("tpch", "orders", true));
            }
            write(cache, "customer-0", 1, CacheReadContext.forTable("tpch", "clients-ünicode", true));
            byte[] target = new byte[PAGE_SIZE];
            assertThat(cache.read(new PageId("orders-0", 0), 0, PAGE_SIZE, target, 0)).isEqualTo(PAGE_SIZE);
            assertThat(cache.read(new PageId("orders-1", 1), 10, 100, target, 0)).isEqualTo(100);
            assertThat(cache.read(new PageId("orders-9", 0), 0, PAGE_SIZE, target, 0)).isZero();

            CachedTablesTable table = new CachedTablesTable("worker-1", Optional.of(cache), config.getTableQuota(), config.getSchemaQuota(), Optional.empty());
            assertThat(table.getDistribution()).isEqualTo(ALL_NODES);
            assertThat(table.getTableMetadata().getTable().toString()).isEqualTo("system.cached_tables");
            List<Row> rows = read(table);
            assertThat(rows).extracting(Row::table).containsExactly("clients-ünicode", "orders");
            Row customer = rows.get(0);
            Row orders = rows.get(1);
            assertThat(orders.node()).isEqualTo("worker-1");
            assertThat(orders.schema()).isEqualTo("tpch");
            assertThat(orders.files()).isEqualTo(3);
            assertThat(orders.pages()).isEqualTo(6);
            assertThat(orders.hits()).isEqualTo(2);
            assertThat(orders.hitBytes()).isEqualTo(PAGE_SIZE + 100);
            assertThat(customer.files()).isEqualTo(1);
            assertThat(customer.pages()).isEqualTo(1);
            assertThat(customer.hits()).isZero();
            // the same bytes and hits as the cache's statistics (JMX)
            assertThat(orders.bytes() + customer.bytes()).isEqualTo(stats.getBytesCached());
            assertThat(orders.hits() + customer.hits()).isEqualTo(stats.getHits());
            assertThat(orders.hitBytes() + customer.hitBytes()).isEqualTo(stats.getBytesFromCache());
            assertThat(orders.lastAccessMillis()).isBetween(start, System.currentTimeMillis());
            assertThat(orders.tableQuota()).isEqualTo(64L * PAGE_SIZE);
            assertThat(orders.tableQuotaUsed()).isEqualTo((double) orders.bytes() / (64 * PAGE_SIZE));
            assertThat(orders.schemaQuota()).isEqualTo(128L * PAGE_SIZE);

            // a flush of the table leaves no row for it
            cache.invalidatePaths(path -> path.contains("/orders/"));
            assertThat(read(table)).extracting(Row::table).containsExactly("clients-ünicode");

            CacheDirectoriesTable directories = new CacheDirectoriesTable("worker-1", Optional.of(cache));
            assertThat(directories.getTableMetadata().getTable().toString()).isEqualTo("system.cache_directories");
            List<Object[]> directoryRows = readDirectories(directories);
            assertThat(directoryRows).hasSize(2);
            assertThat(directoryRows).extracting(row -> row[1]).containsExactlyInAnyOrder(first.resolve("lake").toAbsolutePath().toString(), second.resolve("lake").toAbsolutePath().toString());
            assertThat(directoryRows).allSatisfy(row -> assertThat(row[2]).isEqualTo(true));
            assertThat(directoryRows.stream().mapToLong(row -> (long) row[4]).sum()).isEqualTo(stats.getBytesCached());
            // where each evicts: its share of the configured size, less the cache manager's allowance for overhead
            assertThat(directoryRows.stream().mapToLong(row -> (long) row[5]).sum()).isBetween(2 * 900L * PAGE_SIZE, 2 * 1000L * PAGE_SIZE);
        }
    }

    @Test
    void withoutQuotasTheQuotaColumnsAreNull()
    {
        PageCacheStats stats = new PageCacheStats();
        try (PageCache cache = PageCache.create("lake", config(), stats)) {
            write(cache, "orders-0", 1, CacheReadContext.forTable("tpch", "orders", true));
            write(cache, "delta-0", 1, CacheReadContext.UNKNOWN);
            List<Row> rows = read(new CachedTablesTable("worker-1", Optional.of(cache), Optional.empty(), Optional.empty(), Optional.empty()));
            assertThat(rows).hasSize(2);
            // pages read for no table: a row of its own, schema and table NULL
            assertThat(rows.get(0).schema()).isNull();
            assertThat(rows.get(0).table()).isNull();
            assertThat(rows.get(1).table()).isEqualTo("orders");
            assertThat(rows).allSatisfy(row -> {
                assertThat(row.tableQuota()).isNull();
                assertThat(row.tableQuotaUsed()).isNull();
                assertThat(row.schemaQuota()).isNull();
            });
        }
    }

    @Test
    void rowsAreThoseOfTheTablesTheCatalogListsToTheUser()
    {
        PageCacheStats stats = new PageCacheStats();
        try (PageCache cache = PageCache.create("lake", config(), stats)) {
            write(cache, "orders-0", 1, CacheReadContext.forTable("tpch", "orders", true));
            write(cache, "secret-0", 1, CacheReadContext.forTable("tpch", "salaries", true));
            write(cache, "hidden-0", 1, CacheReadContext.forTable("hr", "people", true));
            write(cache, "loose-0", 1, new CacheReadContext(Optional.of("hr"), Optional.empty(), true));
            write(cache, "loose-1", 1, new CacheReadContext(Optional.of("tpch"), Optional.empty(), true));
            write(cache, "delta-0", 1, CacheReadContext.UNKNOWN);
            // the catalog's access control, as hive.security=file would decide: alice may not see tpch.salaries nor
            // anything of the schema hr; everyone else sees everything
            List<ConnectorSecurityContext> asked = new ArrayList<>();
            ConnectorAccessControl accessControl = new ConnectorAccessControl()
            {
                @Override
                public Set<SchemaTableName> filterTables(ConnectorSecurityContext context, Set<SchemaTableName> tableNames)
                {
                    asked.add(context);
                    return tableNames.stream()
                            .filter(name -> !isAlice(context) || !(name.equals(new SchemaTableName("tpch", "salaries")) || name.getSchemaName().equals("hr")))
                            .collect(toImmutableSet());
                }

                @Override
                public Set<String> filterSchemas(ConnectorSecurityContext context, Set<String> schemaNames)
                {
                    return schemaNames.stream().filter(name -> !isAlice(context) || !name.equals("hr")).collect(toImmutableSet());
                }

                private static boolean isAlice(ConnectorSecurityContext context)
                {
                    return context.getIdentity().getUser().equals("alice");
                }
            };
            CachedTablesTable table = new CachedTablesTable("worker-1", Optional.of(cache), Optional.empty(), Optional.empty(), Optional.of(accessControl));

            ConnectorSession alice = TestingConnectorSession.builder().setIdentity(ConnectorIdentity.ofUser("alice")).build();
            List<Row> aliceRows = read(table, alice);
            assertThat(aliceRows).extracting(row -> row.schema() + "." + row.table()).containsExactly("null.null", "tpch.null", "tpch.orders");
            assertThat(asked).singleElement().satisfies(context -> {
                assertThat(context.getIdentity().getUser()).isEqualTo("alice");
                assertThat(context.getTransactionHandle()).isSameAs(TRANSACTION);
                assertThat(context.getQueryId().toString()).isEqualTo(alice.getQueryId());
            });

            ConnectorSession bob = TestingConnectorSession.builder().setIdentity(ConnectorIdentity.ofUser("bob")).build();
            assertThat(read(table, bob)).extracting(row -> row.schema() + "." + row.table())
                    .containsExactly("null.null", "hr.null", "hr.people", "tpch.null", "tpch.orders", "tpch.salaries");
        }
    }

    @Test
    void aNodeThatCachesNothingHasNoRows()
    {
        assertThat(read(new CachedTablesTable("coordinator", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()))).isEmpty();
        assertThat(readDirectories(new CacheDirectoriesTable("coordinator", Optional.empty()))).isEmpty();
    }

    private PageCacheConfig config()
    {
        return new PageCacheConfig()
                .setEnabled(true)
                .setBaseDirectories(first + "," + second)
                .setMaxSizes(2 * 1000L * PAGE_SIZE + "B")
                .setPageSize(DataSize.ofBytes(PAGE_SIZE))
                .setAdmissionEnabled(false)
                // the pages on disk once written, for the rows to count them
                .setAsyncWriteEnabled(false);
    }

    private static void write(PageCache cache, String fileId, int pages, CacheReadContext context)
    {
        String path = "/warehouse/" + context.schema().orElse("none") + "/" + context.table().orElse("none") + "/" + fileId;
        for (int page = 0; page < pages; page++) {
            byte[] bytes = new byte[PAGE_SIZE];
            Arrays.fill(bytes, (byte) page);
            cache.write(path, new PageId(fileId, page), ByteBuffer.wrap(bytes), context);
        }
    }

    private record Row(String node, String schema, String table, long files, long pages, long bytes, long hits, long hitBytes, Long lastAccessMillis, Long tableQuota, Double tableQuotaUsed, Long schemaQuota) {}

    private static List<Row> read(CachedTablesTable table)
    {
        return read(table, TestingConnectorSession.SESSION);
    }

    private static List<Row> read(CachedTablesTable table, ConnectorSession session)
    {
        List<Row> rows = new ArrayList<>();
        try (RecordCursor cursor = table.cursor(TRANSACTION, session, TupleDomain.all())) {
            while (cursor.advanceNextPosition()) {
                rows.add(new Row(
                        cursor.getSlice(0).toStringUtf8(),
                        cursor.isNull(1) ? null : cursor.getSlice(1).toStringUtf8(),
                        cursor.isNull(2) ? null : cursor.getSlice(2).toStringUtf8(),
                        cursor.getLong(3),
                        cursor.getLong(4),
                        cursor.getLong(5),
                        cursor.getLong(6),
                        cursor.getLong(7),
                        cursor.isNull(8) ? null : unpackMillisUtc(cursor.getLong(8)),
                        cursor.isNull(9) ? null : cursor.getLong(9),
                        cursor.isNull(10) ? null : cursor.getDouble(10),
                        cursor.isNull(11) ? null : cursor.getLong(11)));
            }
        }
        return rows;
    }

    private static List<Object[]> readDirectories(CacheDirectoriesTable table)
    {
        List<Object[]> rows = new ArrayList<>();
        try (RecordCursor cursor = table.cursor(null, TestingConnectorSession.SESSION, TupleDomain.all())) {
            while (cursor.advanceNextPosition()) {
                rows.add(new Object[] {cursor.getSlice(0).toStringUtf8(), cursor.getSlice(1).toStringUtf8(), cursor.getBoolean(2), cursor.getBoolean(3), cursor.getLong(4), cursor.getLong(5), cursor.getLong(6)});
            }
        }
        return rows;
    }
}
