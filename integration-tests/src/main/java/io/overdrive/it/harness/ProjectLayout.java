package io.overdrive.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * Where the build put what the launchers need: the packaged Overdrive plugin zips, the HDFS server's and the Trino
 * server's class paths and the stock plugin folders. Missing pieces fail with the command that builds them.
 */
public record ProjectLayout(Path root)
{
    public static final String TRINO_VERSION = "483";
    private static final String BUILD_HINT = "run './overdrive package' in the repository root first";

    public ProjectLayout
    {
        requireNonNull(root, "root is null");
        root = root.toAbsolutePath().normalize();
    }

    /** The layout the test JVM runs in: Maven's surefire passes the repository root as {@code overdrive.repo}. */
    public static ProjectLayout fromSystemProperty()
    {
        String repo = System.getProperty("overdrive.repo");
        if (repo == null) {
            throw new IllegalStateException("System property overdrive.repo is not set; run the tests through Maven (./overdrive test)");
        }
        return new ProjectLayout(Path.of(repo));
    }

    /** Class path of the HDFS server process (unshaded Hadoop, never mixed with Trino's). */
    public String hdfsServerClasspath()
    {
        return moduleClasspath(root.resolve("integration-tests/hdfs-server/target"), "hdfs-server");
    }

    /** Class path of the S3 server process (s3proxy and its own libraries, never mixed with Trino's). */
    public String s3ServerClasspath()
    {
        return moduleClasspath(root.resolve("integration-tests/s3-server/target"), "s3-server");
    }

    /** Class path of a Trino server process: trino-main's runtime dependencies plus the launcher. */
    public String trinoServerClasspath()
    {
        return moduleClasspath(root.resolve("integration-tests/trino-server/target"), "trino-server");
    }

    /** Stock plugin folders (hive, tpch, memory) laid out like the Trino server tarball's {@code plugin/}. */
    public Path stockPluginDirectory()
    {
        return requireDirectory(root.resolve("integration-tests/trino-server/target/trino-server-" + TRINO_VERSION + "/plugin"));
    }

    /**
     * Trino's filesystem exchange manager plugin folder ({@code exchange-filesystem}), for fault-tolerant execution;
     * kept apart from the stock plugins so that only clusters with an exchange manager load it.
     */
    public Path exchangePluginDirectory()
    {
        return requireDirectory(root.resolve("integration-tests/trino-server/target/trino-server-" + TRINO_VERSION + "/exchange-plugin/exchange-filesystem"));
    }

    /**
     * Trino's stock Iceberg plugin folder ({@code iceberg}, connector {@code iceberg}, with HDFS in its {@code hdfs/}),
     * kept apart from the stock plugins so that only clusters that ask for it load its 450 MB of jars.
     */
    public Path icebergPluginDirectory()
    {
        return requireDirectory(root.resolve("integration-tests/trino-server/target/trino-server-" + TRINO_VERSION + "/extra-plugin/iceberg"));
    }

    /** The zips a user unzips into Trino's {@code plugin/} folder, one per Overdrive plugin module. */
    public List<Path> overdrivePluginZips()
    {
        List<Path> zips = new ArrayList<>();
        zips.add(pluginZip("plugin-cache", "overdrive-cache"));
        zips.add(pluginZip("plugin-merge", "overdrive-merge"));
        return List.copyOf(zips);
    }

    public Path pluginZip(String module, String pluginName)
    {
        Path target = root.resolve(module).resolve("target");
        try (Stream<Path> files = Files.list(requireDirectory(target))) {
            return files.filter(file -> file.getFileName().toString().startsWith(pluginName + "-") && file.getFileName().toString().endsWith(".zip"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("No %s-*.zip in %s: %s".formatted(pluginName, target, BUILD_HINT)));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String moduleClasspath(Path target, String artifactId)
    {
        Path classpathFile = target.resolve("runtime.classpath");
        if (!Files.isRegularFile(classpathFile)) {
            throw new IllegalStateException("Missing %s: %s".formatted(classpathFile, BUILD_HINT));
        }
        try (Stream<Path> files = Files.list(target)) {
            Path jar = files.filter(file -> file.getFileName().toString().startsWith(artifactId + "-") && file.getFileName().toString().endsWith(".jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("No %s jar in %s: %s".formatted(artifactId, target, BUILD_HINT)));
            return Files.readString(classpathFile).strip() + java.io.File.pathSeparator + jar;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path requireDirectory(Path directory)
    {
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException("Missing %s: %s".formatted(directory, BUILD_HINT));
        }
        return directory;
    }
}
