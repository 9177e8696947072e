package io.overdrive.it.benchmark;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where this JVM's threads spend their CPU while it runs: JFR's {@code jdk.ExecutionSample} (a thread running Java code,
 * every 10 ms), each sample put in the first category one of its frames belongs to. What JFR cannot see: time in native
 * code and the kernel (a {@code read} copying a cached page from the OS page cache).
 */
final class HitPathProfile
{
    /** Categories in the order they are tried, by the class-name prefixes of a sample's frames. */
    static final Map<String, List<String>> CATEGORIES = categories();

    private final Recording recording;

    private HitPathProfile(Recording recording)
    {
        this.recording = requireNonNull(recording, "recording is null");
    }

    static HitPathProfile start()
    {
        Recording recording = new Recording();
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
        // heap allocation, sampled by JFR and weighed by the bytes each sample stands for
        recording.enable("jdk.ObjectAllocationSample").with("throttle", "1000/s");
        recording.setToDisk(true);
        recording.start();
        return new HitPathProfile(recording);
    }

    /**
     * Samples per category (plus {@code all}), from the recording since {@link #start}, and for each category the samples
     * by the method running (the stack's leaf frame) and by its owner (the first frame of the category's own code: which
     * of its methods the CPU was spent under); the heap allocated per category (plus {@code all}, bytes as JFR's
     * allocation samples weigh them) and by owner.
     */
    record Samples(Map<String, Long> categories, Map<String, Map<String, Long>> leaves, Map<String, Map<String, Long>> owners,
            Map<String, Long> allocated, Map<String, Map<String, Long>> allocationOwners) {}

    Samples stop()
    {
        recording.stop();
        try {
            Path file = Files.createTempFile("overdrive-bench-", ".jfr");
            try {
                recording.dump(file);
                Map<String, Long> samples = new LinkedHashMap<>();
                Map<String, Map<String, Long>> leaves = new LinkedHashMap<>();
                Map<String, Map<String, Long>> owners = new LinkedHashMap<>();
                Map<String, Long> allocated = new LinkedHashMap<>();
                Map<String, Map<String, Long>> allocationOwners = new LinkedHashMap<>();
                samples.put("all", 0L);
                allocated.put("all", 0L);
                CATEGORIES.keySet().forEach(category -> {
                    samples.put(category, 0L);
                    allocated.put(category, 0L);
                });
                try (RecordingFile events = new RecordingFile(file)) {
                    while (events.hasMoreEvents()) {
                        RecordedEvent event = events.readEvent();
                        if (event.getStackTrace() == null) {
                            continue;
                        }
                        List<RecordedFrame> frames = event.getStackTrace().getFrames();
                        String category = categoryOf(frames);
                        switch (event.getEventType().getName()) {
                            case "jdk.ExecutionSample" -> {
                                samples.merge("all", 1L, Long::sum);
                                if (category != null) {
                                    samples.merge(category, 1L, Long::sum);
                                    leaves.computeIfAbsent(category, _ -> new HashMap<>()).merge(name(frames.getFirst()), 1L, Long::sum);
                                    owners.computeIfAbsent(category, _ -> new HashMap<>()).merge(ownerOf(category, frames), 1L, Long::sum);
                                }
                            }
                            case "jdk.ObjectAllocationSample" -> {
                                long weight = event.getLong("weight");
                                allocated.merge("all", weight, Long::sum);
                                if (category != null) {
                                    allocated.merge(category, weight, Long::sum);
                                    allocationOwners.computeIfAbsent(category, _ -> new HashMap<>()).merge(ownerOf(category, frames), weight, Long::sum);
                                }
                            }
                            default -> {}
                        }
                    }
                }
                return new Samples(samples, leaves, owners, allocated, allocationOwners);
            }
            finally {
                Files.deleteIfExists(file);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        finally {
            recording.close();
        }
    }

    private static String name(RecordedFrame frame)
    {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }

    // the first frame, from the top of the stack, of the category's own code
    private static String ownerOf(String category, List<RecordedFrame> frames)
    {
        List<String> prefixes = CATEGORIES.get(category);
        for (RecordedFrame frame : frames) {
            String type = frame.getMethod().getType().getName();
            if (prefixes.stream().anyMatch(type::startsWith)) {
                return name(frame);
            }
        }
        return "?";
    }

    private static String categoryOf(List<RecordedFrame> frames)
    {
        for (Map.Entry<String, List<String>> category : CATEGORIES.entrySet()) {
            for (RecordedFrame frame : frames) {
                String type = frame.getMethod().getType().getName();
                if (category.getValue().stream().anyMatch(type::startsWith)) {
                    return category.getKey();
                }
            }
        }
        return null;
    }

    private static Map<String, List<String>> categories()
    {
        Map<String, List<String>> categories = new LinkedHashMap<>();
        // Overdrive's read path first: it uses Alluxio's cache manager too, below its own frames
        categories.put("Overdrive's page cache (io.overdrive.cache)", List.of("io.overdrive.cache."));
        categories.put("Trino's fs.cache (io.trino.filesystem.alluxio, alluxio)", List.of("io.trino.filesystem.alluxio.", "alluxio."));
        categories.put("HDFS client (org.apache.hadoop): stock hive's reads, the coordinator's metadata reads and status calls", List.of("org.apache.hadoop."));
        categories.put("Parquet reader (io.trino.parquet)", List.of("io.trino.parquet."));
        categories.put("file metastore (io.trino.plugin.hive.metastore)", List.of("io.trino.plugin.hive.metastore."));
        return categories;
    }
}
