package io.overdrive.cache;

import com.google.common.base.Splitter;
import io.airlift.configuration.Config;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.overdrive.cache.MarkdownTables.Row;
import io.overdrive.cache.coordinator.CoordinatorCacheConfig;
import io.overdrive.cache.coordinator.CoordinatorCacheStats;
import io.overdrive.cache.hedge.HedgedReadConfig;
import io.overdrive.cache.hedge.HedgedReadStats;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.peer.PeerConfig;
import io.overdrive.cache.peer.PeerStats;
import io.overdrive.cache.scan.SharedScanConfig;
import io.overdrive.cache.scan.SharedScanStats;
import io.overdrive.cache.session.OverdriveSessionProperties;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.PlacementStats;
import io.trino.spi.session.PropertyMetadata;
import org.junit.jupiter.api.Test;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.overdrive.cache.DocsChecks.agrees;
import static io.overdrive.cache.DocsChecks.getter;
import static io.overdrive.cache.DocsChecks.typeAgrees;
import static io.overdrive.cache.MarkdownTables.ROOT;
import static io.overdrive.cache.MarkdownTables.codeSpans;
import static io.overdrive.cache.MarkdownTables.defaults;
import static io.overdrive.cache.MarkdownTables.names;
import static io.overdrive.cache.MarkdownTables.pages;
import static io.overdrive.cache.MarkdownTables.rows;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.function.Function.identity;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's pages against the code: every property of the connector's configuration classes is in
 * docs/properties.md with the default the class has, and every property table of README.md and docs/ that names one
 * of its properties gives that default; every session property of the connector is in the session property table of
 * docs/properties.md with its type and default, and every documented one exists; every attribute of the connector's
 * MBeans is in its section of docs/metrics.md and nothing else is, and the table of MBeans names each by its class's
 * package. Properties, session properties and MBeans of {@code overdrive_shards} are checked in plugin-merge
 * ({@code TestMergeDocsAgreeWithCode}).
 */
class TestDocsAgreeWithCode
{
    static final Path DOCS = ROOT.resolve("docs");
    static final List<Class<?>> CONFIGS = List.of(PageCacheConfig.class, CoordinatorCacheConfig.class, SharedScanConfig.class, PeerConfig.class,
            HedgedReadConfig.class, NodeSelectionConfig.class);
    // the properties of those classes start so; shards.* and merge.* belong to the shards connector
    static final List<String> PREFIXES = List.of("cache.", "hedged-read.", "node-selection");
    static final List<Class<?>> STATS = List.of(PageCacheStats.class, SharedScanStats.class, PeerStats.class, CoordinatorCacheStats.class,
            HedgedReadStats.class, PlacementStats.class);
    // the connectors whose session properties are OverdriveSessionProperties'
    private static final Set<String> CONNECTORS = Set.of("overdrive_hive", "overdrive_iceberg");
    // the MBean domains of those classes' ObjectNames start so; io.overdrive.merge.* are the shards connector's
    static final List<String> DOMAINS = List.of("io.overdrive.cache.", "io.overdrive.scheduler.");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern OBJECT_NAME = Pattern.compile("(io\\.overdrive(?:\\.[a-z0-9]+)+):type=([A-Za-z0-9]+)(,[^`]*)?");

    @Test
    void everyPropertyIsDocumentedWithItsDefault()
            throws Exception
    {
        Map<String, ConfigProperty> inCode = configProperties();
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        // every property table of README.md and docs/ that names one of the connector's properties
        for (Path page : pages()) {
            for (Row row : rows(page)) {
                if (!row.header().getFirst().equals("property")) {
                    continue;
                }
                List<String> named = names(row.first());
                List<String> cells = row.cell("default").map(cell -> defaults(cell, named.size())).orElse(List.of());
                for (int index = 0; index < named.size(); index++) {
                    String property = named.get(index);
                    // patterns (`merge.*`, `cache.read-ahead*`) and other connectors' properties
                    if (property.contains("*") || PREFIXES.stream().noneMatch(property::startsWith)) {
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
        assertThat(compared).as("documented defaults compared").isGreaterThan(60);
        // and each of them in docs/properties.md
        Set<String> reference = new TreeSet<>();
        for (Row row : rows(DOCS.resolve("properties.md"))) {
            if (row.header().getFirst().equals("property") && row.cell("default").isPresent()) {
                reference.addAll(names(row.first()));
            }
        }
        for (ConfigProperty property : inCode.values()) {
            if (property.name().contains(".testing.")) {
                // a fault injector for benchmarks and tests: named in the text, with no row of its own
                if (!propertiesText().contains("`" + property.name() + "`")) {
                    mismatches.add("docs/properties.md: does not name `%s` (%s)".formatted(property.name(), property.type().getSimpleName()));
                }
            }
            else if (!reference.contains(property.name())) {
                mismatches.add("docs/properties.md: no row for `%s` (%s, default %s)".formatted(property.name(), property.type().getSimpleName(), property.defaultValue()));
            }
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void everySessionPropertyIsDocumentedWithItsTypeAndDefault()
    {
        Map<String, PropertyMetadata<?>> inCode = OverdriveSessionProperties.properties().stream()
                .collect(toMap(PropertyMetadata::getName, identity()));
        List<String> mismatches = new ArrayList<>();
        Set<String> reference = new TreeSet<>();
        for (Path page : pages()) {
            for (Row row : rows(page)) {
                if (!row.header().getFirst().equals("session property")) {
                    continue;
                }
                boolean ours = row.connector().map(CONNECTORS::contains).orElse(false);
                for (String name : names(row.first())) {
                    PropertyMetadata<?> property = inCode.get(name);
                    if (property == null) {
                        // a table under no connector's heading may list the shards connector's
                        if (ours) {
                            mismatches.add("%s: session property `%s` is documented for %s, but OverdriveSessionProperties has no such property".formatted(row.where(), name, row.connector().orElseThrow()));
                        }
                        continue;
                    }
                    if (!ours && row.connector().isPresent()) {
                        continue;
                    }
                    if (page.endsWith("properties.md")) {
                        reference.add(name);
                    }
                    row.cell("type").filter(type -> !typeAgrees(property, type))
                            .ifPresent(type -> mismatches.add("%s: session property `%s` has type %s in the docs, but the code declares %s".formatted(row.where(), name, type, describeType(property))));
                    row.cell("default").filter(cell -> !agrees(property.getDefaultValue(), cell))
                            .ifPresent(cell -> mismatches.add("%s: session property `%s` defaults to %s in the docs, but to %s in the code".formatted(row.where(), name, cell, property.getDefaultValue())));
                }
            }
        }
        for (PropertyMetadata<?> property : inCode.values()) {
            if (!property.isHidden() && !reference.contains(property.getName())) {
                mismatches.add("docs/properties.md: no session property row for `%s` (%s, default %s)".formatted(property.getName(), describeType(property), property.getDefaultValue()));
            }
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void everyMetricIsDocumentedInItsSection()
            throws IOException
    {
        String metrics = Files.readString(DOCS.resolve("metrics.md"));
        List<String> mismatches = new ArrayList<>();
        for (Class<?> type : STATS) {
            Set<String> documented = documentedAttributes(metrics, type.getSimpleName());
            Set<String> exported = attributes(type);
            for (String attribute : exported) {
                if (!documented.contains(attribute)) {
                    mismatches.add("%s.%s: not in docs/metrics.md".formatted(type.getSimpleName(), attribute));
                }
            }
            for (String attribute : documented) {
                if (!exported.contains(attribute)) {
                    mismatches.add("%s.%s: in docs/metrics.md, no such attribute".formatted(type.getSimpleName(), attribute));
                }
            }
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void theTableOfMBeansNamesEachByItsPackage()
    {
        // the Hive connector's name generator: domain = the class's package, type = its simple name, and the catalog
        Map<String, Class<?>> stats = STATS.stream().collect(toMap(Class::getSimpleName, identity()));
        List<String> mismatches = new ArrayList<>();
        Set<String> listed = new TreeSet<>();
        for (Row row : rows(DOCS.resolve("metrics.md"))) {
            if (!row.header().getFirst().equals("objectname")) {
                continue;
            }
            for (String span : codeSpans(row.first())) {
                Matcher name = OBJECT_NAME.matcher(span);
                if (!name.matches() || DOMAINS.stream().noneMatch(name.group(1)::startsWith)) {
                    continue;
                }
                Class<?> type = stats.get(name.group(2));
                if (type == null) {
                    mismatches.add("%s: `%s` names no MBean of plugin-cache or plugin-scheduler".formatted(row.where(), span));
                    continue;
                }
                listed.add(type.getSimpleName());
                String expected = "%s:type=%s,name=<catalog>,catalog=<catalog>".formatted(type.getPackageName(), type.getSimpleName());
                if (!span.equals(expected)) {
                    mismatches.add("%s: `%s`, but %s is exported as `%s`".formatted(row.where(), span, type.getName(), expected));
                }
            }
        }
        stats.keySet().stream().filter(type -> !listed.contains(type))
                .forEach(type -> mismatches.add("docs/metrics.md: the table of MBeans has no row for %s".formatted(type)));
        assertThat(mismatches).isEmpty();
    }

    @Test
    void aWrongDefaultOrAMissingNameIsFound()
    {
        // the comparisons the tests above rely on, both ways
        assertThat(agrees(new Duration(250, MILLISECONDS), "`250ms`")).isTrue();
        assertThat(agrees(new Duration(250, MILLISECONDS), "`1s`")).isFalse();
        assertThat(agrees(DataSize.of(16, MEGABYTE), "`16MB`")).isTrue();
        assertThat(agrees(DataSize.of(16, MEGABYTE), "`64MB`")).isFalse();
        assertThat(agrees(Optional.empty(), "none (no limit)")).isTrue();
        assertThat(agrees(Optional.of(DataSize.of(1, GIGABYTE)), "none")).isFalse();
        assertThat(agrees(32, "`32`")).isTrue();
        assertThat(agrees(32, "`0`")).isFalse();
        assertThat(agrees(0.15, "`0.15`")).isTrue();
        assertThat(agrees(false, "`true`")).isFalse();
        assertThat(agrees(List.of(), "none")).isTrue();
        assertThat(documentedAttributes("## `X`\n\n| attribute | type | meaning |\n| --- | --- | --- |\n| `A`, `B` | long | . |\n| `C.*` | `TimeStat` | . |\n\n## `Y`\n| `D` | long | . |\n", "X"))
                .containsExactlyInAnyOrder("A", "B", "C");
        // tables: the header, the connector of the heading above, several names in a row, a default each
        List<Row> rows = MarkdownTables.rows(Path.of("x.md"), """
                # The `overdrive_shards` connector
                ## Properties
                | property | default | meaning |
                | --- | --- | --- |
                | `shards.user` / `.password` | the query's user / none | a \\| b |
                """);
        assertThat(rows).hasSize(1);
        assertThat(rows.getFirst().connector()).contains("overdrive_shards");
        assertThat(rows.getFirst().cell("default")).contains("the query's user / none");
        assertThat(rows.getFirst().cell("meaning")).contains("a \\| b");
        assertThat(names(rows.getFirst().first())).containsExactly("shards.user", "shards.password");
        assertThat(defaults("the query's user / none", 2)).containsExactly("the query's user", "none");
        assertThat(defaults("`1s`", 2)).containsExactly("`1s`", "`1s`");
        // session properties: an enum's choices, a boolean's type
        PropertyMetadata<?> populate = OverdriveSessionProperties.properties().stream()
                .filter(property -> property.getName().equals(OverdriveSessionProperties.CACHE_POPULATE)).findFirst().orElseThrow();
        assertThat(typeAgrees(populate, "`AUTO`, `ALWAYS` or `NEVER`")).isTrue();
        assertThat(typeAgrees(populate, "`AUTO` or `ALWAYS`")).isFalse();
        assertThat(typeAgrees(populate, "varchar")).isFalse();
        PropertyMetadata<?> enabled = OverdriveSessionProperties.properties().getFirst();
        assertThat(typeAgrees(enabled, "boolean")).isTrue();
        assertThat(typeAgrees(enabled, "integer")).isFalse();
    }

    record ConfigProperty(String name, Class<?> type, Method getter, Object defaultValue) {}

    // every @Config property of the connector's configuration classes, with the default a new instance has
    static Map<String, ConfigProperty> configProperties()
            throws ReflectiveOperationException
    {
        Map<String, ConfigProperty> properties = new LinkedHashMap<>();
        for (Class<?> type : CONFIGS) {
            Object defaults = type.getConstructor().newInstance();
            for (Method setter : type.getMethods()) {
                Config config = setter.getAnnotation(Config.class);
                if (config != null) {
                    Method getter = getter(type, setter);
                    properties.put(config.value(), new ConfigProperty(config.value(), type, getter, getter.invoke(defaults)));
                }
            }
        }
        return properties;
    }

    private static String propertiesText()
            throws IOException
    {
        return Files.readString(DOCS.resolve("properties.md"));
    }

    private static String describeType(PropertyMetadata<?> property)
    {
        if (property.getJavaType().isEnum()) {
            return Arrays.toString(property.getJavaType().getEnumConstants());
        }
        return property.getSqlType().getDisplayName();
    }

    // the attribute names of the rows of the section "## `<mbean>`" (and of a section naming it among others)
    static Set<String> documentedAttributes(String metrics, String mbean)
    {
        Set<String> names = new TreeSet<>();
        boolean inSection = false;
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("## ")) {
                inSection = Arrays.asList(line.substring(3).replace("`", "").split(",\\s*")).contains(mbean);
                continue;
            }
            if (!inSection || !line.startsWith("| `")) {
                continue;
            }
            Matcher code = CODE.matcher(Splitter.on('|').splitToList(line).get(1));
            while (code.find()) {
                String name = code.group(1);
                names.add(name.endsWith(".*") ? name.substring(0, name.length() - 2) : name);
            }
        }
        return names;
    }

    // the attributes JMX shows for the class: its @Managed getters, @Nested ones as a prefix
    private static Set<String> attributes(Class<?> type)
    {
        Set<String> names = new TreeSet<>();
        for (Method method : type.getMethods()) {
            if (method.getParameterCount() != 0 || !(method.isAnnotationPresent(Managed.class) || method.isAnnotationPresent(Nested.class))) {
                continue;
            }
            String name = method.getName();
            if (name.startsWith("get")) {
                names.add(name.substring(3));
            }
            else if (name.startsWith("is")) {
                names.add(name.substring(2));
            }
        }
        return names;
    }
}
