package io.overdrive.merge.shards;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.statistics.ColumnStatistics;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import static io.overdrive.merge.shards.ShardsErrorCode.NO_SHARD_ANSWERED;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * The small queries planning sends to the shards (tables, columns, statistics), under the catalog's failure policy.
 */
public final class ShardsRemote
{
    private static final Logger log = Logger.get(ShardsRemote.class);
    // column_name, data_size, distinct_values_count, nulls_fraction, row_count, low_value, high_value
    private static final List<Type> SHOW_STATS_TYPES = List.of(VARCHAR, DOUBLE, DOUBLE, DOUBLE, DOUBLE, VARCHAR, VARCHAR);

    private final ShardClient client;
    private final ShardTopology topology;
    private final ShardsConfig config;
    private final ShardsStats stats;
    private final ShardStatsSet shardStats;

    @Inject
    public ShardsRemote(ShardClient client, ShardTopology topology, ShardsConfig config, ShardsStats stats, ShardStatsSet shardStats)
    {
        this.client = requireNonNull(client, "client is null");
        this.topology = requireNonNull(topology, "topology is null");
        this.config = requireNonNull(config, "config is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.shardStats = requireNonNull(shardStats, "shardStats is null");
    }

    /**
     * One shard's whole answer, hedged and failed over across its replicas like a data query; the failure policy is
     * applied by the callers.
     */
    private List<List<Object>> rows(ConnectorSession session, Shard shard, String sql, List<Type> types)
    {
        List<List<Object>> rows = new ArrayList<>();
        try (ShardQuery query = ShardQuery.create(client, shard, session, sql, types, config, FailurePolicy.FAIL, stats, shardStats.get(shard))) {
            query.start();
            while (!query.isFinished()) {
                query.isBlocked().get();
                Page page = query.getNextPage();
                if (page == null) {
                    continue;
                }
                for (int position = 0; position < page.getPositionCount(); position++) {
                    List<Object> row = new ArrayList<>(types.size());
                    for (int channel = 0; channel < types.size(); channel++) {
                        row.add(ShardValues.read(types.get(channel), page.getBlock(channel), position));
                    }
                    rows.add(row);
                }
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ShardClient.failure(shard, shard.replicas().getFirst(), "interrupted", e);
        }
        catch (ExecutionException e) {
            throw ShardClient.failure(shard, shard.replicas().getFirst(), String.valueOf(e.getCause()), e.getCause());
        }
        return rows;
    }

    /**
     * The answer of the first shard that answers, in shard order ({@code sql} is given the shard's remote catalog).
     */
    List<List<Object>> queryFirst(ConnectorSession session, List<Type> types, Function<String, String> sql)
    {
        List<String> failures = new ArrayList<>();
        for (Shard shard : topology.shards()) {
            try {
                return rows(session, shard, sql.apply(shard.replicas().getFirst().catalog()), types);
            }
            catch (TrinoException e) {
                if (config.getFailurePolicy() == FailurePolicy.FAIL) {
                    throw e;
                }
                failures.add(e.getMessage());
            }
        }
        throw new TrinoException(NO_SHARD_ANSWERED, "No shard answered: " + String.join("; ", failures));
    }

    /**
     * Every shard's answer, asked in parallel. A shard that fails fails the call, or under {@code PARTIAL} is left out
     * (but not all of them).
     */
    Map<Shard, List<List<Object>>> queryEach(ConnectorSession session, List<Type> types, Function<String, String> sql)
    {
        Map<Shard, CompletableFuture<List<List<Object>>>> futures = new LinkedHashMap<>();
        for (Shard shard : topology.shards()) {
            String text = sql.apply(shard.replicas().getFirst().catalog());
            futures.put(shard, CompletableFuture.supplyAsync(() -> rows(session, shard, text, types), client.queryThreads()));
        }
        Map<Shard, List<List<Object>>> answers = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (Map.Entry<Shard, CompletableFuture<List<List<Object>>>> future : futures.entrySet()) {
            try {
                answers.put(future.getKey(), future.getValue().join());
            }
            catch (CompletionException e) {
                TrinoException failure = e.getCause() instanceof TrinoException trino ? trino : ShardClient.failure(future.getKey(), future.getKey().replicas().getFirst(), String.valueOf(e.getCause()), e.getCause());
                if (config.getFailurePolicy() == FailurePolicy.FAIL) {
                    futures.values().forEach(other -> other.cancel(true));
                    throw failure;
                }
                log.warn("Planning query %s without %s (shards.failure-policy=PARTIAL): %s", session.getQueryId(), future.getKey().describe(), failure.getMessage());
                failures.add(failure.getMessage());
            }
        }
        if (answers.isEmpty()) {
            throw new TrinoException(NO_SHARD_ANSWERED, "No shard answered: " + String.join("; ", failures));
        }
        return answers;
    }

    /**
     * The shards' statistics for the table with its pushed-down filter, summed: row counts and data sizes add up,
     * null fractions are weighted by rows, distinct values add up (capped at the rows: a key split across shards has
     * disjoint values per shard; other columns are over-estimated). Unknown when a shard does not know or answer.
     */
    TableStatistics statistics(ConnectorSession session, ShardsTableHandle handle)
    {
        Map<Shard, List<List<Object>>> answers;
        try {
            answers = queryEach(session, SHOW_STATS_TYPES, catalog -> "SHOW STATS FOR (%s)".formatted(ShardSql.selectColumns(catalog, handle, handle.columns())));
        }
        catch (TrinoException e) {
            log.debug(e, "No statistics for %s", handle.table());
            return TableStatistics.empty();
        }
        if (answers.size() < topology.shards().size()) {
            return TableStatistics.empty();
        }
        double rows = 0;
        Map<String, double[]> columns = new HashMap<>();
        for (List<List<Object>> answer : answers.values()) {
            Double shardRows = null;
            for (List<Object> row : answer) {
                if (row.getFirst() == null) {
                    shardRows = number(row.get(4));
                }
            }
            if (shardRows == null) {
                return TableStatistics.empty();
            }
            rows += shardRows;
            for (List<Object> row : answer) {
                if (row.getFirst() == null) {
                    continue;
                }
                // data size, distinct values, nulls (as rows)
                double[] sums = columns.computeIfAbsent((String) row.getFirst(), _ -> new double[3]);
                sums[0] = add(sums[0], number(row.get(1)));
                sums[1] = add(sums[1], number(row.get(2)));
                Double nullsFraction = number(row.get(3));
                sums[2] = add(sums[2], nullsFraction == null ? null : nullsFraction * shardRows);
            }
        }
        TableStatistics.Builder statistics = TableStatistics.builder().setRowCount(Estimate.of(rows));
        Map<String, ShardsColumnHandle> byName = new HashMap<>();
        handle.columns().forEach(column -> byName.put(column.name(), column));
        for (Map.Entry<String, double[]> column : columns.entrySet()) {
            ShardsColumnHandle columnHandle = byName.get(column.getKey());
            if (columnHandle == null) {
                continue;
            }
            double[] sums = column.getValue();
            statistics.setColumnStatistics(columnHandle, ColumnStatistics.builder()
                    .setDataSize(estimate(sums[0]))
                    .setDistinctValuesCount(Double.isNaN(sums[1]) ? Estimate.unknown() : Estimate.of(Math.min(sums[1], rows)))
                    .setNullsFraction(Double.isNaN(sums[2]) || rows == 0 ? Estimate.unknown() : Estimate.of(sums[2] / rows))
                    .build());
        }
        return statistics.build();
    }

    private static Double number(Object value)
    {
        return value instanceof Number number ? number.doubleValue() : null;
    }

    // NaN marks unknown: one shard not knowing makes the sum unknown
    private static double add(double sum, Double value)
    {
        return value == null ? Double.NaN : sum + value;
    }

    private static Estimate estimate(double value)
    {
        return Double.isNaN(value) ? Estimate.unknown() : Estimate.of(value);
    }
}
