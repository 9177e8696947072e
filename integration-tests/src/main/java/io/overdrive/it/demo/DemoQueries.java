package io.overdrive.it.demo;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The demo's fixed query set: TPC-H queries (scans, joins, aggregations over lineitem, orders, customer, part,
 * supplier, nation, region), each ending in ORDER BY so results compare row for row.
 */
final class DemoQueries
{
    record Query(String name, String template)
    {
        Query
        {
            requireNonNull(name, "name is null");
            requireNonNull(template, "template is null");
        }

        /** The query over {@code schema} (for example {@code overdrive.tpch_parquet}). */
        String sql(String schema)
        {
            return template.replace("${schema}", schema);
        }
    }

    static final List<Query> ALL = List.of(
            new Query("Q1", """
                    SELECT returnflag, linestatus, sum(quantity) AS sum_qty, sum(extendedprice) AS sum_base_price,
                           sum(extendedprice * (1 - discount)) AS sum_disc_price, sum(extendedprice * (1 - discount) * (1 + tax)) AS sum_charge,
                           avg(quantity) AS avg_qty, avg(extendedprice) AS avg_price, avg(discount) AS avg_disc, count(*) AS count_order
                    FROM ${schema}.lineitem
                    WHERE shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
                    GROUP BY returnflag, linestatus
                    ORDER BY returnflag, linestatus"""),
            new Query("Q3", """
                    SELECT l.orderkey, sum(l.extendedprice * (1 - l.discount)) AS revenue, o.orderdate, o.shippriority
                    FROM ${schema}.customer c JOIN ${schema}.orders o ON c.custkey = o.custkey JOIN ${schema}.lineitem l ON l.orderkey = o.orderkey
                    WHERE c.mktsegment = 'BUILDING' AND o.orderdate < DATE '1995-03-15' AND l.shipdate > DATE '1995-03-15'
                    GROUP BY l.orderkey, o.orderdate, o.shippriority
                    ORDER BY revenue DESC, o.orderdate, l.orderkey
                    LIMIT 10"""),
            new Query("Q5", """
                    SELECT n.name, sum(l.extendedprice * (1 - l.discount)) AS revenue
                    FROM ${schema}.customer c JOIN ${schema}.orders o ON c.custkey = o.custkey
                    JOIN ${schema}.lineitem l ON l.orderkey = o.orderkey JOIN ${schema}.supplier s ON l.suppkey = s.suppkey AND c.nationkey = s.nationkey
                    JOIN ${schema}.nation n ON s.nationkey = n.nationkey JOIN ${schema}.region r ON n.regionkey = r.regionkey
                    WHERE r.name = 'ASIA' AND o.orderdate >= DATE '1994-01-01' AND o.orderdate < DATE '1995-01-01'
                    GROUP BY n.name
                    ORDER BY revenue DESC, n.name"""),
            new Query("Q6", """
                    SELECT sum(extendedprice * discount) AS revenue
                    FROM ${schema}.lineitem
                    WHERE shipdate >= DATE '1994-01-01' AND shipdate < DATE '1995-01-01' AND discount BETWEEN 0.05 AND 0.07 AND quantity < 24"""),
            new Query("Q10", """
                    SELECT c.custkey, c.name, sum(l.extendedprice * (1 - l.discount)) AS revenue, c.acctbal, n.name AS nation
                    FROM ${schema}.customer c JOIN ${schema}.orders o ON c.custkey = o.custkey
                    JOIN ${schema}.lineitem l ON l.orderkey = o.orderkey JOIN ${schema}.nation n ON c.nationkey = n.nationkey
                    WHERE o.orderdate >= DATE '1993-10-01' AND o.orderdate < DATE '1994-01-01' AND l.returnflag = 'R'
                    GROUP BY c.custkey, c.name, c.acctbal, n.name
                    ORDER BY revenue DESC, c.custkey
                    LIMIT 20"""),
            new Query("Q12", """
                    SELECT l.shipmode,
                           sum(CASE WHEN o.orderpriority IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS high_line_count,
                           sum(CASE WHEN o.orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS low_line_count
                    FROM ${schema}.orders o JOIN ${schema}.lineitem l ON o.orderkey = l.orderkey
                    WHERE l.shipmode IN ('MAIL', 'SHIP') AND l.commitdate < l.receiptdate AND l.shipdate < l.commitdate
                      AND l.receiptdate >= DATE '1994-01-01' AND l.receiptdate < DATE '1995-01-01'
                    GROUP BY l.shipmode
                    ORDER BY l.shipmode"""),
            new Query("Q14", """
                    SELECT 100.00 * sum(CASE WHEN p.type LIKE 'PROMO%' THEN l.extendedprice * (1 - l.discount) ELSE 0 END)
                           / sum(l.extendedprice * (1 - l.discount)) AS promo_revenue
                    FROM ${schema}.lineitem l JOIN ${schema}.part p ON l.partkey = p.partkey
                    WHERE l.shipdate >= DATE '1995-09-01' AND l.shipdate < DATE '1995-10-01'"""),
            new Query("Q18", """
                    SELECT c.name, c.custkey, o.orderkey, o.orderdate, o.totalprice, sum(l.quantity) AS quantity
                    FROM ${schema}.customer c JOIN ${schema}.orders o ON c.custkey = o.custkey JOIN ${schema}.lineitem l ON o.orderkey = l.orderkey
                    WHERE o.orderkey IN (SELECT orderkey FROM ${schema}.lineitem GROUP BY orderkey HAVING sum(quantity) > 300)
                    GROUP BY c.name, c.custkey, o.orderkey, o.orderdate, o.totalprice
                    ORDER BY o.totalprice DESC, o.orderdate, o.orderkey
                    LIMIT 100"""));

    private DemoQueries() {}
}
