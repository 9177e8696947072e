package io.overdrive.merge.benchmark;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs {@link MergeBenchmark} with short settings (1 fork, 8 x 1 s warmup, 5 x 1 s measurement; about 12 minutes on
 * 2 cores; Trino's merge needs about 5 s of warmup before its time per merge settles) and prints a table with each implementation's time per merge, merges per second and speed-up over the
 * serial baseline and the anchors (Trino's {@code MergeSortedPages}, Druid's {@code ParallelMergeCombiningSequence}).
 * Any JMH command-line option can be added, e.g. {@code -p inputs=8}, {@code -p implementation=engine-1,trino} or
 * {@code -i 10}.
 */
public final class MergeBenchmarkMain
{
    private MergeBenchmarkMain() {}

    public static void main(String[] args)
            throws Exception
    {
        Options commandLine = new CommandLineOptions(args);
        Options options = new OptionsBuilder()
                .parent(commandLine)
                .include(MergeBenchmark.class.getName() + ".merge")
                .forks(commandLine.getForkCount().orElse(1))
                .warmupIterations(commandLine.getWarmupIterations().orElse(8))
                .warmupTime(commandLine.getWarmupTime().orElse(TimeValue.seconds(1)))
                .measurementIterations(commandLine.getMeasurementIterations().orElse(5))
                .measurementTime(commandLine.getMeasurementTime().orElse(TimeValue.seconds(1)))
                .build();
        Collection<RunResult> results = new Runner(options).run();
        System.out.println();
        System.out.printf("machine: %s processors, %s, JDK %s%n", Runtime.getRuntime().availableProcessors(), System.getProperty("os.arch"), Runtime.version());
        System.out.print(table(results));
    }

    static String table(Collection<RunResult> results)
    {
        record Row(int inputs, String combining, String implementation, double score, double error) {}
        List<Row> rows = new ArrayList<>();
        for (RunResult result : results) {
            var params = result.getParams();
            rows.add(new Row(
                    Integer.parseInt(params.getParam("inputs")),
                    params.getParam("combining"),
                    params.getParam("implementation"),
                    result.getPrimaryResult().getScore(),
                    result.getPrimaryResult().getScoreError()));
        }
        // score per shape and implementation, for the ratio columns
        Map<String, Double> scores = new HashMap<>();
        for (Row row : rows) {
            scores.put(row.inputs() + row.combining() + row.implementation(), row.score());
        }
        List<String> order = List.of("serial", "engine-1", "engine-2", "engine-auto", "trino", "druid-1", "druid-parallel");
        List<String> anchors = List.of("serial", "trino", "druid-1", "druid-parallel");
        rows.sort(Comparator.comparingInt(Row::inputs)
                .thenComparing(Row::combining)
                .thenComparingInt(row -> order.indexOf(row.implementation())));
        StringBuilder out = new StringBuilder();
        out.append("| k | combining | implementation | ms/merge (± 99.9% error) | merges/s |");
        anchors.forEach(anchor -> out.append(" vs ").append(anchor).append(" |"));
        out.append("\n|---|---|---|---:|---:|");
        anchors.forEach(_ -> out.append("---:|"));
        out.append("\n");
        for (Row row : rows) {
            out.append(String.format(Locale.ROOT, "| %d | %s | %s | %.1f ± %.1f | %.2f |",
                    row.inputs(), row.combining().toLowerCase(Locale.ROOT), row.implementation(), row.score(), row.error(), 1000 / row.score()));
            for (String anchor : anchors) {
                // speed-up of this row over the anchor: above 1 means this row is faster
                Double base = scores.get(row.inputs() + row.combining() + anchor);
                out.append(base == null ? " |" : String.format(Locale.ROOT, " %.2fx |", base / row.score()));
            }
            out.append("\n");
        }
        return out.toString();
    }
}
