package io.overdrive.it.containers;

import io.overdrive.it.ClusterScenarios;
import io.overdrive.it.ScenarioCluster;

import java.util.Map;
import java.util.function.Function;

/**
 * {@link ClusterScenarios} on containers: HDFS (NameNode, DataNode), an S3 server and Trino 483 with Overdrive's plugins
 * (a coordinator, two workers) from the images {@code docker/images.sh} builds. Skipped, saying why, where Docker cannot
 * start; failed instead where the build requires it ({@code -Doverdrive.containers=required}, as in CI).
 */
class TestClusterScenariosOnContainers
        extends ClusterScenarios
{
    @Override
    protected ScenarioCluster startCluster(Function<Storage, Map<String, Map<String, String>>> catalogs)
    {
        return ContainerCluster.start(DockerImages.require(), 2, COORDINATOR_PROPERTIES, catalogs);
    }
}
