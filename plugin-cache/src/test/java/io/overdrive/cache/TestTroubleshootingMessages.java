package io.overdrive.cache;

import com.google.common.base.Splitter;
import io.overdrive.cache.MarkdownTables.Row;
import io.overdrive.cache.TestDocsAgreeWithCode.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.overdrive.cache.MarkdownTables.ROOT;
import static io.overdrive.cache.MarkdownTables.codeSpans;
import static io.overdrive.cache.MarkdownTables.names;
import static io.overdrive.cache.MarkdownTables.pages;
import static io.overdrive.cache.MarkdownTables.rows;
import static io.overdrive.cache.TestDocsAgreeWithCode.DOCS;
import static io.overdrive.cache.TestDocsAgreeWithCode.PREFIXES;
import static io.overdrive.cache.TestDocsAgreeWithCode.configProperties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The messages the operator's pages quote are the code's. A message is a code span with a blank in it (after the
 * parts that vary are taken out) in the first column of a table of docs/troubleshooting.md headed "message" or
 * "log line", or in the "validation" column of a property table of docs/. Each must occur in the main code of
 * plugin-cache, plugin-scheduler, plugin-merge, integration-tests (the demo) or the {@code overdrive} script:
 * <ul>
 * <li>The parts that vary are written {@code <name>}, {@code ...}, {@code [...]} or {@code %s} in the docs. The text
 * between them must be found in the code's string literals, where it may run across a literal's format placeholders
 * ({@code %s}, {@code %d}, ...) and across literals joined by {@code +}: the end of one literal, whole literals, the
 * start of another.</li>
 * <li>Airlift's prefix {@code Invalid configuration property <property>: } is left out before the search.</li>
 * <li>The message of a row that says "Trino's message" or "Airlift's message" (the first code span of its first
 * cell) is not Overdrive's, and must not be found in its code.</li>
 * <li>Bean validation's own messages, {@code must be greater than or equal to <bound>} and
 * {@code must be less than or equal to <bound>}, are checked against the constraint of the property they are quoted
 * for: {@code (for `property`)} after them in troubleshooting.md, or the row's property in a property table.</li>
 * </ul>
 */
class TestTroubleshootingMessages
{
    private static final Path TROUBLESHOOTING = DOCS.resolve("troubleshooting.md");
    private static final List<Path> SOURCES = List.of(
            ROOT.resolve("plugin-cache/src/main/java"),
            ROOT.resolve("plugin-scheduler/src/main/java"),
            ROOT.resolve("plugin-merge/src/main/java"),
            ROOT.resolve("integration-tests/src/main/java"));
    private static final Path SCRIPT = ROOT.resolve("overdrive");
    private static final Set<String> MESSAGE_COLUMNS = Set.of("message", "log line");
    private static final List<String> FOREIGN = List.of("Trino's message", "Airlift's message");
    // the parts of a quoted message that vary
    private static final Pattern PLACEHOLDER = Pattern.compile("\\[\\.\\.\\.]|\\s*(?:\\.\\.\\.|…)\\s*|<[^<>]+>|%[sd]");
    private static final Pattern AIRLIFT_PREFIX = Pattern.compile("^Invalid configuration property (?:with prefix '[^']*'|\\S+): ");
    private static final Pattern BOUND = Pattern.compile("must be (greater|less) than or equal to (\\S+)");
    private static final Pattern FOR = Pattern.compile("\\(for ([^)]*)\\)");
    // a Java format specifier, or Airlift's and Guava's %s
    private static final Pattern FORMAT = Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*\\d*(?:\\.\\d+)?[a-zA-Z]");
    private static final Pattern SHELL_SPLIT = Pattern.compile("\\$\\{[^}]*}|\\$\\([^)]*\\)|\\$[A-Za-z_][A-Za-z0-9_]*|\\$[0-9@*#?]|\"");
    private static final Set<String> AT_LEAST = Set.of("Min", "DecimalMin", "MinDataSize", "MinDuration");
    private static final Set<String> AT_MOST = Set.of("Max", "DecimalMax", "MaxDataSize", "MaxDuration");

    record Quote(String where, String message, boolean foreign) {}

    @Test
    void everyQuotedMessageIsInTheCode()
    {
        List<String> literals = literals();
        List<String> mismatches = new ArrayList<>();
        List<Quote> quotes = quotes();
        assertThat(quotes).as("messages quoted in docs/troubleshooting.md").hasSizeGreaterThan(50);
        for (Quote quote : quotes) {
            if (BOUND.matcher(quote.message()).matches()) {
                // bean validation's message: validationMessagesNameTheCodesBounds
                continue;
            }
            List<String> fragments = fragments(quote.message());
            if (quote.foreign()) {
                if (!fragments.isEmpty() && fragments.stream().allMatch(fragment -> found(fragment, literals))) {
                    mismatches.add("%s: `%s` is marked as Trino's or Airlift's message, but Overdrive's code has it".formatted(quote.where(), quote.message()));
                }
                continue;
            }
            for (String fragment : fragments) {
                if (!found(fragment, literals)) {
                    mismatches.add("%s: `%s`: no string literal of the code holds \"%s\"%s".formatted(quote.where(), quote.message(), fragment, closest(fragment, literals)));
                }
            }
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void validationMessagesNameTheCodesBounds()
            throws ReflectiveOperationException
    {
        Map<String, ConfigProperty> properties = configProperties();
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        for (Bound bound : bounds()) {
            if (bound.properties().isEmpty()) {
                mismatches.add("%s: `%s` says for no property which: add (for `<property>`)".formatted(bound.where(), bound.message()));
            }
            for (String property : bound.properties()) {
                ConfigProperty code = properties.get(property);
                if (code == null) {
                    if (PREFIXES.stream().anyMatch(property::startsWith)) {
                        mismatches.add("%s: `%s` for `%s`: no such property".formatted(bound.where(), bound.message(), property));
                    }
                    continue;
                }
                checked++;
                List<String> constraints = constraints(code.getter(), bound.atLeast());
                if (!constraints.contains(bound.value())) {
                    mismatches.add("%s: `%s` for `%s`, but %s.%s() has %s".formatted(bound.where(), bound.message(), property, code.type().getSimpleName(), code.getter().getName(),
                            describe(code.getter())));
                }
            }
        }
        assertThat(checked).as("bounds quoted for properties").isGreaterThan(5);
        assertThat(mismatches).isEmpty();
    }

    @Test
    void aChangedMessageIsFound()
    {
        List<String> literals = Stream.of("Shard %s (%s) failed: %s", "Table %s: column '%s' is %s on shard %d (%s) but %s on shard %d (%s); ", "the shards' column types must agree",
                "%s must be 'auto' or a positive integer, but is '%s'", "merge_parallelism", "overdrive cli: no demo cluster is running (", "/cluster.properties", " is missing): start one")
                .flatMap(literal -> pieces(literal).stream())
                .toList();
        assertThat(fragments("Shard <n> (<uri>) failed: <cause>")).containsExactly("Shard ", ") failed: ");
        assertThat(fragments("... must be at most 1000000 standard splits ...")).containsExactly("must be at most 1000000 standard splits");
        assertThat(fragments("Invalid configuration property merge.parallelism: merge.parallelism must be 'auto'")).containsExactly("merge.parallelism must be 'auto'");
        assertThat(fragments("no shard named [...]; the catalog")).containsExactly("no shard named ", "; the catalog");
        // within a literal, across its placeholders, across literals joined by +
        assertThat(found(") failed: ", literals)).isTrue();
        assertThat(found("' is ", literals)).isTrue();
        assertThat(found("; the shards' column types must agree", literals)).isTrue();
        assertThat(found("merge_parallelism must be 'auto' or a positive integer, but is '", literals)).isTrue();
        assertThat(found("/cluster.properties is missing): start one", literals)).isTrue();
        // a changed word, or text no literal joins
        assertThat(found(") failed with: ", literals)).isFalse();
        assertThat(found("merge_parallelism must be 'auto' or a negative integer", literals)).isFalse();
        assertThat(found("the shards' column types must agree!", literals)).isFalse();
        // the code's literals: escapes, text blocks, comments and char literals
        assertThat(javaLiterals("""
                // "not this"
                /* "nor this" */
                char quote = '"';
                String message = "a \\"quoted\\" %s" + \"""
                    text block
                    \""";
                """)).containsExactly("a \"quoted\" %s", "text block\n");
        assertThat(pieces("Read %,d rows of %s%% at %.1f")).containsExactly("Read ", " rows of ", "% at ");
    }

    // every message quoted in a message table of troubleshooting.md, or in a validation column of docs/
    private static List<Quote> quotes()
    {
        List<Quote> quotes = new ArrayList<>();
        for (Row row : rows(TROUBLESHOOTING)) {
            if (!MESSAGE_COLUMNS.contains(row.header().getFirst())) {
                continue;
            }
            boolean foreign = row.cells().stream().anyMatch(cell -> FOREIGN.stream().anyMatch(cell::contains));
            List<String> spans = codeSpans(row.first());
            // of Trino's or Airlift's message, the rest of the cell says where it shows (on `CREATE TABLE AS`)
            for (String span : foreign ? spans.subList(0, Math.min(1, spans.size())) : spans) {
                if (isMessage(span)) {
                    quotes.add(new Quote(row.where(), span, foreign));
                }
            }
        }
        for (Path page : pages()) {
            for (Row row : rows(page)) {
                Optional<String> validation = row.cell("validation");
                if (row.header().getFirst().equals("property") && validation.isPresent()) {
                    for (String span : codeSpans(validation.get())) {
                        if (isMessage(span)) {
                            quotes.add(new Quote(row.where(), span, false));
                        }
                    }
                }
            }
        }
        return quotes;
    }

    // a message has a blank in what does not vary: `cache.enabled`, `SHARD_FAILED` are names
    private static boolean isMessage(String span)
    {
        return PLACEHOLDER.matcher(AIRLIFT_PREFIX.matcher(span).replaceFirst("")).replaceAll("").strip().contains(" ");
    }

    // the text between the parts that vary, without Airlift's prefix; parts with no letter say nothing
    static List<String> fragments(String message)
    {
        String text = AIRLIFT_PREFIX.matcher(message).replaceFirst("");
        return Arrays.stream(PLACEHOLDER.split(text))
                .filter(fragment -> fragment.chars().anyMatch(Character::isLetter))
                .toList();
    }

    /**
     * Whether the text occurs in the code: within one piece of a literal (a literal split at its format placeholders),
     * or as the end of one piece, then whole pieces, then the start of another (a message built with + or formatted).
     */
    static boolean found(String text, List<String> pieces)
    {
        if (pieces.stream().anyMatch(piece -> piece.contains(text))) {
            return true;
        }
        // reached[i]: text[0, i) is the end of a piece followed by whole pieces
        boolean[] reached = new boolean[text.length() + 1];
        for (int end = 1; end < text.length(); end++) {
            String start = text.substring(0, end);
            reached[end] = pieces.stream().anyMatch(piece -> piece.endsWith(start));
        }
        for (int at = 1; at < text.length(); at++) {
            if (!reached[at]) {
                continue;
            }
            for (String piece : pieces) {
                if (text.startsWith(piece, at)) {
                    reached[at + piece.length()] = true;
                }
            }
        }
        if (reached[text.length()]) {
            return true;
        }
        for (int at = 1; at < text.length(); at++) {
            String rest = text.substring(at);
            if (reached[at] && pieces.stream().anyMatch(piece -> piece.startsWith(rest))) {
                return true;
            }
        }
        return false;
    }

    // the piece that holds the longest start of the text, to show what the code says instead
    private static String closest(String text, List<String> pieces)
    {
        for (int length = text.length() - 1; length >= 12; length--) {
            String start = text.substring(0, length);
            Optional<String> piece = pieces.stream().filter(candidate -> candidate.contains(start)).findFirst();
            if (piece.isPresent()) {
                return " (the code has \"%s\")".formatted(piece.get());
            }
        }
        return "";
    }

    // the string literals of the main code and the script, split at their format placeholders
    private static List<String> literals()
    {
        Set<String> pieces = new LinkedHashSet<>();
        for (Path source : SOURCES) {
            try (Stream<Path> files = Files.walk(source)) {
                for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                    javaLiterals(Files.readString(file)).forEach(literal -> pieces.addAll(pieces(literal)));
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try {
            for (String line : Files.readAllLines(SCRIPT)) {
                for (String part : Splitter.on(SHELL_SPLIT).split(line)) {
                    pieces.addAll(pieces(part));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(pieces).as("string literals of the main code").hasSizeGreaterThan(1000);
        return List.copyOf(pieces);
    }

    static List<String> pieces(String literal)
    {
        return Arrays.stream(FORMAT.split(literal.replace("%%", "\0")))
                .map(piece -> piece.replace('\0', '%'))
                .filter(piece -> !piece.isBlank())
                .toList();
    }

    // the string literals of Java source, unescaped; a text block's lines without their indentation
    static List<String> javaLiterals(String source)
    {
        List<String> literals = new ArrayList<>();
        int at = 0;
        while (at < source.length()) {
            if (source.startsWith("//", at)) {
                int end = source.indexOf('\n', at);
                at = end < 0 ? source.length() : end;
            }
            else if (source.startsWith("/*", at)) {
                at = source.indexOf("*/", at + 2) + 2;
            }
            else if (source.startsWith("\"\"\"", at)) {
                int end = source.indexOf("\"\"\"", at + 3);
                while (source.charAt(end - 1) == '\\') {
                    end = source.indexOf("\"\"\"", end + 3);
                }
                // the lines of the block without their indentation; the last one is what stands before the closing quotes
                String[] lines = source.substring(source.indexOf('\n', at) + 1, end).split("\n", -1);
                StringBuilder block = new StringBuilder();
                for (int line = 0; line < lines.length; line++) {
                    String text = lines[line].strip();
                    if (line == lines.length - 1) {
                        block.append(text);
                    }
                    else if (text.endsWith("\\") && !text.endsWith("\\\\")) {
                        block.append(text, 0, text.length() - 1);
                    }
                    else {
                        block.append(text).append('\n');
                    }
                }
                literals.add(unescape(block.toString()));
                at = end + 3;
            }
            else if (source.charAt(at) == '\'') {
                int end = at + 1;
                while (source.charAt(end) != '\'') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                at = end + 1;
            }
            else if (source.charAt(at) == '"') {
                int end = at + 1;
                while (source.charAt(end) != '"') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                literals.add(unescape(source.substring(at + 1, end)));
                at = end + 1;
            }
            else {
                at++;
            }
        }
        return literals;
    }

    private static String unescape(String text)
    {
        StringBuilder result = new StringBuilder();
        for (int at = 0; at < text.length(); at++) {
            char c = text.charAt(at);
            if (c != '\\' || at + 1 == text.length()) {
                result.append(c);
                continue;
            }
            char escaped = text.charAt(++at);
            switch (escaped) {
                case 'n' -> result.append('\n');
                case 't' -> result.append('\t');
                case 'r' -> result.append('\r');
                case 's' -> result.append(' ');
                case 'b' -> result.append('\b');
                case 'f' -> result.append('\f');
                case 'u' -> {
                    result.append((char) Integer.parseInt(text.substring(at + 1, at + 5), 16));
                    at += 4;
                }
                default -> result.append(escaped);
            }
        }
        return result.toString();
    }

    record Bound(String where, String message, boolean atLeast, String value, List<String> properties) {}

    // bean validation's messages quoted: in troubleshooting.md with (for `property`, ...) after them; in a property table's validation column for the row's properties
    private static List<Bound> bounds()
    {
        List<Bound> bounds = new ArrayList<>();
        for (Row row : rows(TROUBLESHOOTING)) {
            if (!MESSAGE_COLUMNS.contains(row.header().getFirst())) {
                continue;
            }
            String cell = row.first();
            Matcher span = Pattern.compile("`(" + BOUND.pattern() + ")`").matcher(cell);
            while (span.find()) {
                Matcher forProperties = FOR.matcher(cell);
                List<String> properties = forProperties.find(span.end()) ? codeSpans(forProperties.group(1)) : List.of();
                bounds.add(new Bound(row.where(), span.group(1), span.group(2).equals("greater"), span.group(3), properties));
            }
        }
        for (Path page : pages()) {
            for (Row row : rows(page)) {
                Optional<String> validation = row.cell("validation");
                if (!row.header().getFirst().equals("property") || validation.isEmpty()) {
                    continue;
                }
                for (String quoted : codeSpans(validation.get())) {
                    Matcher bound = BOUND.matcher(quoted);
                    if (bound.matches()) {
                        bounds.add(new Bound(row.where(), quoted, bound.group(1).equals("greater"), bound.group(2), names(row.first())));
                    }
                }
            }
        }
        return bounds;
    }

    // the bounds of a getter's constraints of one direction whose message is bean validation's own, as the message prints them
    private static List<String> constraints(Method getter, boolean atLeast)
    {
        List<String> values = new ArrayList<>();
        for (Annotation annotation : annotations(getter)) {
            String kind = annotation.annotationType().getSimpleName();
            if (!(atLeast ? AT_LEAST : AT_MOST).contains(kind)) {
                continue;
            }
            Map<String, Object> attributes = attributes(annotation);
            String message = String.valueOf(attributes.get("message"));
            boolean inclusive = !Boolean.FALSE.equals(attributes.get("inclusive"));
            if (inclusive && (message.startsWith("{") || message.contains("{value}"))) {
                values.add(String.valueOf(attributes.get("value")));
            }
        }
        return values;
    }

    private static String describe(Method getter)
    {
        List<String> described = new ArrayList<>();
        for (Annotation annotation : annotations(getter)) {
            String kind = annotation.annotationType().getSimpleName();
            if (AT_LEAST.contains(kind) || AT_MOST.contains(kind)) {
                Map<String, Object> attributes = attributes(annotation);
                String message = String.valueOf(attributes.get("message"));
                described.add("@%s(%s%s)".formatted(kind, attributes.get("value"), message.startsWith("{") || message.contains("{value}") ? "" : ", message \"" + message + "\""));
            }
        }
        return described.isEmpty() ? "no bound" : String.join(" ", described);
    }

    // a getter's annotations, and those of its Optional's type argument (Optional<@MinDuration("1s") Duration>)
    private static List<Annotation> annotations(Method getter)
    {
        List<Annotation> annotations = new ArrayList<>(Arrays.asList(getter.getAnnotations()));
        if (getter.getAnnotatedReturnType() instanceof AnnotatedParameterizedType parameterized) {
            for (AnnotatedType argument : parameterized.getAnnotatedActualTypeArguments()) {
                annotations.addAll(Arrays.asList(argument.getAnnotations()));
            }
        }
        return annotations;
    }

    private static Map<String, Object> attributes(Annotation annotation)
    {
        Map<String, Object> attributes = new HashMap<>();
        for (Method method : annotation.annotationType().getDeclaredMethods()) {
            if (method.getParameterCount() == 0) {
                try {
                    attributes.put(method.getName(), method.invoke(annotation));
                }
                catch (ReflectiveOperationException e) {
                    throw new LinkageError(e.getMessage(), e);
                }
            }
        }
        return attributes;
    }
}
