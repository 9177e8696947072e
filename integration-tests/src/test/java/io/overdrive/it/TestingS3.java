package io.overdrive.it;

import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.S3Storage;

/**
 * One real S3 server (s3proxy, own JVM) with one bucket for the whole test run: started by the first test class that
 * asks, reused by the others, stopped when the test JVM exits. Each test class works under its own prefix.
 */
public final class TestingS3
{
    public static final String BUCKET = "lake";

    private static S3Storage shared;

    private TestingS3() {}

    public static synchronized S3Storage shared()
    {
        if (shared == null) {
            long start = System.nanoTime();
            shared = S3Storage.start(ProjectLayout.fromSystemProperty(), TestingHdfs.workDirectory().resolve("s3"), BUCKET);
            System.out.printf("[overdrive-it] S3 up at %s in %.1fs%n", shared.endpoint(), (System.nanoTime() - start) / 1e9);
            // the ChildProcess shutdown hook stops it when the test JVM exits
        }
        return shared;
    }
}
