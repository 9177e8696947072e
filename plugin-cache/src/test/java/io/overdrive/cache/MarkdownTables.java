package io.overdrive.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Locale.ENGLISH;

/**
 * The tables of the operator's pages, row by row, for the tests that hold the pages to the code: each row with its
 * table's header, its file and line, and the connector its section is about (the nearest heading that names one).
 */
public final class MarkdownTables
{
    public static final Path ROOT = Path.of("..");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern CONNECTOR = Pattern.compile("overdrive_(hive|iceberg|shards)");
    // a cell ends at a | that is not escaped (`\|` inside a cell)
    private static final Pattern CELL_SEPARATOR = Pattern.compile("(?<!\\\\)\\|");

    private MarkdownTables() {}

    public record Row(Path file, int line, Optional<String> connector, List<String> header, List<String> cells)
    {
        // the cell of the column the header names so, or empty when the row has no such column
        public Optional<String> cell(String column)
        {
            int index = header.indexOf(column);
            return index < 0 || index >= cells.size() ? Optional.empty() : Optional.of(cells.get(index));
        }

        public String first()
        {
            return cells.getFirst();
        }

        public String where()
        {
            return ROOT.relativize(file).toString().replace('\\', '/') + ":" + line;
        }
    }

    // README.md and every page under docs/
    public static List<Path> pages()
    {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.walk(ROOT.resolve("docs"))) {
            files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    public static List<Row> rows(Path file)
    {
        try {
            return rows(file, Files.readString(file));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Row> rows(Path file, String text)
    {
        List<Row> rows = new ArrayList<>();
        // heading level -> its text, for the headings above the current line
        TreeMap<Integer, String> headings = new TreeMap<>();
        List<String> header = null;
        String[] lines = text.split("\n", -1);
        boolean fenced = false;
        for (int index = 0; index < lines.length; index++) {
            String line = lines[index].strip();
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            if (fenced) {
                header = null;
                continue;
            }
            if (line.startsWith("#")) {
                int level = line.indexOf(' ') < 0 ? line.length() : line.indexOf(' ');
                headings.tailMap(level, true).clear();
                headings.put(level, line);
            }
            if (!line.startsWith("|")) {
                header = null;
                continue;
            }
            List<String> cells = cells(line);
            if (header == null) {
                header = cells.stream().map(cell -> cell.toLowerCase(ENGLISH)).toList();
                continue;
            }
            if (line.replaceAll("[|\\-: ]", "").isEmpty()) {
                continue;
            }
            rows.add(new Row(file, index + 1, connector(headings), header, cells));
        }
        return rows;
    }

    private static List<String> cells(String line)
    {
        String inner = line.substring(1, line.endsWith("|") && line.length() > 1 ? line.length() - 1 : line.length());
        return Arrays.stream(CELL_SEPARATOR.split(inner, -1)).map(String::strip).toList();
    }

    // the connector named by the nearest heading above that names one
    private static Optional<String> connector(NavigableMap<Integer, String> headings)
    {
        for (String heading : headings.descendingMap().values()) {
            Matcher matcher = CONNECTOR.matcher(heading);
            if (matcher.find()) {
                return Optional.of(matcher.group());
            }
        }
        return Optional.empty();
    }

    // the text of each `code span` of a cell or line
    public static List<String> codeSpans(String text)
    {
        List<String> spans = new ArrayList<>();
        Matcher matcher = CODE.matcher(text);
        while (matcher.find()) {
            spans.add(matcher.group(1));
        }
        return spans;
    }

    /**
     * The property names a row's first cell names: its code spans, a span that starts with a dot completing the
     * previous name (`shards.ssl.truststore.path` / `.password`).
     */
    public static List<String> names(String cell)
    {
        List<String> names = new ArrayList<>();
        for (String span : codeSpans(cell)) {
            if (span.startsWith(".") && !names.isEmpty()) {
                String previous = names.getLast();
                names.add(previous.substring(0, previous.lastIndexOf('.')) + span);
            }
            else {
                names.add(span);
            }
        }
        return names;
    }

    /**
     * The default cell of each name: a cell with as many parts between " / " as the row names properties gives each
     * its own (`shards.user` / `shards.password`: the query's user / none); otherwise the cell is every name's.
     */
    public static List<String> defaults(String cell, int names)
    {
        List<String> parts = Arrays.stream(cell.split(" / ")).map(String::strip).toList();
        return parts.size() == names ? parts : Collections.nCopies(names, cell);
    }
}
