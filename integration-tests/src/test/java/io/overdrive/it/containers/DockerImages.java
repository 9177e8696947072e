package io.overdrive.it.containers;

import io.overdrive.it.harness.ProjectLayout;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * The images the container tests run, built once per test JVM by {@code docker/images.sh build} (which installs and
 * starts Docker when it can). Where Docker cannot start the container tests skip, saying why, unless the build asks
 * for them ({@code -Doverdrive.containers=required}, as {@code .ci/run} does): then they fail.
 */
public final class DockerImages
{
    public record Tags(String hdfs, String s3, String trino) {}

    private static Tags tags;
    private static String unavailable;

    private DockerImages() {}

    /** The tags of freshly built images, or the calling test is skipped (failed, where containers are required). */
    public static synchronized Tags require()
    {
        if (tags == null && unavailable == null) {
            build();
        }
        if (unavailable != null) {
            cannotRun("Docker is not available: " + unavailable);
        }
        return tags;
    }

    /**
     * Skips the calling test, saying why, or fails it where the build requires the container tests
     * ({@code -Doverdrive.containers=required}). The scenarios of the container tests also run on the multi-process
     * cluster.
     */
    public static void cannotRun(String reason)
    {
        if ("required".equals(System.getProperty("overdrive.containers"))) {
            fail("The container tests are required (-Doverdrive.containers=required) but cannot run: " + reason);
        }
        Assumptions.abort("Skipped (the same scenarios run on the multi-process cluster): " + reason);
    }

    private static void build()
    {
        ProjectLayout layout = ProjectLayout.fromSystemProperty();
        Path log = layout.root().resolve("integration-tests/target/docker-images.log");
        try {
            Files.createDirectories(log.getParent());
            System.out.println("[overdrive-it] building the container images: docker/images.sh build (log: " + log + ")");
            long start = System.nanoTime();
            ProcessBuilder builder = new ProcessBuilder("bash", layout.root().resolve("docker/images.sh").toString(), "build")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            // the base image gets the JDK this test runs on: Java 25, what Trino 483 needs
            builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
            Process process = builder.start();
            if (!process.waitFor(20, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                unavailable = "docker/images.sh build did not finish within 20 minutes (log: %s)".formatted(log);
                return;
            }
            if (process.exitValue() != 0) {
                unavailable = "docker/images.sh build failed: %s".formatted(lastLine(log));
                return;
            }
            Properties properties = new Properties();
            try (InputStream input = Files.newInputStream(layout.root().resolve("docker/target/images.properties"))) {
                properties.load(input);
            }
            tags = new Tags(properties.getProperty("hdfs"), properties.getProperty("s3"), properties.getProperty("trino"));
            System.out.printf("[overdrive-it] images %s, %s and %s ready in %.1fs%n", tags.hdfs(), tags.s3(), tags.trino(), (System.nanoTime() - start) / 1e9);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String lastLine(Path log)
            throws IOException
    {
        return Files.readAllLines(log).stream().filter(line -> !line.isBlank()).reduce((first, second) -> second).orElse("(no output)");
    }
}
