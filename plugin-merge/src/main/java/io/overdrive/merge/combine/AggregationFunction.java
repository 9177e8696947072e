package io.overdrive.merge.combine;

/**
 * Aggregations the combine step can fold. All are decomposable: a partial state per group can be folded again.
 */
public enum AggregationFunction
{
    /** Sum of bigint, integer, smallint, tinyint (state bigint), double (state double) or decimal(p, s) (state decimal(38, s)). */
    SUM,
    /** Rows (no input column) or non-null values of one column; state and result bigint. */
    COUNT,
    /** Smallest non-null value of any orderable type. */
    MIN,
    /** Largest non-null value of any orderable type. */
    MAX,
    /** Average, carried between layers as two state columns: the sum and the count of non-null values. */
    AVG,
}
