package io.overdrive.cache;

import com.google.common.base.Splitter;
import io.overdrive.cache.MarkdownTables.Row;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.scheduler.affinity.PlacementStats;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.overdrive.cache.DocsChecks.at;
import static io.overdrive.cache.DocsChecks.attributes;
import static io.overdrive.cache.DocsChecks.files;
import static io.overdrive.cache.DocsChecks.isNumber;
import static io.overdrive.cache.DocsChecks.openMetricsName;
import static io.overdrive.cache.DocsChecks.read;
import static io.overdrive.cache.MarkdownTables.ROOT;
import static io.overdrive.cache.MarkdownTables.codeSpans;
import static io.overdrive.cache.MarkdownTables.rows;
import static io.overdrive.cache.TestDocsAgreeWithCode.DOCS;
import static io.overdrive.cache.TestDocsAgreeWithCode.DOMAINS;
import static io.overdrive.cache.TestDocsAgreeWithCode.STATS;
import static java.util.function.Function.identity;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every metric of the connector's MBeans that README.md, docs/ or docker/ (dashboards, alert rules, scrape
 * configurations) name exists: as an OpenMetrics name ({@code JMX_<domain>_NAME_<catalog>_TYPE_<MBean>_ATTRIBUTE_<attribute>},
 * or any part from {@code TYPE_}), as {@code <MBean>.<attribute>}, or as an ObjectName ({@code <domain>:type=<MBean>}).
 * The MBeans of {@code overdrive_shards} are checked in plugin-merge ({@code TestMergeDocsAgreeWithCode}); here only
 * that they are listed in docs/metrics.md.
 */
class TestMetricNamesInDocs
{
    // JMX_<domain>_NAME_<name>_TYPE_<type>_ATTRIBUTE_<attribute>, the attribute possibly a regex alternation or cut short
    static final Pattern OPENMETRICS = Pattern.compile(
            "(?:JMX_(?<domain>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*?)_NAME_\\S*?_)?TYPE_(?<type>[A-Za-z0-9]+)_ATTRIBUTE_(?<attribute>[A-Za-z0-9_]*)(?:\\((?<choices>[A-Za-z0-9_|]+)\\))?");
    // after a name: the rest of it left out or matched by a pattern
    private static final List<String> OPEN_ENDS = List.of(".*", ".+", "...", "…", "<", "*");
    private static final Pattern OBJECT_NAME = Pattern.compile("(io\\.overdrive(?:\\.[a-z0-9]+)+):type=([A-Za-z0-9]+)");

    @Test
    void everyMetricNamedExists()
    {
        Map<String, Class<?>> stats = STATS.stream().collect(toMap(Class::getSimpleName, identity()));
        Set<String> elsewhere = otherMBeans();
        List<String> unknown = new ArrayList<>();
        for (Path file : files()) {
            String text = read(file);
            if (text == null) {
                continue;
            }
            unknown.addAll(unknownReferences(where(file), text, stats, elsewhere));
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void anUnknownMetricIsFound()
    {
        Map<String, Class<?>> stats = Map.of("PageCacheStats", PageCacheStats.class, "PlacementStats", PlacementStats.class);
        Set<String> elsewhere = Set.of("ShardsStats");
        // names that exist
        assertThat(unknownReferences("x", """
                JMX_io_overdrive_cache_page_NAME_lake_TYPE_PageCacheStats_ATTRIBUTE_Hits 1.0
                sum(rate(JMX_io_overdrive_cache_page_NAME_lake_TYPE_PageCacheStats_ATTRIBUTE_BytesFromCache[5m]))
                {__name__=~"JMX_io_overdrive_cache_page_NAME_.+_TYPE_PageCacheStats_ATTRIBUTE_(Hits|Misses)"}
                `JMX_io_overdrive_scheduler_affinity_NAME_<catalog>_TYPE_PlacementStats_ATTRIBUTE_...`
                JMX_io_overdrive_scheduler_affinity_NAME_lake_TYPE_PlacementStats_ATTRIBUTE_Preferred_OneMinute_Rate
                `PlacementStats.Preferred.TotalCount`, `PageCacheStats.BackgroundWriteLatency.*`, `PageCacheStats.recordHit`
                `io.overdrive.cache.page:type=PageCacheStats,name=lake`, TYPE_ShardsStats_ATTRIBUTE_Whatever,
                JMX_java_lang_TYPE_Memory_ATTRIBUTE_HeapMemoryUsage_used
                """, stats, elsewhere)).isEmpty();
        // names that do not
        assertThat(unknownReferences("x", """
                JMX_io_overdrive_cache_page_NAME_lake_TYPE_PageCacheStats_ATTRIBUTE_Hit 1.0
                {__name__=~"JMX_io_overdrive_cache_page_NAME_.+_TYPE_PageCacheStats_ATTRIBUTE_(Hits|Misss)"}
                JMX_io_overdrive_cache_stats_NAME_lake_TYPE_PageCacheStats_ATTRIBUTE_Hits
                JMX_io_overdrive_scheduler_affinity_NAME_lake_TYPE_PlacementStats_ATTRIBUTE_Preferred_OneMinute_Rat
                JMX_io_overdrive_scheduler_affinity_NAME_lake_TYPE_PlacementStats_ATTRIBUTE_SplitsPerNode
                JMX_io_overdrive_cache_page_NAME_lake_TYPE_CacheStats_ATTRIBUTE_Hits
                `PlacementStats.Preferred.Total`, `io.overdrive.cache.stats:type=PageCacheStats,name=lake`
                """, stats, elsewhere))
                .hasSize(8)
                .anySatisfy(message -> assertThat(message).contains("PageCacheStats_ATTRIBUTE_Hit:").contains("no attribute"))
                .anySatisfy(message -> assertThat(message).contains("Misss"))
                .anySatisfy(message -> assertThat(message).contains("io_overdrive_cache_stats").contains("io_overdrive_cache_page"))
                .anySatisfy(message -> assertThat(message).contains("Preferred_OneMinute_Rat"))
                .anySatisfy(message -> assertThat(message).contains("SplitsPerNode").contains("not a number"))
                .anySatisfy(message -> assertThat(message).contains("CacheStats").contains("no MBean"))
                .anySatisfy(message -> assertThat(message).contains("PlacementStats.Preferred.Total"))
                .anySatisfy(message -> assertThat(message).contains("io.overdrive.cache.stats:type=PageCacheStats"));
    }

    static List<String> unknownReferences(String where, String text, Map<String, Class<?>> stats, Set<String> elsewhere)
    {
        List<String> unknown = new ArrayList<>();
        Matcher metric = OPENMETRICS.matcher(text);
        while (metric.find()) {
            String name = metric.group();
            String type = metric.group("type");
            String domain = metric.group("domain");
            Class<?> mbean = stats.get(type);
            if (mbean == null) {
                // Trino's own metrics pass; one of Overdrive's domains with an MBean nobody exports does not
                if (!elsewhere.contains(type) && domain != null && domain.startsWith("io_overdrive")) {
                    unknown.add("%s: %s: no MBean %s".formatted(at(where, text, metric.start()), name, type));
                }
                continue;
            }
            String expectedDomain = openMetricsName(mbean.getPackageName());
            if (domain != null && !domain.equals(expectedDomain)) {
                unknown.add("%s: %s: %s is exported in domain %s (JMX_%s_NAME_...)".formatted(at(where, text, metric.start()), name, type, mbean.getPackageName(), expectedDomain));
            }
            boolean openEnded = OPEN_ENDS.stream().anyMatch(end -> text.startsWith(end, metric.end()));
            List<String> attributes = new ArrayList<>();
            if (metric.group("choices") == null) {
                attributes.add(metric.group("attribute"));
            }
            else {
                for (String choice : Splitter.on('|').split(metric.group("choices"))) {
                    attributes.add(metric.group("attribute") + choice);
                }
            }
            Map<String, Class<?>> exported = openMetricsAttributes(mbean);
            for (String attribute : attributes) {
                if (attribute.isEmpty() && metric.group("choices") == null) {
                    continue;
                }
                Class<?> kind = exported.get(attribute);
                if (openEnded ? exported.keySet().stream().noneMatch(key -> key.startsWith(attribute)) : kind == null) {
                    unknown.add("%s: %s: %s has no attribute %s (closest: %s)".formatted(at(where, text, metric.start()), name, type, attribute, closest(attribute, exported.keySet())));
                }
                else if (kind != null && !isNumber(kind)) {
                    unknown.add("%s: %s: %s.%s is not a number (%s), so /metrics does not serve it".formatted(at(where, text, metric.start()), name, type, attribute, kind.getSimpleName()));
                }
            }
        }
        for (String type : stats.keySet()) {
            Matcher attribute = Pattern.compile("\\b" + type + "\\.([A-Z][A-Za-z0-9]*(?:\\.[A-Z][A-Za-z0-9]*)*)").matcher(text);
            while (attribute.find()) {
                String path = attribute.group(1);
                Set<String> exported = attributes(stats.get(type)).keySet();
                // an attribute, or a group of them (`Preferred`, `WaitTime.*`)
                if (!exported.contains(path) && exported.stream().noneMatch(key -> key.startsWith(path + "."))) {
                    unknown.add("%s: %s.%s: %s has no attribute %s".formatted(at(where, text, attribute.start()), type, path, type, path));
                }
            }
        }
        Matcher objectName = OBJECT_NAME.matcher(text);
        while (objectName.find()) {
            Class<?> mbean = stats.get(objectName.group(2));
            if (mbean == null) {
                if (!elsewhere.contains(objectName.group(2))) {
                    unknown.add("%s: %s: no MBean %s".formatted(at(where, text, objectName.start()), objectName.group(), objectName.group(2)));
                }
            }
            else if (!objectName.group(1).equals(mbean.getPackageName())) {
                unknown.add("%s: %s: %s is exported in domain %s".formatted(at(where, text, objectName.start()), objectName.group(), mbean.getSimpleName(), mbean.getPackageName()));
            }
        }
        return unknown;
    }

    // the MBeans of the table in docs/metrics.md that are not the connector's: those of overdrive_shards
    private static Set<String> otherMBeans()
    {
        Set<String> types = new TreeSet<>();
        for (Row row : rows(DOCS.resolve("metrics.md"))) {
            if (row.header().getFirst().equals("objectname")) {
                for (String span : codeSpans(row.first())) {
                    Matcher name = OBJECT_NAME.matcher(span);
                    if (name.lookingAt() && DOMAINS.stream().noneMatch(name.group(1)::startsWith)) {
                        types.add(name.group(2));
                    }
                }
            }
        }
        assertThat(types).as("the MBeans of overdrive_shards in the table of docs/metrics.md").isNotEmpty();
        return types;
    }

    private static String where(Path file)
    {
        return ROOT.relativize(file).toString().replace('\\', '/');
    }

    // the attributes as Airlift's OpenMetrics module names them: every run of other characters than A-Z a-z 0-9 _ is one _
    static Map<String, Class<?>> openMetricsAttributes(Class<?> type)
    {
        Map<String, Class<?>> attributes = new TreeMap<>();
        attributes(type).forEach((name, kind) -> attributes.put(openMetricsName(name), kind));
        return attributes;
    }

    // the exported attribute that shares the longest start with a name, to say what was probably meant
    private static String closest(String name, Set<String> exported)
    {
        String best = "";
        int bestLength = -1;
        for (String candidate : exported) {
            int length = 0;
            while (length < Math.min(name.length(), candidate.length()) && name.charAt(length) == candidate.charAt(length)) {
                length++;
            }
            if (length > bestLength) {
                best = candidate;
                bestLength = length;
            }
        }
        return best;
    }
}
