package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.S3Storage;
import io.overdrive.it.harness.TrinoProcessCluster;
import io.overdrive.it.harness.TrinoProcessCluster.TrinoNode;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** {@link ClusterScenarios} on a coordinator and two workers as local processes, over the tests' shared HDFS and S3 server. */
class TestClusterScenariosOnProcesses
        extends ClusterScenarios
{
    @Override
    protected ScenarioCluster startCluster(Function<Storage, Map<String, Map<String, String>>> catalogs)
    {
        HdfsCluster hdfs = TestingHdfs.shared();
        TrinoProcessCluster.Builder builder = TrinoProcessCluster.builder(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("scenarios"))
                .workers(2)
                .heapSize("1g")
                // what the container image's entrypoint sets on every node
                .coordinatorProperty("metrics.jmx-object-names", "io.overdrive.*:*")
                .workerProperty("metrics.jmx-object-names", "io.overdrive.*:*");
        S3Storage s3 = TestingS3.shared();
        if (!s3.bucket().equals(S3_BUCKET)) {
            throw new IllegalStateException("the scenarios' tables are in the bucket %s, the shared S3 server's is %s".formatted(S3_BUCKET, s3.bucket()));
        }
        for (Map.Entry<String, Map<String, String>> catalog : catalogs.apply(new Storage(hdfs.nameNodeUri(), s3.catalogProperties())).entrySet()) {
            builder.catalog(catalog.getKey(), catalog.getValue().get("connector.name"), catalog.getValue());
        }
        TrinoProcessCluster trino = builder.start();
        return new ScenarioCluster()
        {
            @Override
            public Connection connect()
                    throws SQLException
            {
                return trino.connect();
            }

            @Override
            public URI coordinator()
            {
                return trino.coordinator().httpUri();
            }

            @Override
            public List<URI> workers()
            {
                return trino.workers().stream().map(TrinoNode::httpUri).toList();
            }

            @Override
            public void killWorker(int index)
            {
                trino.workers().get(index).process().kill();
            }

            @Override
            public void restartWorkers()
            {
                trino.restartWorkers(worker -> {});
            }

            @Override
            public void close()
            {
                trino.close();
            }
        };
    }
}
