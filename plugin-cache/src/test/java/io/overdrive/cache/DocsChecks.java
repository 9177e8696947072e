package io.overdrive.cache;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.trino.spi.session.PropertyMetadata;
import org.weakref.jmx.Flatten;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static io.overdrive.cache.MarkdownTables.ROOT;
import static io.overdrive.cache.MarkdownTables.codeSpans;
import static io.overdrive.cache.MarkdownTables.pages;

/**
 * What the tests that hold the docs to the code compare, for the connectors of plugin-cache and of plugin-merge alike:
 * a configuration class's defaults against a doc's cell, a session property's type, the attributes JMX and
 * {@code /metrics} show for an MBean class, and the files the docs are made of.
 */
public final class DocsChecks
{
    private DocsChecks() {}

    // the getter of a @Config setter
    public static Method getter(Class<?> type, Method setter)
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

    // a session property's type as the docs give it: an enum's choices in code spans, otherwise the SQL type's name
    public static boolean typeAgrees(PropertyMetadata<?> property, String cell)
    {
        List<String> spans = codeSpans(cell);
        if (property.getJavaType().isEnum()) {
            Set<String> constants = new TreeSet<>();
            Arrays.stream(property.getJavaType().getEnumConstants()).forEach(constant -> constants.add(((Enum<?>) constant).name()));
            return new TreeSet<>(spans).equals(constants);
        }
        return spans.isEmpty() && cell.equals(property.getSqlType().getDisplayName());
    }

    // whether a default as the class has it agrees with the doc's cell: a value in backticks, or words for none
    public static boolean agrees(Object value, String cell)
    {
        List<String> spans = codeSpans(cell);
        Optional<String> documented = !spans.isEmpty() && cell.trim().startsWith("`") ? Optional.of(spans.getFirst()) : Optional.empty();
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

    /**
     * The attributes JMX shows for an MBean class, with their Java types: its {@code @Managed} getters, a
     * {@code @Nested} one's attributes under its name and a dot, repeatedly.
     */
    public static Map<String, Class<?>> attributes(Class<?> type)
    {
        Map<String, Class<?>> attributes = new TreeMap<>();
        collect(type, "", attributes);
        return attributes;
    }

    private static void collect(Class<?> type, String prefix, Map<String, Class<?>> attributes)
    {
        for (Method method : type.getMethods()) {
            boolean nested = method.isAnnotationPresent(Nested.class);
            boolean flatten = method.isAnnotationPresent(Flatten.class);
            if (method.getParameterCount() != 0 || !(method.isAnnotationPresent(Managed.class) || nested || flatten)) {
                continue;
            }
            String name = method.getName();
            if (name.startsWith("get")) {
                name = name.substring(3);
            }
            else if (name.startsWith("is")) {
                name = name.substring(2);
            }
            else {
                // an operation (reset)
                continue;
            }
            if (nested) {
                collect(method.getReturnType(), prefix + name + ".", attributes);
            }
            else if (flatten) {
                collect(method.getReturnType(), prefix, attributes);
            }
            else {
                attributes.put(prefix + name, method.getReturnType());
            }
        }
    }

    // a name as Airlift's OpenMetrics module writes it: every run of other characters than A-Z a-z 0-9 _ is one _
    public static String openMetricsName(String name)
    {
        return name.replaceAll("[^A-Za-z0-9_]+", "_");
    }

    // whether /metrics serves an attribute of this type (numbers and flags only)
    public static boolean isNumber(Class<?> type)
    {
        return (type.isPrimitive() && type != void.class && type != char.class) || Number.class.isAssignableFrom(type) || type == Boolean.class;
    }

    // the file and the line of an offset in its text
    public static String at(String where, String text, int offset)
    {
        return where + ":" + (1 + text.substring(0, offset).chars().filter(c -> c == '\n').count());
    }

    // README.md, docs/ and every text file under docker/
    public static List<Path> files()
    {
        List<Path> files = new ArrayList<>(pages());
        Path docker = ROOT.resolve("docker");
        if (Files.isDirectory(docker)) {
            try (Stream<Path> walk = Files.walk(docker)) {
                walk.filter(Files::isRegularFile).sorted().forEach(files::add);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    // the file's text, or null for a binary file
    public static String read(Path file)
    {
        try {
            if (Files.size(file) > 16 << 20) {
                return null;
            }
            return Files.readString(file);
        }
        catch (CharacterCodingException e) {
            return null;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
