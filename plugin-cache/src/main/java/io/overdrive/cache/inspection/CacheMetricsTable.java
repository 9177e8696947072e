package io.overdrive.cache.inspection;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.SchemaTableName;
import org.weakref.jmx.Managed;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code <catalog>.system.cache_metrics}: every number Overdrive exports over JMX for the catalog, one row per node,
 * MBean type and attribute, served by every node from the very objects JMX reads (so the two always agree): the page
 * cache's hits, misses, bytes and directory health, hedged reads, shared scans, the coordinator's metadata tier and
 * placement. Joinable with {@code system.runtime.nodes} on {@code node_id}.
 */
public final class CacheMetricsTable
        extends NodeSystemTable
{
    public static final SchemaTableName NAME = new SchemaTableName("system", "cache_metrics");
    private static final ConnectorTableMetadata METADATA = new ConnectorTableMetadata(NAME, List.of(
            new ColumnMetadata("node_id", VARCHAR),
            new ColumnMetadata("mbean", VARCHAR),
            new ColumnMetadata("attribute", VARCHAR),
            new ColumnMetadata("value", DOUBLE)));

    private final String nodeId;
    private final List<Attribute> attributes;

    /**
     * @param stats the catalog's statistics objects on this node (those bound here), each exported over JMX as
     * {@code type=<its class name>}
     */
    public CacheMetricsTable(String nodeId, List<Object> stats)
    {
        super(METADATA);
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.attributes = stats.stream()
                .flatMap(object -> numericAttributes(object).stream())
                .collect(toImmutableList());
    }

    @Override
    void addRows(ConnectorTransactionHandle transaction, ConnectorSession session, InMemoryRecordSet.Builder rows)
    {
        for (Attribute attribute : attributes) {
            attribute.value().ifPresent(value -> rows.addRow(nodeId, attribute.mbean(), attribute.name(), value));
        }
    }

    // an attribute as JMX names it: the getter's name without "get" or "is"
    private record Attribute(String mbean, String name, Object target, Method getter)
    {
        Optional<Double> value()
        {
            try {
                Object value = getter.invoke(target);
                return switch (value) {
                    case Number number -> Optional.of(number.doubleValue());
                    case Boolean flag -> Optional.of(flag ? 1.0 : 0.0);
                    case null, default -> Optional.empty();
                };
            }
            catch (IllegalAccessException | InvocationTargetException e) {
                // a statistic that cannot be read is left out, as JMX would show it unavailable
                return Optional.empty();
            }
        }
    }

    private static List<Attribute> numericAttributes(Object stats)
    {
        String mbean = stats.getClass().getSimpleName();
        return Arrays.stream(stats.getClass().getMethods())
                .filter(method -> method.isAnnotationPresent(Managed.class) && method.getParameterCount() == 0)
                .filter(method -> isNumeric(method.getReturnType()))
                .map(method -> new Attribute(mbean, attributeName(method.getName()), stats, method))
                .sorted(Comparator.comparing(Attribute::name))
                .collect(ImmutableList.toImmutableList());
    }

    private static boolean isNumeric(Class<?> type)
    {
        return type == long.class || type == int.class || type == double.class || type == boolean.class
                || type == Long.class || type == Integer.class || type == Double.class || type == Boolean.class;
    }

    private static String attributeName(String getter)
    {
        if (getter.startsWith("get") && getter.length() > 3) {
            return getter.substring(3);
        }
        if (getter.startsWith("is") && getter.length() > 2) {
            return getter.substring(2);
        }
        return getter;
    }
}
