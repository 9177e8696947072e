package io.overdrive.it.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.nio.charset.StandardCharsets.UTF_8;

final class BenchmarkStats
{
    private BenchmarkStats() {}

    /** Writes a benchmark's Markdown report to {@code integration-tests/target/benchmarks/<fileName>} and prints it. */
    static Path writeReport(String fileName, String markdown)
            throws IOException
    {
        Path output = Path.of(System.getProperty("overdrive.repo", "..")).toAbsolutePath().normalize().resolve("integration-tests/target/benchmarks").resolve(fileName);
        Files.createDirectories(output.getParent());
        Files.writeString(output, markdown, UTF_8);
        System.out.println(markdown);
        return output;
    }

    /** Nearest-rank percentile: the smallest sample with at least {@code percent}% of the samples at or below it. */
    static double percentile(List<Double> samples, double percent)
    {
        checkArgument(samples != null && !samples.isEmpty(), "no samples");
        List<Double> sorted = samples.stream().sorted().toList();
        int rank = (int) Math.ceil(percent / 100 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
    }

    /** The middle sample, or the mean of the two middle ones. */
    static double median(List<Double> samples)
    {
        checkArgument(samples != null && !samples.isEmpty(), "no samples");
        List<Double> sorted = samples.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    static String formatMillis(double millis)
    {
        return millis >= 100 ? "%,.0f".formatted(millis) : "%.1f".formatted(millis);
    }

    static String formatRatio(double ratio)
    {
        return "%.1f%%".formatted(100 * ratio);
    }

    static String formatBytes(long bytes)
    {
        if (Math.abs(bytes) < 1024 * 1024) {
            return "%,.1f KiB".formatted(bytes / 1024.0);
        }
        return "%,.1f MiB".formatted(bytes / 1024.0 / 1024.0);
    }
}
