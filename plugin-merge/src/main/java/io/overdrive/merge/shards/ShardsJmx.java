package io.overdrive.merge.shards;

import io.overdrive.merge.stats.MergeStats;
import jakarta.annotation.PreDestroy;
import org.weakref.jmx.MBeanExporter;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Exports a catalog's MBeans (domain {@code io.overdrive.merge.shards}, {@code name=<catalog>}): {@code ShardsStats},
 * one {@code ShardStats} per shard ({@code name=<catalog>.shard-<n>}) and the catalog's merge engine's
 * {@code MergeStats}. They are removed when the catalog is dropped. The shard is part of {@code name} because Trino's
 * {@code /metrics} builds a metric's name from the domain, {@code name} and {@code type} only: a key of its own would
 * give every shard the same metric.
 */
public final class ShardsJmx
{
    static final String DOMAIN = "io.overdrive.merge.shards";

    private final MBeanExporter exporter;
    private final List<String> names = new ArrayList<>();

    public ShardsJmx(MBeanExporter exporter, String catalogName, ShardsStats stats, ShardStatsSet shardStats, MergeStats mergeStats)
    {
        this.exporter = requireNonNull(exporter, "exporter is null");
        export("%s:type=ShardsStats,name=%s".formatted(DOMAIN, catalogName), stats);
        shardStats.all().forEach((number, shard) -> export("%s:type=ShardStats,name=%s.shard-%s".formatted(DOMAIN, catalogName, number), shard));
        export("%s:type=MergeStats,name=%s".formatted(DOMAIN, catalogName), mergeStats);
    }

    private void export(String name, Object bean)
    {
        exporter.export(name, bean);
        names.add(name);
    }

    @PreDestroy
    public void unexport()
    {
        names.forEach(exporter::unexport);
        names.clear();
    }
}
