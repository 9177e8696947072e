package io.overdrive.it;

import io.overdrive.it.harness.ProjectLayout;
import io.overdrive.it.harness.S3Storage;

import java.time.Duration;
import java.time.Instant;

/**
 * One real S3 server (s3proxy, own JVM) with one bucket for the whole test run: started by the first test class that
 * asks, reused by the others, stopped when the test JVM exits. Each test class works under its own prefix.
 */
public final class TestingS3
{
    public static final String BUCKET = "lake";

    private static S3Storage shared;

    // Overdrive's default cache.min-file-age, and a margin
    private static final Duration MIN_FILE_AGE = Duration.ofMillis(5_100);

    private TestingS3() {}

    /**
     * Waits until objects written before {@code written} are old enough for Overdrive's caches to keep them: S3 records
     * modification times in whole seconds, so the caches read an object younger than {@code cache.min-file-age} past
     * the cache (its key cannot yet tell a rewrite within the same second apart).
     */
    public static void awaitCacheable(Instant written)
    {
        long wait = Duration.between(Instant.now(), written.plus(MIN_FILE_AGE)).toMillis();
        if (wait > 0) {
            try {
                Thread.sleep(wait);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
    }

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
