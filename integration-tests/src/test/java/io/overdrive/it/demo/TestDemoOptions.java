package io.overdrive.it.demo;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

final class TestDemoOptions
{
    @Test
    void defaultsDescribeADataLake()
    {
        DemoOptions options = DemoOptions.parse("--repo", "/tmp/repo");
        assertThat(options.repo()).isEqualTo(Path.of("/tmp/repo"));
        assertThat(options.work()).isEqualTo(Path.of("/tmp/repo/.demo"));
        assertThat(options.report()).isEqualTo(Path.of("/tmp/repo/.demo/report"));
        assertThat(options.scale()).isEqualTo("sf0.1");
        assertThat(options.users()).isEqualTo(1);
        assertThat(options.scenarios()).containsExactly(Scenario.SLOW_NODE);
        assertThat(options.storageLatency()).isEqualTo(Duration.ofMillis(15));
        assertThat(options.slowDataNode()).isEqualTo(Duration.ofMillis(1000));
        assertThat(options.storageBandwidth()).isEqualTo(64L << 20);
        assertThat(options.warmPasses()).isEqualTo(2);
        assertThat(options.rounds()).isEqualTo(1);
        assertThat(options.cacheSize()).isEqualTo(64L << 20);
        assertThat(options.cacheSizeProperty()).isEqualTo("64MB");
        assertThat(options.hdfsHedgeThreshold()).isEqualTo(DemoOptions.BEST_HDFS_HEDGE_THRESHOLD);
        assertThat(options.seed()).isEqualTo(1);
        assertThat(options.serve()).isFalse();
        assertThat(options.storageKind()).isEqualTo(DemoStorage.Kind.HDFS);
        assertThat(options.format()).isEqualTo(LakeFormat.HIVE);
        assertThat(options.storage()).isEqualTo("15 ms per block read request, 64 MB/s in all");
        assertThat(options.slowNode()).isEqualTo("DataNode 0 a further random 0-1000 ms per request");
    }

    @Test
    void s3StorageTakesTheSameLatencyBandwidthAndSlowNodeOptions()
    {
        DemoOptions s3 = DemoOptions.parse("--storage", "S3");
        assertThat(s3.storageKind()).isEqualTo(DemoStorage.Kind.S3);
        assertThat(s3.storage()).isEqualTo("15 ms before each GET's first byte, 5% of the GETs a further random 0-400 ms, 64 MB/s in all");
        assertThat(s3.slowNode()).isEqualTo("a slow endpoint: a third of the GETs a further random 0-1000 ms");
        DemoOptions loopback = DemoOptions.parse("--storage", "s3", "--storage-latency", "off", "--storage-bandwidth", "off", "--slow-datanode", "off");
        assertThat(loopback.storage()).isEqualTo("no added latency, unlimited bandwidth");
        assertThat(loopback.slowNode()).isEqualTo("no slow endpoint");
        assertThat(DemoOptions.parse("--storage", "hdfs").storageKind()).isEqualTo(DemoStorage.Kind.HDFS);
        assertThatThrownBy(() -> DemoOptions.parse("--storage", "gcs"))
                .hasMessage("--storage must be hdfs or s3, not 'gcs'");
        assertThatThrownBy(() -> DemoOptions.parse("--storage"))
                .hasMessageContaining("--storage needs a value");
    }

    @Test
    void formatNamesTheThreeCatalogsAndTheirConnectors()
    {
        LakeFormat hive = DemoOptions.parse().format();
        assertThat(hive.catalogs()).containsExactly("hive", "trino_cache", "overdrive");
        assertThat(hive.catalogs()).extracting(hive::connector).containsExactly("hive", "hive", "overdrive_hive");

        DemoOptions options = DemoOptions.parse("--format", "Iceberg", "--storage", "s3");
        assertThat(options.format()).isEqualTo(LakeFormat.ICEBERG);
        assertThat(options.storageKind()).isEqualTo(DemoStorage.Kind.S3);
        LakeFormat iceberg = options.format();
        assertThat(iceberg.stockCatalog()).isEqualTo("iceberg");
        assertThat(iceberg.catalogs()).containsExactly("iceberg", "trino_cache", "overdrive");
        assertThat(iceberg.catalogs()).extracting(iceberg::connector).containsExactly("iceberg", "iceberg", "overdrive_iceberg");
        assertThatThrownBy(() -> iceberg.connector("hive")).hasMessage("unknown catalog hive");
        // Parquet either way, compressed as the Hive tables are
        assertThat(hive.tableProperties()).isEqualTo("format = 'PARQUET'");
        assertThat(iceberg.tableProperties()).isEqualTo("format = 'PARQUET', compression_codec = 'GZIP'");
        assertThat(iceberg.tableBytesQuery("iceberg", "lake", "orders")).isEqualTo("SELECT sum(file_size_in_bytes) FROM iceberg.lake.\"orders$files\"");
        assertThat(DemoOptions.parse("--format", "hive").format()).isEqualTo(LakeFormat.HIVE);
        assertThatThrownBy(() -> DemoOptions.parse("--format", "orc"))
                .hasMessage("--format must be hive or iceberg, not 'orc'");
        assertThatThrownBy(() -> DemoOptions.parse("--format"))
                .hasMessageContaining("--format needs a value");
    }

    @Test
    void everyOptionCanBeChangedOrSwitchedOff()
    {
        DemoOptions options = DemoOptions.parse("--repo", "/r", "--work", "/w", "--report", "/out", "--scale", "tiny", "--users", "8",
                "--storage-latency", "off", "--storage-bandwidth", "off", "--slow-datanode", "0", "--warm-passes", "3", "--rounds", "5", "--scenario", "restart,healthy",
                "--cache-size", "1GB", "--hdfs-hedge-threshold", "2s", "--seed", "7", "--serve",
                "--overdrive-property", "node-selection.preferred-hosts-count=1", "--overdrive-property", "cache.page-size = 2MB");
        assertThat(options.work()).isEqualTo(Path.of("/w"));
        assertThat(options.report()).isEqualTo(Path.of("/out"));
        assertThat(options.scale()).isEqualTo("tiny");
        assertThat(options.users()).isEqualTo(8);
        assertThat(options.storageLatency()).isZero();
        assertThat(options.slowDataNode()).isZero();
        assertThat(options.warmPasses()).isEqualTo(3);
        assertThat(options.rounds()).isEqualTo(5);
        // in the order bench all runs them, whatever order they were named in
        assertThat(options.scenarios()).containsExactly(Scenario.HEALTHY, Scenario.RESTART);
        assertThat(options.scenarioList()).isEqualTo("healthy, restart");
        assertThat(options.cacheSize()).isEqualTo(1L << 30);
        assertThat(options.hdfsHedgeThreshold()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.seed()).isEqualTo(7);
        assertThat(options.serve()).isTrue();
        assertThat(options.overdriveProperties()).containsExactly(entry("node-selection.preferred-hosts-count", "1"), entry("cache.page-size", "2MB"));
        assertThat(DemoOptions.parse().overdriveProperties()).isEmpty();
        assertThatThrownBy(() -> DemoOptions.parse("--overdrive-property", "no-value"))
                .hasMessageContaining("--overdrive-property needs NAME=VALUE");
        assertThat(options.storageBandwidth()).isZero();
        assertThat(options.storage()).isEqualTo("no added latency, unlimited bandwidth");
        assertThat(options.slowNode()).isEqualTo("no slow DataNode");
        assertThat(DemoOptions.parse("--scenario", "all").scenarios()).containsExactly(Scenario.values());
        assertThat(DemoOptions.parse("--storage-bandwidth", "64MB").storageBandwidth()).isEqualTo(64L << 20);
        assertThat(DemoOptions.parse("--storage-bandwidth", "1GB").storageBandwidth()).isEqualTo(1L << 30);
        assertThat(DemoOptions.parse("--storage-latency", "2s").storageLatency()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void badValuesNameTheOptionAndTheFix()
    {
        assertThatThrownBy(() -> DemoOptions.parse("--storage-latency", "15"))
                .hasMessage("--storage-latency must be a duration such as 15ms or 2s, or off, not '15'");
        assertThatThrownBy(() -> DemoOptions.parse("--slow-datanode", "1m"))
                .hasMessageContaining("--slow-datanode must be a duration");
        assertThatThrownBy(() -> DemoOptions.parse("--slow-datanode", "11s"))
                .hasMessage("--slow-datanode must be at most 10s, not '11s'");
        assertThatThrownBy(() -> DemoOptions.parse("--storage-bandwidth", "64"))
                .hasMessage("--storage-bandwidth must be a size per second such as 64MB or 1GB, or off, not '64'");
        assertThatThrownBy(() -> DemoOptions.parse("--users", "many"))
                .hasMessage("--users must be a whole number, not 'many'");
        assertThatThrownBy(() -> DemoOptions.parse("--users", "0"))
                .hasMessage("--users must be between 1 and 64, not 0");
        assertThatThrownBy(() -> DemoOptions.parse("--scale", "sf100"))
                .hasMessage("--scale must be tiny, sf0.1 or sf1, not sf100");
        assertThatThrownBy(() -> DemoOptions.parse("--warm-passes", "0"))
                .hasMessage("--warm-passes must be at least 1");
        assertThatThrownBy(() -> DemoOptions.parse("--rounds", "0"))
                .hasMessage("--rounds must be between 1 and 100, not 0");
        assertThatThrownBy(() -> DemoOptions.parse("--rounds", "101"))
                .hasMessage("--rounds must be between 1 and 100, not 101");
        assertThatThrownBy(() -> DemoOptions.parse("--scenario", "healthy,cold"))
                .hasMessage("--scenario must be all or a comma-separated list of healthy, slow-node, concurrent-cold, scan-pollution, restart, scale-out, overflow, big-working-set, not 'cold'");
        assertThatThrownBy(() -> DemoOptions.parse("--cache-size", "2MB"))
                .hasMessage("--cache-size must be at least 4MB");
        assertThatThrownBy(() -> DemoOptions.parse("--cache-size", "64"))
                .hasMessage("--cache-size must be a size such as 64MB or 1GB, not '64'");
        assertThatThrownBy(() -> DemoOptions.parse("--hdfs-hedge-threshold", "off"))
                .hasMessage("--hdfs-hedge-threshold must be above 0");
        assertThatThrownBy(() -> DemoOptions.parse("--users"))
                .hasMessageStartingWith("--users needs a value");
        assertThatThrownBy(() -> DemoOptions.parse("--compression", "zstd"))
                .hasMessageStartingWith("unknown option '--compression'")
                .hasMessageContaining("--storage-latency D");
        assertThat(DemoOptions.wantsHelp("--users", "2", "--help")).isTrue();
        assertThat(DemoOptions.wantsHelp("--users", "2")).isFalse();
    }

    @Test
    public void usageNamesEveryOptionAnOperatorPasses()
    {
        // the script prints the same file for ./overdrive demo --help without building
        assertThat(DemoOptions.USAGE)
                .startsWith("usage: ./overdrive demo [options]")
                .contains("--storage-latency D", "--storage-bandwidth B", "--slow-datanode D", "--users N", "--scale S",
                        "--warm-passes N", "--rounds N", "--scenario S", "--format F", "--cache-size B", "--hdfs-hedge-threshold D", "--seed N", "--report DIR", "--work DIR", "--serve");
        for (Scenario scenario : Scenario.values()) {
            assertThat(DemoOptions.USAGE).contains(scenario.id());
        }
    }
}
