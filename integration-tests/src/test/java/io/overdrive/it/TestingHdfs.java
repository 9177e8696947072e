package io.overdrive.it;

import io.overdrive.it.harness.HdfsCluster;
import io.overdrive.it.harness.ProjectLayout;

import java.nio.file.Path;

/**
 * One real HDFS (NameNode + 3 DataNodes, own JVM) for the whole test run: started by the first test class that asks,
 * reused by the others, stopped when the test JVM exits. Each test class works under its own HDFS directory.
 */
public final class TestingHdfs
{
    public static final int DATA_NODES = 3;

    private static HdfsCluster shared;

    private TestingHdfs() {}

    public static synchronized HdfsCluster shared()
    {
        if (shared == null) {
            long start = System.nanoTime();
            shared = HdfsCluster.start(ProjectLayout.fromSystemProperty(), workDirectory().resolve("hdfs"), DATA_NODES);
            System.out.printf("[overdrive-it] HDFS up at %s with %s DataNodes in %.1fs%n", shared.nameNodeUri(), DATA_NODES, (System.nanoTime() - start) / 1e9);
            // the ChildProcess shutdown hook stops it when the test JVM exits
        }
        return shared;
    }

    public static Path workDirectory()
    {
        return Path.of(System.getProperty("overdrive.work", "target/it-work")).toAbsolutePath();
    }
}
