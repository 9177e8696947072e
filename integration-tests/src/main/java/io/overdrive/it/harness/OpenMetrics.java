package io.overdrive.it.harness;

import javax.management.ObjectName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * What a Prometheus server sees: one scrape of a Trino node's OpenMetrics endpoint ({@code /metrics}), parsed into
 * samples. Trino serves there the MBeans its {@code metrics.jmx-object-names} property selects.
 */
public final class OpenMetrics
{
    // name{labels} value  (labels optional; OpenMetrics text format)
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s+(\\S+).*");
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    public record Sample(String name, String labels, double value)
    {
        public Sample
        {
            requireNonNull(name, "name is null");
            requireNonNull(labels, "labels is null");
        }
    }

    private OpenMetrics() {}

    /** Every sample the node at {@code node} serves at {@code /metrics}, fetched as user {@code overdrive}. */
    public static List<Sample> scrape(URI node)
    {
        HttpRequest request = HttpRequest.newBuilder(node.resolve("/metrics"))
                .header("X-Trino-User", "overdrive")
                .header("Accept", "application/openmetrics-text")
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        try {
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET %s answered %s: %s".formatted(request.uri(), response.statusCode(), response.body()));
            }
            return parse(response.body());
        }
        catch (IOException e) {
            throw new UncheckedIOException("GET " + request.uri(), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static List<Sample> parse(String body)
    {
        List<Sample> samples = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher matcher = SAMPLE.matcher(line);
            if (!matcher.matches()) {
                throw new IllegalArgumentException("Not an OpenMetrics sample: " + line);
            }
            String labels = matcher.group(2) == null ? "" : matcher.group(2);
            samples.add(new Sample(matcher.group(1), labels, Double.parseDouble(matcher.group(3))));
        }
        return List.copyOf(samples);
    }

    /**
     * The name Trino's {@code /metrics} gives an MBean attribute (airlift openmetrics): {@code JMX_}, the domain, then
     * {@code _NAME_<name>}, {@code _TYPE_<type>} and {@code _ATTRIBUTE_<attribute>}, every run of characters other than
     * letters, digits and {@code _} made one {@code _} (so {@code FirstAnswer.AllTime.P99} ends
     * {@code FirstAnswer_AllTime_P99}). Other keys of the object name are not part of it.
     */
    public static String metricName(ObjectName mbean, String attribute)
    {
        StringBuilder name = new StringBuilder("JMX_").append(mbean.getDomain());
        if (mbean.getKeyProperty("name") != null) {
            name.append("_NAME_").append(mbean.getKeyProperty("name"));
        }
        if (mbean.getKeyProperty("type") != null) {
            name.append("_TYPE_").append(mbean.getKeyProperty("type"));
        }
        name.append("_ATTRIBUTE_").append(attribute);
        return name.toString().replaceAll("[^a-zA-Z0-9_]+", "_");
    }

    /** The value of the one sample called {@code name}, if the scrape has it. */
    public static Optional<Double> value(List<Sample> samples, String name)
    {
        List<Sample> matching = samples.stream().filter(sample -> sample.name().equals(name)).toList();
        if (matching.size() > 1) {
            throw new IllegalStateException("%s samples are called %s: %s".formatted(matching.size(), name, matching));
        }
        return matching.stream().findFirst().map(Sample::value);
    }
}
