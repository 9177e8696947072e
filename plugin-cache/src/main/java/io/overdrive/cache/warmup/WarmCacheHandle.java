package io.overdrive.cache.warmup;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.function.table.ConnectorTableFunctionHandle;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.joining;

/**
 * What {@code warm_cache} reads, resolved on the coordinator: the table, the columns (empty: every data column), and
 * the partitions (patterns over Hive partition names such as {@code ds=2026-11-27/region=eu}, {@code *} for any
 * characters; empty: every partition), in the query's transaction.
 */
public record WarmCacheHandle(String schema, String table, List<String> columns, List<String> partitions, ConnectorTransactionHandle transaction)
        implements ConnectorTableFunctionHandle
{
    public WarmCacheHandle
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        partitions = ImmutableList.copyOf(requireNonNull(partitions, "partitions is null"));
        requireNonNull(transaction, "transaction is null");
    }

    /** Whether the splits of the partition named {@code partitionName} are to be read. */
    public boolean readsPartition(String partitionName)
    {
        return partitions.isEmpty() || partitions.stream().anyMatch(pattern -> glob(pattern).matcher(partitionName).matches());
    }

    // '*' any characters (Hive escapes '*' in partition names, so it never stands for itself); the rest literally
    static Pattern glob(String pattern)
    {
        return Pattern.compile(Arrays.stream(pattern.split("\\*", -1)).map(Pattern::quote).collect(joining(".*")), Pattern.DOTALL);
    }
}
