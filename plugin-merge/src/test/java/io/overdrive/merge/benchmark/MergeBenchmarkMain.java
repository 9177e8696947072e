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
 * Runs {@link MergeBenchmark} with short settings (1 fork, 3 x 1 s warmup, 5 x 1 s measurement; about 6 minutes on
 * 2 cores) and prints a table with each configuration's time per merge, merges per second and speed-up over the
 * serial baseline. Any JMH command-line option can be added, e.g. {@code -p inputs=8} or {@code -i 10}.
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
                .warmupIterations(commandLine.getWarmupIterations().orElse(3))
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
        record Row(int inputs, String combining, String parallelism, double score, double error) {}
        List<Row> rows = new ArrayList<>();
        for (RunResult result : results) {
            var params = result.getParams();
            rows.add(new Row(
                    Integer.parseInt(params.getParam("inputs")),
                    params.getParam("combining"),
                    params.getParam("parallelism"),
                    result.getPrimaryResult().getScore(),
                    result.getPrimaryResult().getScoreError()));
        }
        Map<String, Row> serial = new HashMap<>();
        for (Row row : rows) {
            if (row.parallelism().equals("serial")) {
                serial.put(row.inputs() + row.combining(), row);
            }
        }
        List<String> order = List.of("serial", "1", "2", "auto");
        rows.sort(Comparator.comparingInt(Row::inputs)
                .thenComparing(Row::combining)
                .thenComparingInt(row -> order.indexOf(row.parallelism())));
        StringBuilder out = new StringBuilder();
        out.append("| k | combining | parallelism | ms/merge (± 99.9% error) | merges/s | vs serial |\n");
        out.append("|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            Row base = serial.get(row.inputs() + row.combining());
            String ratio = base == null ? "" : String.format(Locale.ROOT, "%.2fx", base.score() / row.score());
            out.append(String.format(Locale.ROOT, "| %d | %s | %s | %.1f ± %.1f | %.2f | %s |%n",
                    row.inputs(), row.combining().toLowerCase(Locale.ROOT), row.parallelism(), row.score(), row.error(), 1000 / row.score(), ratio));
        }
        return out.toString();
    }
}
