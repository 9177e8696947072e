package io.overdrive.it;

import io.overdrive.it.harness.ProjectLayout;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inspects the plugin directories and zips that {@code package} builds: what a user unzips into Trino's
 * {@code plugin/} folder must hold every runtime jar, no jar the server provides, and for overdrive-cache an
 * {@code hdfs/} folder as {@code HdfsFileSystemLoader} expects.
 */
class TestPluginLayout
{
    // classes the Trino server gives every plugin; a copy in a plugin folder is dead weight or a conflict
    private static final List<String> SERVER_PROVIDED = List.of("trino-spi-", "slice-", "jackson-annotations-", "opentelemetry-api-1", "opentelemetry-context-");

    private final ProjectLayout layout = ProjectLayout.fromSystemProperty();

    @Test
    void cachePluginDirectory()
            throws IOException
    {
        Path plugin = layout.root().resolve("plugin-cache/target/overdrive-cache");
        Set<String> jars = fileNames(plugin);
        assertThat(jars).anyMatch(name -> name.startsWith("plugin-cache-") && name.endsWith(".jar"));
        assertThat(jars).contains("trino-hive-" + ProjectLayout.TRINO_VERSION + ".jar", "trino-iceberg-" + ProjectLayout.TRINO_VERSION + ".jar", "trino-filesystem-manager-" + ProjectLayout.TRINO_VERSION + ".jar");
        assertNoServerProvidedJars(jars);
        // HDFS must not be on the plugin class path: HdfsFileSystemLoader refuses to start if it is
        assertThat(jars).noneMatch(name -> name.startsWith("trino-hdfs-") || name.startsWith("hadoop-"));
        assertThat(servicesEntry(plugin, "plugin-cache-")).isEqualTo("io.overdrive.cache.OverdrivePlugin");

        // HdfsFileSystemLoader: a folder named hdfs next to trino-filesystem-manager's jar
        Path hdfs = plugin.resolve("hdfs");
        Set<String> hdfsJars = fileNames(hdfs);
        assertThat(hdfsJars).contains("trino-hdfs-" + ProjectLayout.TRINO_VERSION + ".jar");
        assertThat(hdfsJars).anyMatch(name -> name.startsWith("hadoop-apache-"));
        assertNoServerProvidedJars(hdfsJars);

        assertZipMatchesDirectory(layout.pluginZip("plugin-cache", "overdrive-cache"), plugin);
    }

    @Test
    void mergePluginDirectory()
            throws IOException
    {
        Path plugin = layout.root().resolve("plugin-merge/target/overdrive-merge");
        Set<String> jars = fileNames(plugin);
        assertNoServerProvidedJars(jars);
        assertThat(servicesEntry(plugin, "plugin-merge-")).isEqualTo("io.overdrive.merge.OverdriveMergePlugin");
        assertZipMatchesDirectory(layout.pluginZip("plugin-merge", "overdrive-merge"), plugin);
    }

    private static void assertNoServerProvidedJars(Set<String> jars)
    {
        for (String provided : SERVER_PROVIDED) {
            assertThat(jars).as("server-provided " + provided + "* must not be bundled").noneMatch(name -> name.startsWith(provided));
        }
    }

    private static String servicesEntry(Path plugin, String jarPrefix)
            throws IOException
    {
        Path jar;
        try (Stream<Path> files = Files.list(plugin)) {
            jar = files.filter(file -> file.getFileName().toString().startsWith(jarPrefix)).findFirst().orElseThrow();
        }
        try (JarFile jarFile = new JarFile(jar.toFile())) {
            ZipEntry entry = jarFile.getEntry("META-INF/services/io.trino.spi.Plugin");
            assertThat(entry).as("service entry in " + jar).isNotNull();
            try (InputStream input = jarFile.getInputStream(entry)) {
                return new String(input.readAllBytes(), UTF_8).strip();
            }
        }
    }

    // the zip holds exactly the directory, under a top-level folder of the plugin's name
    private static void assertZipMatchesDirectory(Path zip, Path directory)
            throws IOException
    {
        Set<String> expected = new TreeSet<>();
        try (Stream<Path> files = Files.walk(directory)) {
            files.filter(Files::isRegularFile).forEach(file -> expected.add(directory.getFileName() + "/" + directory.relativize(file).toString().replace('\\', '/')));
        }
        Set<String> actual = new TreeSet<>();
        try (ZipFile zipFile = new ZipFile(zip.toFile())) {
            Enumeration<? extends ZipEntry> entries = zipFile.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                if (!entry.isDirectory()) {
                    actual.add(entry.getName());
                }
            }
        }
        assertThat(actual).isEqualTo(expected);
    }

    private static Set<String> fileNames(Path directory)
            throws IOException
    {
        assertThat(directory).isDirectory();
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Files::isRegularFile).map(file -> file.getFileName().toString()).collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        }
    }
}
