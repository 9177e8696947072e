package io.overdrive.cache;

import io.airlift.configuration.Config;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
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
import io.overdrive.scheduler.affinity.NodeSelectionConfig;
import io.overdrive.scheduler.affinity.PlacementStats;
import org.junit.jupiter.api.Test;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
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
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's reference pages against the code: every property of the connector's configuration classes is in
 * docs/properties.md with the default the class has, every property documented there under those prefixes exists, and
 * every attribute of the connector's MBeans is in its section of docs/metrics.md and nothing else is.
 */
class TestDocsAgreeWithCode
{
    private static final Path DOCS = Path.of("..", "docs");
    private static final List<Class<?>> CONFIGS = List.of(PageCacheConfig.class, CoordinatorCacheConfig.class, SharedScanConfig.class, PeerConfig.class,
            HedgedReadConfig.class, NodeSelectionConfig.class);
    // the properties of those classes start so; shards.* and merge.* belong to the shards connector
    private static final List<String> PREFIXES = List.of("cache.", "hedged-read.", "node-selection");
    private static final List<Class<?>> STATS = List.of(PageCacheStats.class, SharedScanStats.class, PeerStats.class, CoordinatorCacheStats.class,
            HedgedReadStats.class, PlacementStats.class);
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void everyPropertyIsDocumentedWithItsDefault()
            throws Exception
    {
        Map<String, String> documented = documentedDefaults();
        List<String> mismatches = new ArrayList<>();
        Set<String> inCode = new TreeSet<>();
        for (Class<?> type : CONFIGS) {
            Object defaults = type.getConstructor().newInstance();
            for (Method setter : type.getMethods()) {
                Config config = setter.getAnnotation(Config.class);
                if (config == null) {
                    continue;
                }
                String property = config.value();
                inCode.add(property);
                String cell = documented.get(property);
                if (property.contains(".testing.")) {
                    // a fault injector for benchmarks and tests: named in the text, with no row of its own
                    if (!propertiesText().contains("`" + property + "`")) {
                        mismatches.add(property + ": not named in docs/properties.md");
                    }
                    continue;
                }
                if (cell == null) {
                    mismatches.add(property + ": not in docs/properties.md");
                    continue;
                }
                Object value = getter(type, setter).invoke(defaults);
                if (!agrees(value, cell)) {
                    mismatches.add("%s: docs/properties.md says %s, %s has %s".formatted(property, cell, type.getSimpleName(), value));
                }
            }
        }
        for (String property : documented.keySet()) {
            if (PREFIXES.stream().anyMatch(property::startsWith) && !inCode.contains(property)) {
                mismatches.add(property + ": in docs/properties.md, no such property");
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
    }

    private static String propertiesText()
            throws IOException
    {
        return Files.readString(DOCS.resolve("properties.md"));
    }

    // property name -> the default column of its row, in every table of properties.md
    private static Map<String, String> documentedDefaults()
            throws IOException
    {
        Map<String, String> defaults = new LinkedHashMap<>();
        for (String line : Files.readAllLines(DOCS.resolve("properties.md"))) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            // | name | type | default | ...
            if (cells.length < 4) {
                continue;
            }
            Matcher name = CODE.matcher(cells[1]);
            if (name.find()) {
                defaults.putIfAbsent(name.group(1), cells[3].trim());
            }
        }
        return defaults;
    }

    private static Method getter(Class<?> type, Method setter)
            throws NoSuchMethodException
    {
        String suffix = setter.getName().substring("set".length());
        for (String prefix : List.of("get", "is")) {
            try {
                return type.getMethod(prefix + suffix);
            }
            catch (NoSuchMethodException e) {
                // the other prefix
            }
        }
        throw new NoSuchMethodException("no getter for " + setter);
    }

    // whether a default as the class has it agrees with the doc's cell: a value in backticks, or words for none
    static boolean agrees(Object value, String cell)
    {
        Matcher code = CODE.matcher(cell);
        Optional<String> documented = code.find() && cell.trim().startsWith("`") ? Optional.of(code.group(1)) : Optional.empty();
        if (value instanceof Optional<?> optional) {
            return optional.isEmpty() ? documented.isEmpty() : documented.isPresent() && agrees(optional.get(), cell);
        }
        if (value instanceof Collection<?> collection && collection.isEmpty()) {
            return documented.isEmpty();
        }
        if (value == null) {
            return documented.isEmpty();
        }
        if (documented.isEmpty()) {
            return false;
        }
        String text = documented.get();
        try {
            return switch (value) {
                case Duration duration -> Duration.valueOf(text).toMillis() == duration.toMillis();
                case DataSize size -> DataSize.valueOf(text).toBytes() == size.toBytes();
                case Boolean flag -> Boolean.parseBoolean(text) == flag && (text.equals("true") || text.equals("false"));
                case Integer number -> Integer.parseInt(text) == number;
                case Long number -> Long.parseLong(text) == number;
                case Double number -> Double.parseDouble(text) == number;
                case Enum<?> constant -> constant.name().equalsIgnoreCase(text);
                case Collection<?> collection -> String.join(",", collection.stream().map(Object::toString).toList()).equals(text);
                default -> value.toString().equals(text);
            };
        }
        catch (IllegalArgumentException e) {
            return false;
        }
    }

    // the attribute names of the rows of the section "## `<mbean>`" (and of a section naming it among others)
    static Set<String> documentedAttributes(String metrics, String mbean)
    {
        Set<String> names = new TreeSet<>();
        boolean inSection = false;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("## ")) {
                inSection = Arrays.asList(line.substring(3).replace("`", "").split(",\\s*")).contains(mbean);
                continue;
            }
            if (!inSection || !line.startsWith("| `")) {
                continue;
            }
            Matcher code = CODE.matcher(line.split("\\|")[1]);
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
