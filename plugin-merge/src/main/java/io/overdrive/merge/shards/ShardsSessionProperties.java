package io.overdrive.merge.shards;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.config.MergeParallelism;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;

import java.util.List;

import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static io.trino.spi.session.PropertyMetadata.booleanProperty;
import static io.trino.spi.session.PropertyMetadata.stringProperty;

/**
 * Catalog session properties: whether aggregations are pushed down to the shards, and the merge's parallelism.
 */
public final class ShardsSessionProperties
{
    static final String AGGREGATION_PUSHDOWN = "aggregation_pushdown";
    static final String TOPN_PUSHDOWN = "topn_pushdown";
    static final String MERGE_PARALLELISM = "merge_parallelism";

    private final List<PropertyMetadata<?>> properties;

    @Inject
    public ShardsSessionProperties(MergeConfig mergeConfig)
    {
        properties = ImmutableList.of(
                booleanProperty(AGGREGATION_PUSHDOWN, "Push aggregations down to the shards and merge their partial results (false: Trino aggregates the shards' rows)", true, false),
                booleanProperty(TOPN_PUSHDOWN, "Push ORDER BY ... LIMIT down to the shards and merge their sorted top rows", true, false),
                stringProperty(MERGE_PARALLELISM, "Layer-1 tasks of a merge: 'auto' or a positive integer (1 = serial)", mergeConfig.getParallelism().toString(), ShardsSessionProperties::parse, false));
    }

    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return properties;
    }

    static boolean isAggregationPushdown(ConnectorSession session)
    {
        return session.getProperty(AGGREGATION_PUSHDOWN, Boolean.class);
    }

    static boolean isTopNPushdown(ConnectorSession session)
    {
        return session.getProperty(TOPN_PUSHDOWN, Boolean.class);
    }

    static MergeParallelism getMergeParallelism(ConnectorSession session)
    {
        return parse(session.getProperty(MERGE_PARALLELISM, String.class));
    }

    private static MergeParallelism parse(String value)
    {
        return MergeParallelism.parse(value)
                .orElseThrow(() -> new TrinoException(INVALID_SESSION_PROPERTY, "%s must be 'auto' or a positive integer, but is '%s'".formatted(MERGE_PARALLELISM, value)));
    }
}
