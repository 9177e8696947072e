package io.overdrive.cache.flush;

import io.overdrive.cache.flush.TableLocations.TableFiles;
import io.trino.metastore.Column;
import io.trino.metastore.HiveMetastore;
import io.trino.metastore.HiveMetastoreFactory;
import io.trino.metastore.Partition;
import io.trino.metastore.Table;
import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.TestingConnectorSession;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import static io.trino.metastore.HiveType.HIVE_LONG;
import static io.trino.metastore.HiveType.HIVE_STRING;
import static io.trino.metastore.StorageFormat.VIEW_STORAGE_FORMAT;
import static java.util.function.Function.identity;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;

/** A Hive table's flush covers its partitions stored outside its directory, read from the metastore in batches. */
class TestMetastoreTableLocations
{
    private static final String TABLE_LOCATION = "hdfs://nn/warehouse/sales/orders";

    @Test
    void partitionsOutsideTheTableAreItsLocationsToo()
    {
        Map<String, String> partitions = new LinkedHashMap<>();
        // 250 partitions under the table's directory: 3 batches, none adds a location
        IntStream.range(0, 250).forEach(day -> partitions.put("dt=" + day, TABLE_LOCATION + "/dt=" + day));
        // registered elsewhere: on another directory, under another scheme of the same S3 bucket and under the table's
        partitions.put("dt=archive", "hdfs://nn/archive/orders/dt=archive");
        partitions.put("dt=cold", "s3a://cold/orders/dt=cold");
        partitions.put("dt=s3", "s3://cold/orders/dt=cold/more");
        FakeMetastore metastore = new FakeMetastore(table(List.of(new Column("dt", HIVE_STRING, Optional.empty(), Map.of()))), partitions);

        TableFiles files = locations(metastore).table(TestingConnectorSession.SESSION, new SchemaTableName("sales", "orders")).orElseThrow();
        assertThat(files.locations()).containsExactlyInAnyOrder(TABLE_LOCATION, "hdfs://nn/archive/orders/dt=archive", "s3a://cold/orders/dt=cold", "s3://cold/orders/dt=cold/more");
        assertThat(files.columns()).containsExactlyInAnyOrder("orderkey", "dt");
        assertThat(metastore.batches).hasSize(3).allSatisfy(batch -> assertThat(batch.size()).isLessThanOrEqualTo(100));

        // what the workers drop: the table's files and those of the partitions elsewhere, and nothing beside them
        FlushCacheHandle handle = new FlushCacheHandle(false, files.locations());
        assertThat(handle.matches(TABLE_LOCATION + "/dt=7/000000_0")).isTrue();
        assertThat(handle.matches("hdfs://nn/archive/orders/dt=archive/000000_0")).isTrue();
        assertThat(handle.matches("s3://cold/orders/dt=cold/000000_0")).isTrue();
        assertThat(handle.matches("hdfs://nn/archive/orders/dt=other/000000_0")).isFalse();
    }

    @Test
    void anUnpartitionedTableIsItsLocation()
    {
        FakeMetastore metastore = new FakeMetastore(table(List.of()), Map.of());
        TableFiles files = locations(metastore).table(TestingConnectorSession.SESSION, new SchemaTableName("sales", "orders")).orElseThrow();
        assertThat(files.locations()).containsExactly(TABLE_LOCATION);
        assertThat(metastore.batches).isEmpty();
        assertThat(locations(metastore).table(TestingConnectorSession.SESSION, new SchemaTableName("sales", "missing"))).isEmpty();
    }

    private static MetastoreTableLocations locations(FakeMetastore metastore)
    {
        return new MetastoreTableLocations(HiveMetastoreFactory.ofInstance(metastore.proxy(), false));
    }

    private static Table table(List<Column> partitionColumns)
    {
        return Table.builder()
                .setDatabaseName("sales")
                .setTableName("orders")
                .setOwner(Optional.empty())
                .setTableType("EXTERNAL_TABLE")
                .setDataColumns(List.of(new Column("orderkey", HIVE_LONG, Optional.empty(), Map.of())))
                .setPartitionColumns(partitionColumns)
                .withStorage(storage -> storage.setStorageFormat(VIEW_STORAGE_FORMAT).setLocation(TABLE_LOCATION))
                .build();
    }

    // the few metastore calls a flush makes; any other fails the test
    private static final class FakeMetastore
    {
        private final Table table;
        private final Map<String, String> partitionLocations;
        private final List<List<String>> batches = new ArrayList<>();

        private FakeMetastore(Table table, Map<String, String> partitionLocations)
        {
            this.table = table;
            this.partitionLocations = partitionLocations;
        }

        private HiveMetastore proxy()
        {
            return (HiveMetastore) Proxy.newProxyInstance(HiveMetastore.class.getClassLoader(), new Class<?>[] {HiveMetastore.class}, (_, method, arguments) -> switch (method.getName()) {
                case "getTable" -> arguments[1].equals(table.getTableName()) ? Optional.of(table) : Optional.empty();
                case "getPartitionNamesByFilter" -> Optional.of(List.copyOf(partitionLocations.keySet()));
                case "getPartitionsByNames" -> partitions(castList(arguments[1]));
                default -> throw new UnsupportedOperationException(method.getName());
            });
        }

        private Map<String, Optional<Partition>> partitions(List<String> names)
        {
            batches.add(names);
            return names.stream().collect(toMap(identity(), name -> Optional.of(Partition.builder()
                    .setDatabaseName(table.getDatabaseName())
                    .setTableName(table.getTableName())
                    .setValues(List.of(name.substring("dt=".length())))
                    .setColumns(table.getDataColumns())
                    .withStorage(storage -> storage.setStorageFormat(VIEW_STORAGE_FORMAT).setLocation(partitionLocations.get(name)))
                    .build())));
        }

        @SuppressWarnings("unchecked")
        private static List<String> castList(Object list)
        {
            return (List<String>) list;
        }
    }
}
