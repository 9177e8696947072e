package io.overdrive.it;

import com.google.common.collect.ImmutableMap;
import io.overdrive.cache.OverdrivePlugin;
import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.HiveCatalogs;
import io.trino.Session;
import io.trino.plugin.hive.HivePlugin;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import io.trino.tpch.TpchTable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.plugin.tpch.TpchMetadata.TINY_SCHEMA_NAME;
import static io.trino.testing.QueryAssertions.copyTpchTables;
import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

/**
 * In-JVM Trino (coordinator + 2 workers, talking HTTP) with an {@code overdrive} catalog ({@code overdrive_hive}) and
 * a stock {@code hive} catalog over the same file metastore and warehouse on real HDFS, plus {@code tpch}, and any
 * other catalogs a test asks for (Iceberg's among them). Data is
 * read on the workers only unless {@link Builder#includeCoordinator} says the coordinator runs splits too.
 */
public final class OverdriveQueryRunner
{
    public static final String OVERDRIVE_CATALOG = "overdrive";
    public static final String HIVE_CATALOG = "hive";
    public static final String SCHEMA = "tpch";

    private OverdriveQueryRunner() {}

    public static Builder builder(HdfsCluster hdfs, String name)
    {
        return new Builder(hdfs, name);
    }

    public static final class Builder
    {
        private final HdfsCluster hdfs;
        private final String name;
        private int workers = 2;
        private boolean includeCoordinator;
        private final Map<String, String> overdriveProperties = new LinkedHashMap<>();
        private final Map<String, Map.Entry<String, Map<String, String>>> extraCatalogs = new LinkedHashMap<>();
        private final Map<String, Map.Entry<String, Map<String, String>>> otherCatalogs = new LinkedHashMap<>();
        private List<TpchTable<?>> initialTables = List.of();
        private Optional<Map.Entry<String, Map<String, String>>> systemAccessControl = Optional.empty();

        private Builder(HdfsCluster hdfs, String name)
        {
            this.hdfs = requireNonNull(hdfs, "hdfs is null");
            this.name = requireNonNull(name, "name is null");
        }

        public Builder workers(int workers)
        {
            this.workers = workers;
            return this;
        }

        /**
         * Trino's {@code node-scheduler.include-coordinator} (its default is {@code true}; off here unless asked, as in
         * a production cluster): with it the coordinator runs splits, and so caches, as a worker does.
         */
        public Builder includeCoordinator(boolean includeCoordinator)
        {
            this.includeCoordinator = includeCoordinator;
            return this;
        }

        public Builder overdriveProperty(String key, String value)
        {
            overdriveProperties.put(key, value);
            return this;
        }

        /**
         * One more catalog over the same metastore and files, of the connector {@code hive} or {@code overdrive_hive},
         * with these properties on top (for example Trino's {@code fs.cache.*} or Overdrive's {@code cache.*}).
         */
        public Builder extraCatalog(String catalog, String connectorName, Map<String, String> properties)
        {
            extraCatalogs.put(requireNonNull(catalog, "catalog is null"), Map.entry(connectorName, Map.copyOf(properties)));
            return this;
        }

        /**
         * One more catalog with only these properties (another table format: {@code iceberg} or
         * {@code overdrive_iceberg}, for example over {@link HiveCatalogs#icebergOnHdfs}).
         */
        public Builder catalog(String catalog, String connectorName, Map<String, String> properties)
        {
            otherCatalogs.put(requireNonNull(catalog, "catalog is null"), Map.entry(connectorName, Map.copyOf(properties)));
            return this;
        }

        public Builder initialTables(List<TpchTable<?>> initialTables)
        {
            this.initialTables = List.copyOf(initialTables);
            return this;
        }

        /**
         * A system access control loaded by name, as {@code etc/access-control.properties} would, for example
         * {@code file} with {@code security.config-file}; without one every check passes.
         */
        public Builder systemAccessControl(String name, Map<String, String> properties)
        {
            this.systemAccessControl = Optional.of(Map.entry(requireNonNull(name, "name is null"), Map.copyOf(properties)));
            return this;
        }

        public QueryRunner build()
                throws Exception
        {
            Session session = testSessionBuilder()
                    .setCatalog(OVERDRIVE_CATALOG)
                    .setSchema(SCHEMA)
                    .build();
            long start = System.nanoTime();
            DistributedQueryRunner.Builder<?> builder = DistributedQueryRunner.builder(session)
                    .setWorkerCount(workers)
                    .addCoordinatorProperty("node-scheduler.include-coordinator", String.valueOf(includeCoordinator));
            systemAccessControl.ifPresent(control -> builder.setSystemAccessControl(control.getKey(), control.getValue()));
            DistributedQueryRunner queryRunner = builder.build();
            try {
                queryRunner.installPlugin(new TpchPlugin());
                queryRunner.createCatalog("tpch", "tpch");
                queryRunner.installPlugin(new HivePlugin());
                queryRunner.installPlugin(new IcebergPlugin());
                queryRunner.installPlugin(new OverdrivePlugin());

                Map<String, String> hive = HiveCatalogs.hiveOnHdfs(hdfs, "/" + name + "/metastore");
                queryRunner.createCatalog(HIVE_CATALOG, "hive", hive);
                queryRunner.createCatalog(OVERDRIVE_CATALOG, "overdrive_hive", ImmutableMap.<String, String>builder()
                        .putAll(hive)
                        .putAll(overdriveProperties)
                        .buildOrThrow());
                // the extra catalog's own properties override the shared ones (another metastore, another storage)
                extraCatalogs.forEach((catalog, connector) -> queryRunner.createCatalog(catalog, connector.getKey(), ImmutableMap.<String, String>builder()
                        .putAll(hive)
                        .putAll(connector.getValue())
                        .buildKeepingLast()));
                otherCatalogs.forEach((catalog, connector) -> queryRunner.createCatalog(catalog, connector.getKey(), connector.getValue()));

                // the file metastore puts the schema's directory under hive.metastore.catalog.dir on HDFS
                queryRunner.execute("CREATE SCHEMA %s.%s".formatted(OVERDRIVE_CATALOG, SCHEMA));
                copyTpchTables(queryRunner, "tpch", TINY_SCHEMA_NAME, session, initialTables);
                System.out.printf("[overdrive-it] query runner %s ready (%s workers%s, %s tables) in %.1fs%n", name, workers, includeCoordinator ? " and the coordinator" : "", initialTables.size(), (System.nanoTime() - start) / 1e9);
                return queryRunner;
            }
            catch (Throwable e) {
                queryRunner.close();
                throw e;
            }
        }
    }
}
