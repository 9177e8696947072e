package io.overdrive.cache.hedge;

import com.google.common.base.Ticker;
import io.airlift.slice.Slices;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.memory.MemoryInputFile;
import io.trino.filesystem.manager.FileSystemConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which reads each {@code hedged-read.mode} hedges, and through which path: HDFS's own hedging for HDFS, the wrapper
 * for object stores, local files only when the wrapper is asked for every storage.
 */
class TestHedgedReads
{
    private static final List<String> OBJECT_STORES = List.of("s3://bucket/t/f.parquet", "s3a://bucket/t/f.parquet", "gs://bucket/t/f.parquet",
            "abfs://container@account.dfs.core.windows.net/t/f.parquet");
    private static final List<String> HDFS = List.of("hdfs://namenode:8020/t/f.parquet", "viewfs://cluster/t/f.parquet", "/t/f.parquet");
    private static final List<String> LOCAL = List.of("local:///t/f.parquet", "file:///t/f.parquet");

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown()
    {
        pool.shutdownNow();
    }

    @Test
    void autoHedgesObjectStoresWithTheWrapperAndLeavesHdfsToHdfsAndLocalFilesAlone()
    {
        HedgedReads reads = hedgedReads(new HedgedReadConfig(), true);
        OBJECT_STORES.forEach(location -> assertThat(reads.wrap(file(location))).as(location).isInstanceOf(HedgingInputFile.class));
        HDFS.forEach(location -> assertThat(reads.wrap(file(location))).as(location).isInstanceOf(PositionalReadInputFile.class));
        LOCAL.forEach(location -> assertThat(reads.wrap(file(location))).as(location).isInstanceOf(MemoryInputFile.class));
        // HDFS off: its locations cannot be read, and are not hedged by the wrapper either
        HedgedReads withoutHdfs = hedgedReads(new HedgedReadConfig(), false);
        OBJECT_STORES.forEach(location -> assertThat(withoutHdfs.wrap(file(location))).as(location).isInstanceOf(HedgingInputFile.class));
        HDFS.forEach(location -> assertThat(withoutHdfs.wrap(file(location))).as(location).isInstanceOf(MemoryInputFile.class));
    }

    @Test
    void nativeHedgesOnlyHdfsAndWrapperEverything()
    {
        HedgedReads nativeOnly = hedgedReads(new HedgedReadConfig().setMode("NATIVE"), true);
        OBJECT_STORES.forEach(location -> assertThat(nativeOnly.wrap(file(location))).as(location).isInstanceOf(MemoryInputFile.class));
        LOCAL.forEach(location -> assertThat(nativeOnly.wrap(file(location))).as(location).isInstanceOf(MemoryInputFile.class));
        HDFS.forEach(location -> assertThat(nativeOnly.wrap(file(location))).as(location).isInstanceOf(PositionalReadInputFile.class));

        HedgedReads wrapper = hedgedReads(new HedgedReadConfig().setMode("WRAPPER"), false);
        for (List<String> locations : List.of(OBJECT_STORES, HDFS, LOCAL)) {
            locations.forEach(location -> assertThat(wrapper.wrap(file(location))).as(location).isInstanceOf(HedgingInputFile.class));
        }
        HedgedReads off = hedgedReads(new HedgedReadConfig().setThreadPoolSize(0), true);
        for (List<String> locations : List.of(OBJECT_STORES, HDFS, LOCAL)) {
            locations.forEach(location -> assertThat(off.wrap(file(location))).as(location).isInstanceOf(MemoryInputFile.class));
        }
    }

    @Test
    void wrappedObjectStoreFileReadsTheSameBytes()
            throws IOException
    {
        HedgedReads reads = hedgedReads(new HedgedReadConfig(), false);
        TrinoInputFile wrapped = reads.wrap(file("s3://bucket/t/f.parquet"));
        byte[] buffer = new byte[5];
        try (TrinoInput input = wrapped.newInput()) {
            input.readFully(3, buffer, 0, 5);
        }
        assertThat(new String(buffer, UTF_8)).isEqualTo("3456789".substring(0, 5));
    }

    @Test
    void catalogBindsTheWrapperOnlyWhereItHedges()
    {
        FileSystemConfig local = new FileSystemConfig().setHadoopEnabled(false).setLocalEnabled(true);
        FileSystemConfig s3 = new FileSystemConfig().setHadoopEnabled(false).setS3Enabled(true);
        FileSystemConfig hdfs = new FileSystemConfig().setHadoopEnabled(true);
        assertThat(HedgedReads.needsWrapper(new HedgedReadConfig(), local)).as("local files, default").isFalse();
        assertThat(HedgedReads.needsWrapper(new HedgedReadConfig(), s3)).as("S3, default").isTrue();
        assertThat(HedgedReads.needsWrapper(new HedgedReadConfig(), hdfs)).as("HDFS, default: HDFS hedges").isFalse();
        assertThat(HedgedReads.needsReads(new HedgedReadConfig(), hdfs)).as("HDFS, default: tail reads made positional").isTrue();
        assertThat(HedgedReads.needsWrapper(new HedgedReadConfig().setMode("NATIVE"), s3)).isFalse();
        assertThat(HedgedReads.needsWrapper(new HedgedReadConfig().setMode("WRAPPER"), local)).isTrue();
        assertThat(HedgedReads.needsWrapper(new HedgedReadConfig().setThreadPoolSize(0), s3)).isFalse();
    }

    private HedgedReads hedgedReads(HedgedReadConfig config, boolean nativeHdfs)
    {
        return new HedgedReads(config, nativeHdfs && config.isEnabled() && config.getMode() != HedgedReadConfig.Mode.WRAPPER, new HedgedReadStats(), pool, Ticker.systemTicker());
    }

    private static TrinoInputFile file(String location)
    {
        return new MemoryInputFile(Location.of(location), Slices.utf8Slice("0123456789"));
    }
}
