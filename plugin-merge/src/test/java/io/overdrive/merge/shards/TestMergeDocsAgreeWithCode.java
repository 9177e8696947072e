package io.overdrive.merge.shards;

import com.google.common.base.Splitter;
import io.airlift.configuration.Config;
import io.airlift.units.Duration;
import io.overdrive.cache.DocsChecks;
import io.overdrive.cache.MarkdownTables.Row;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.session.PropertyMetadata;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.overdrive.cache.DocsChecks.at;
import static io.overdrive.cache.DocsChecks.attributes;
import static io.overdrive.cache.DocsChecks.files;
import static io.overdrive.cache.DocsChecks.getter;
import static io.overdrive.cache.DocsChecks.isNumber;
import static io.overdrive.cache.DocsChecks.openMetricsName;
import static io.overdrive.cache.DocsChecks.read;
import static io.overdrive.cache.DocsChecks.typeAgrees;
import static io.overdrive.cache.MarkdownTables.ROOT;
import static io.overdrive.cache.MarkdownTables.codeSpans;
import static io.overdrive.cache.MarkdownTables.defaults;
import static io.overdrive.cache.MarkdownTables.names;
import static io.overdrive.cache.MarkdownTables.pages;
import static io.overdrive.cache.MarkdownTables.rows;
import static java.util.concurrent.TimeUnit.SECONDS;
import static java.util.function.Function.identity;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's pages against the code of {@code overdrive_shards}, as plugin-cache's {@code TestDocsAgreeWithCode}
 * and {@code TestMetricNamesInDocs} hold them to the Hive connector's: every {@code shards.*} and {@code merge.*}
 * property is in docs/properties.md with its default, and every property table of README.md and docs/ that names one
 * gives that default and names no other; every session property is in docs/properties.md with its type and default,
 * and every documented one exists; each MBean's attributes are its part of the section
 * {@code ## ShardsStats, ShardStats, MergeStats} of docs/metrics.md, and the table of MBeans names each in its
 * domain; every metric of these MBeans named in README.md, docs/ or docker/ exists.
 */
class TestMergeDocsAgreeWithCode
{
    private static final Path DOCS = ROOT.resolve("docs");
    private static final List<Class<?>> CONFIGS = List.of(ShardsConfig.class, MergeConfig.class);
    private static final List<String> PREFIXES = List.of("shards.", "merge.");
    private static final List<Class<?>> STATS = List.of(ShardsStats.class, ShardStats.class, MergeStats.class);
    private static final String CONNECTOR = "overdrive_shards";
    private static final Pattern CELL_SEPARATOR = Pattern.compile("(?<!\\\\)\\|");
    private static final Pattern OPENMETRICS = Pattern.compile(
            "(?:JMX_(?<domain>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*?)_NAME_\\S*?_)?TYPE_(?<type>[A-Za-z0-9]+)_ATTRIBUTE_(?<attribute>[A-Za-z0-9_]*)(?:\\((?<choices>[A-Za-z0-9_|]+)\\))?");
    private static final List<String> OPEN_ENDS = List.of(".*", ".+", "...", "…", "<", "*");
    private static final Pattern OBJECT_NAME = Pattern.compile("(io\\.overdrive(?:\\.[a-z0-9]+)+):type=([A-Za-z0-9]+)");

    @Test
    void everyPropertyIsDocumentedWithItsDefault()
            throws ReflectiveOperationException
    {
        Map<String, ConfigProperty> inCode = configProperties(new MergeConfig());
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        for (Path page : pages()) {
            for (Row row : rows(page)) {
                if (!row.header().getFirst().equals("property")) {
                    continue;
                }
                List<String> named = names(row.first());
                List<String> cells = row.cell("default").map(cell -> defaults(cell, named.size())).orElse(List.of());
                for (int index = 0; index < named.size(); index++) {
                    String property = named.get(index);
                    if (property.contains("*") || PREFIXES.stream().noneMatch(property::startsWith)) {
                        continue;
                    }
                    if (property.equals(ShardTopology.REPLICAS_PREFIX + "<n>")) {
                        // read by ShardTopology from the catalog's properties, no @Config: none by default
                        continue;
                    }
                    ConfigProperty code = inCode.get(property);
                    if (code == null) {
                        mismatches.add("%s: `%s` is documented, but no configuration class has it".formatted(row.where(), property));
                    }
                    else if (!cells.isEmpty()) {
                        compared++;
                        if (!agrees(code.defaultValue(), cells.get(index))) {
                            mismatches.add("%s: `%s` defaults to %s in the docs, but %s has %s".formatted(row.where(), property, cells.get(index), code.type().getSimpleName(), code.defaultValue()));
                        }
                    }
                }
            }
        }
        assertThat(compared).as("documented defaults compared").isGreaterThan(30);
        Set<String> reference = new TreeSet<>();
        for (Row row : rows(DOCS.resolve("properties.md"))) {
            if (row.header().getFirst().equals("property") && row.cell("default").isPresent()) {
                reference.addAll(names(row.first()));
            }
        }
        for (ConfigProperty property : inCode.values()) {
            if (!reference.contains(property.name())) {
                mismatches.add("docs/properties.md: no row for `%s` (%s, default %s)".formatted(property.name(), property.type().getSimpleName(), property.defaultValue()));
            }
        }
        if (!reference.contains(ShardTopology.REPLICAS_PREFIX + "<n>")) {
            mismatches.add("docs/properties.md: no row for `%s<n>` (ShardTopology)".formatted(ShardTopology.REPLICAS_PREFIX));
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void everySessionPropertyIsDocumentedWithItsTypeAndDefault()
            throws ReflectiveOperationException
    {
        Map<String, PropertyMetadata<?>> inCode = sessionProperties(new MergeConfig());
        Map<String, ConfigProperty> config = configProperties(new MergeConfig());
        List<String> mismatches = new ArrayList<>();
        Set<String> reference = new TreeSet<>();
        for (Path page : pages()) {
            for (Row row : rows(page)) {
                if (!row.header().getFirst().equals("session property")) {
                    continue;
                }
                boolean ours = row.connector().map(CONNECTOR::equals).orElse(false);
                for (String name : names(row.first())) {
                    PropertyMetadata<?> property = inCode.get(name);
                    if (property == null) {
                        if (ours) {
                            mismatches.add("%s: session property `%s` is documented for %s, but ShardsSessionProperties has no such property".formatted(row.where(), name, CONNECTOR));
                        }
                        continue;
                    }
                    if (!ours && row.connector().isPresent()) {
                        continue;
                    }
                    if (page.endsWith("properties.md")) {
                        reference.add(name);
                    }
                    Optional<String> type = row.cell("type");
                    if (type.isPresent() && !typeAgrees(property, type.get())) {
                        mismatches.add("%s: session property `%s` has type %s in the docs, but the code declares %s".formatted(row.where(), name, type.get(), property.getSqlType().getDisplayName()));
                    }
                    Optional<String> cell = row.cell("default");
                    if (cell.isPresent()) {
                        defaultMismatch(property, cell.get(), config).ifPresent(mismatch -> mismatches.add("%s: session property `%s` defaults to %s in the docs, but %s".formatted(row.where(), name, cell.get(), mismatch)));
                    }
                }
            }
        }
        for (PropertyMetadata<?> property : inCode.values()) {
            if (!property.isHidden() && !reference.contains(property.getName())) {
                mismatches.add("docs/properties.md: no session property row for `%s` (%s, default %s)".formatted(property.getName(), property.getSqlType().getDisplayName(), property.getDefaultValue()));
            }
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void everyMetricIsDocumentedInItsSection()
            throws IOException
    {
        Map<String, Set<String>> documented = documentedAttributes(Files.readString(DOCS.resolve("metrics.md")), STATS.stream().map(Class::getSimpleName).toList());
        List<String> mismatches = new ArrayList<>();
        for (Class<?> type : STATS) {
            Set<String> section = documented.getOrDefault(type.getSimpleName(), Set.of());
            Set<String> exported = topLevelAttributes(type);
            exported.stream().filter(attribute -> !section.contains(attribute))
                    .forEach(attribute -> mismatches.add("%s.%s: not in docs/metrics.md".formatted(type.getSimpleName(), attribute)));
            section.stream().filter(attribute -> !exported.contains(attribute))
                    .forEach(attribute -> mismatches.add("%s.%s: in docs/metrics.md, no such attribute".formatted(type.getSimpleName(), attribute)));
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void theTableOfMBeansNamesEachInItsDomain()
    {
        Set<String> types = new TreeSet<>();
        List<String> mismatches = new ArrayList<>();
        for (Row row : rows(DOCS.resolve("metrics.md"))) {
            if (!row.header().getFirst().equals("objectname")) {
                continue;
            }
            for (String span : codeSpans(row.first())) {
                Matcher name = OBJECT_NAME.matcher(span);
                if (!name.lookingAt() || !name.group(1).startsWith("io.overdrive.merge")) {
                    continue;
                }
                types.add(name.group(2));
                if (STATS.stream().noneMatch(type -> type.getSimpleName().equals(name.group(2)))) {
                    mismatches.add("%s: `%s` names no MBean of plugin-merge".formatted(row.where(), span));
                }
                else if (!name.group(1).equals(ShardsJmx.DOMAIN) || !span.startsWith(name.group() + ",name=<catalog>")) {
                    mismatches.add("%s: `%s`, but ShardsJmx exports %s as `%s:type=%s,name=<catalog>...`".formatted(row.where(), span, name.group(2), ShardsJmx.DOMAIN, name.group(2)));
                }
            }
        }
        STATS.stream().map(Class::getSimpleName).filter(type -> !types.contains(type))
                .forEach(type -> mismatches.add("docs/metrics.md: the table of MBeans has no row for " + type));
        assertThat(mismatches).isEmpty();
    }

    @Test
    void everyMetricNamedExists()
    {
        Map<String, Class<?>> stats = STATS.stream().collect(toMap(Class::getSimpleName, identity()));
        List<String> unknown = new ArrayList<>();
        for (Path file : files()) {
            String text = read(file);
            if (text != null) {
                unknown.addAll(unknownReferences(ROOT.relativize(file).toString(), text, stats));
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void aMismatchIsFound()
            throws ReflectiveOperationException
    {
        // defaults
        assertThat(agrees(new Duration(1, SECONDS), "`1s`")).isTrue();
        assertThat(agrees(new Duration(1, SECONDS), "`10s`")).isFalse();
        assertThat(agrees(Runtime.getRuntime().availableProcessors(), "the number of processors the JVM sees")).isTrue();
        assertThat(agrees(Runtime.getRuntime().availableProcessors() + 1, "number of processors")).isFalse();
        assertThat(agrees(Optional.empty(), "the JVM's trust store")).isTrue();
        assertThat(agrees(Optional.of("x"), "none")).isFalse();
        assertThat(agrees(List.of(), "(required)")).isTrue();
        // a session property's default that follows a catalog property, or does not
        Map<String, PropertyMetadata<?>> session = sessionProperties(new MergeConfig());
        Map<String, ConfigProperty> config = configProperties(new MergeConfig());
        assertThat(defaultMismatch(session.get(ShardsSessionProperties.MERGE_PARALLELISM), "the catalog's `merge.parallelism`", config)).isEmpty();
        assertThat(defaultMismatch(session.get(ShardsSessionProperties.MERGE_PARALLELISM), "`4`", config)).isPresent();
        assertThat(defaultMismatch(session.get(ShardsSessionProperties.MERGE_PARALLELISM), "the catalog's `merge.batch-size`", config)).isPresent();
        assertThat(defaultMismatch(session.get(ShardsSessionProperties.TOPN_PUSHDOWN), "`true`", config)).isEmpty();
        assertThat(defaultMismatch(session.get(ShardsSessionProperties.TOPN_PUSHDOWN), "`false`", config)).isPresent();
        // a section of several MBeans, each with its own table
        assertThat(documentedAttributes("""
                ## `A`, `B`
                `io.overdrive.merge.shards:type=A,name=<catalog>`:
                | attribute | type | meaning |
                | --- | --- | --- |
                | `X`, `Y.*` | long | . |
                `io.overdrive.merge.shards:type=B,name=<catalog>`:
                | `Z` | long | . |
                ## `C`
                | `W` | long | . |
                """, List.of("A", "B", "C")))
                .isEqualTo(Map.of("A", Set.of("X", "Y"), "B", Set.of("Z"), "C", Set.of("W")));
        // metric names
        Map<String, Class<?>> stats = Map.of("ShardStats", ShardStats.class, "MergeStats", MergeStats.class);
        assertThat(unknownReferences("x", """
                JMX_io_overdrive_merge_shards_NAME_shards_shard_1_TYPE_ShardStats_ATTRIBUTE_Latency_AllTime_P99 1.0
                `JMX_io_overdrive_merge_shards_NAME_<catalog>_TYPE_MergeStats_ATTRIBUTE_...`, MergeStats.RowsIn.TotalCount, `MergeStats.PoolWait.*`
                {__name__=~"JMX_io_overdrive_merge_shards_NAME_.+_TYPE_MergeStats_ATTRIBUTE_(RunningMerges|QueuedMerges)"}
                """, stats)).isEmpty();
        assertThat(unknownReferences("x", """
                JMX_io_overdrive_merge_shards_NAME_shards_shard_1_TYPE_ShardStats_ATTRIBUTE_Latency_P99 1.0
                JMX_io_overdrive_merge_stats_NAME_shards_TYPE_MergeStats_ATTRIBUTE_RunningMerges
                JMX_io_overdrive_merge_shards_NAME_shards_TYPE_MergeStats_ATTRIBUTE_Parallelism_AllTime_Percentiles
                MergeStats.RowsIn.Total, `io.overdrive.merge.stats:type=MergeStats,name=shards`
                """, stats))
                .hasSize(5)
                .anySatisfy(message -> assertThat(message).contains("Latency_P99"))
                .anySatisfy(message -> assertThat(message).contains("io_overdrive_merge_stats"))
                .anySatisfy(message -> assertThat(message).contains("Percentiles").contains("not a number"))
                .anySatisfy(message -> assertThat(message).contains("MergeStats.RowsIn.Total"))
                .anySatisfy(message -> assertThat(message).contains("io.overdrive.merge.stats:type=MergeStats"));
    }

    record ConfigProperty(String name, Class<?> type, Method setter, Object defaultValue) {}

    private static Map<String, ConfigProperty> configProperties(MergeConfig mergeConfig)
            throws ReflectiveOperationException
    {
        Map<String, ConfigProperty> properties = new LinkedHashMap<>();
        for (Class<?> type : CONFIGS) {
            Object defaults = type == MergeConfig.class ? mergeConfig : type.getConstructor().newInstance();
            for (Method setter : type.getMethods()) {
                Config config = setter.getAnnotation(Config.class);
                if (config != null) {
                    properties.put(config.value(), new ConfigProperty(config.value(), type, setter, getter(type, setter).invoke(defaults)));
                }
            }
        }
        return properties;
    }

    private static Map<String, PropertyMetadata<?>> sessionProperties(MergeConfig mergeConfig)
    {
        return new ShardsSessionProperties(mergeConfig).getSessionProperties().stream().collect(toMap(PropertyMetadata::getName, identity()));
    }

    /**
     * What is wrong with a session property's documented default, if anything: a default that names a catalog
     * property (the catalog's `merge.parallelism`) must follow it, which a catalog with another value shows; any other
     * is compared as a catalog property's.
     */
    private static Optional<String> defaultMismatch(PropertyMetadata<?> property, String cell, Map<String, ConfigProperty> config)
            throws ReflectiveOperationException
    {
        Optional<ConfigProperty> follows = codeSpans(cell).stream().map(config::get).filter(Objects::nonNull).findFirst();
        if (follows.isEmpty()) {
            return agrees(property.getDefaultValue(), cell) ? Optional.empty() : Optional.of("the code has " + property.getDefaultValue());
        }
        ConfigProperty catalog = follows.get();
        if (catalog.type() != MergeConfig.class) {
            return Optional.of("its default cannot follow %s, which ShardsSessionProperties does not read".formatted(catalog.name()));
        }
        MergeConfig other = new MergeConfig();
        Class<?> parameter = catalog.setter().getParameterTypes()[0];
        Object value = parameter == String.class ? "7" : parameter == int.class ? (Object) 7 : null;
        if (value == null) {
            return Optional.of("no sample value for %s (%s)".formatted(catalog.name(), parameter.getSimpleName()));
        }
        catalog.setter().invoke(other, value);
        Object followed = sessionProperties(other).get(property.getName()).getDefaultValue();
        return String.valueOf(followed).equals(String.valueOf(value)) ? Optional.empty()
                : Optional.of("with %s=%s the session property defaults to %s".formatted(catalog.name(), value, followed));
    }
    // DocsChecks.agrees, and a default given in words as the number of processors (merge.pool-size, merge.parallelism)
    private static boolean agrees(Object value, String cell)
    {
        if (!cell.trim().startsWith("`") && cell.contains("processors")) {
            return value instanceof Integer number && number == Runtime.getRuntime().availableProcessors();
        }
        return DocsChecks.agrees(value, cell);
    }

    // MBean -> the attribute names of its rows: in a section "## `A`, `B`", the rows after a line naming `type=A` are A's
    private static Map<String, Set<String>> documentedAttributes(String metrics, List<String> mbeans)
    {
        Map<String, Set<String>> attributes = new TreeMap<>();
        List<String> section = List.of();
        Optional<String> current = Optional.empty();
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("## ")) {
                section = Arrays.stream(line.substring(3).replace("`", "").split(",\\s*")).filter(mbeans::contains).toList();
                current = Optional.empty();
                continue;
            }
            if (section.isEmpty()) {
                continue;
            }
            if (!line.startsWith("|")) {
                Matcher type = Pattern.compile("type=([A-Za-z0-9]+)").matcher(line);
                if (type.find() && section.contains(type.group(1))) {
                    current = Optional.of(type.group(1));
                }
                continue;
            }
            if (!line.startsWith("| `")) {
                continue;
            }
            for (String name : codeSpans(Splitter.on(CELL_SEPARATOR).splitToList(line).get(1))) {
                String attribute = name.endsWith(".*") ? name.substring(0, name.length() - 2) : name;
                for (String mbean : current.map(List::of).orElse(section)) {
                    attributes.computeIfAbsent(mbean, _ -> new TreeSet<>()).add(attribute);
                }
            }
        }
        return attributes;
    }

    private static Set<String> topLevelAttributes(Class<?> type)
    {
        Set<String> names = new TreeSet<>();
        attributes(type).keySet().forEach(name -> names.add(name.contains(".") ? name.substring(0, name.indexOf('.')) : name));
        return names;
    }

    private static List<String> unknownReferences(String where, String text, Map<String, Class<?>> stats)
    {
        List<String> unknown = new ArrayList<>();
        String domain = openMetricsName(ShardsJmx.DOMAIN);
        Matcher metric = OPENMETRICS.matcher(text);
        while (metric.find()) {
            String name = metric.group();
            String type = metric.group("type");
            Class<?> mbean = stats.get(type);
            if (mbean == null) {
                // the Hive connector's and Trino's: plugin-cache's TestMetricNamesInDocs
                continue;
            }
            if (metric.group("domain") != null && !metric.group("domain").equals(domain)) {
                unknown.add("%s: %s: %s is exported in domain %s (JMX_%s_NAME_...)".formatted(at(where, text, metric.start()), name, type, ShardsJmx.DOMAIN, domain));
            }
            boolean openEnded = OPEN_ENDS.stream().anyMatch(end -> text.startsWith(end, metric.end()));
            List<String> names = metric.group("choices") == null ? List.of(metric.group("attribute"))
                    : Splitter.on('|').splitToStream(metric.group("choices")).map(choice -> metric.group("attribute") + choice).toList();
            Map<String, Class<?>> exported = new TreeMap<>();
            attributes(mbean).forEach((attribute, kind) -> exported.put(openMetricsName(attribute), kind));
            for (String attribute : names) {
                if (attribute.isEmpty() && metric.group("choices") == null) {
                    continue;
                }
                Class<?> kind = exported.get(attribute);
                if (openEnded ? exported.keySet().stream().noneMatch(key -> key.startsWith(attribute)) : kind == null) {
                    unknown.add("%s: %s: %s has no attribute %s".formatted(at(where, text, metric.start()), name, type, attribute));
                }
                else if (kind != null && !isNumber(kind)) {
                    unknown.add("%s: %s: %s.%s is not a number (%s), so /metrics does not serve it".formatted(at(where, text, metric.start()), name, type, attribute, kind.getSimpleName()));
                }
            }
        }
        for (Map.Entry<String, Class<?>> mbean : stats.entrySet()) {
            Set<String> exported = attributes(mbean.getValue()).keySet();
            Matcher attribute = Pattern.compile("\\b" + mbean.getKey() + "\\.([A-Z][A-Za-z0-9]*(?:\\.[A-Z][A-Za-z0-9]*)*)").matcher(text);
            while (attribute.find()) {
                String path = attribute.group(1);
                if (!exported.contains(path) && exported.stream().noneMatch(key -> key.startsWith(path + "."))) {
                    unknown.add("%s: %s.%s: %s has no attribute %s".formatted(at(where, text, attribute.start()), mbean.getKey(), path, mbean.getKey(), path));
                }
            }
        }
        Matcher objectName = OBJECT_NAME.matcher(text);
        while (objectName.find()) {
            if (stats.containsKey(objectName.group(2)) && !objectName.group(1).equals(ShardsJmx.DOMAIN)) {
                unknown.add("%s: %s: %s is exported in domain %s".formatted(at(where, text, objectName.start()), objectName.group(), objectName.group(2), ShardsJmx.DOMAIN));
            }
        }
        return unknown;
    }

    // the tables of README.md and docs/, as plugin-cache's MarkdownTables reads them
}
