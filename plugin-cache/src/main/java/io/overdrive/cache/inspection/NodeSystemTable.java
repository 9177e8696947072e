package io.overdrive.cache.inspection;

import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;

import static io.trino.spi.connector.SystemTable.Distribution.ALL_NODES;
import static java.util.Objects.requireNonNull;

/** A table of the catalog's {@code system} schema that every node serves with its own rows, built when queried. */
abstract class NodeSystemTable
        implements SystemTable
{
    private final ConnectorTableMetadata metadata;

    NodeSystemTable(ConnectorTableMetadata metadata)
    {
        this.metadata = requireNonNull(metadata, "metadata is null");
    }

    /** Adds this node's rows that the query's user may see, in the columns' order. */
    abstract void addRows(ConnectorTransactionHandle transaction, ConnectorSession session, InMemoryRecordSet.Builder rows);

    @Override
    public final Distribution getDistribution()
    {
        return ALL_NODES;
    }

    @Override
    public final ConnectorTableMetadata getTableMetadata()
    {
        return metadata;
    }

    @Override
    public final RecordCursor cursor(ConnectorTransactionHandle transactionHandle, ConnectorSession session, TupleDomain<Integer> constraint)
    {
        InMemoryRecordSet.Builder rows = InMemoryRecordSet.builder(metadata);
        addRows(transactionHandle, session, rows);
        return rows.build().cursor();
    }
}
