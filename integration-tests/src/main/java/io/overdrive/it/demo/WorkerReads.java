package io.overdrive.it.demo;

import io.overdrive.it.harness.JmxAttributes;
import io.overdrive.it.harness.TrinoProcessCluster;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What one worker's shared scans of a catalog fetched from storage, and why a reader there may have fetched bytes
 * another fetch had already read: its own MBeans (JMX remote). Take the difference of two snapshots over a phase.
 */
record WorkerReads(
        long fetches,
        long fetchedBytes,
        long waitTimeouts,
        long takeOvers,
        long notCachedNotPreferred,
        long partialPageMisses,
        long readAheadPagesWasted,
        long hedges)
{
    static final WorkerReads ZERO = new WorkerReads(0, 0, 0, 0, 0, 0, 0, 0);

    static Map<String, WorkerReads> read(TrinoProcessCluster trino, String catalog)
    {
        String scans = "io.overdrive.cache.scan:type=SharedScanStats,name=%s,*".formatted(catalog);
        String cache = "io.overdrive.cache.page:type=PageCacheStats,name=%s,*".formatted(catalog);
        String hedge = "io.overdrive.cache.hedge:type=HedgedReadStats,name=%s,*".formatted(catalog);
        Map<String, WorkerReads> reads = new LinkedHashMap<>();
        for (TrinoProcessCluster.TrinoNode worker : trino.workers()) {
            int port = worker.jmxPort();
            reads.put(worker.name(), new WorkerReads(
                    JmxAttributes.sum(port, scans, "Fetches"),
                    JmxAttributes.sum(port, scans, "FetchedBytes"),
                    JmxAttributes.sum(port, scans, "WaitTimeouts"),
                    JmxAttributes.sum(port, scans, "TakeOvers"),
                    JmxAttributes.sum(port, cache, "NotCachedNotPreferred"),
                    JmxAttributes.sum(port, cache, "PartialPageMisses"),
                    JmxAttributes.sum(port, scans, "ReadAheadPagesWasted"),
                    JmxAttributes.sum(port, hedge, "HedgedReadOps")));
        }
        return reads;
    }

    WorkerReads minus(WorkerReads earlier)
    {
        return new WorkerReads(
                fetches - earlier.fetches,
                fetchedBytes - earlier.fetchedBytes,
                waitTimeouts - earlier.waitTimeouts,
                takeOvers - earlier.takeOvers,
                notCachedNotPreferred - earlier.notCachedNotPreferred,
                partialPageMisses - earlier.partialPageMisses,
                readAheadPagesWasted - earlier.readAheadPagesWasted,
                hedges - earlier.hedges);
    }

    /**
     * One line over the workers that fetched anything between the two snapshots; empty when none did (a catalog
     * without shared scans).
     */
    static String describe(Map<String, WorkerReads> before, Map<String, WorkerReads> after)
    {
        StringJoiner line = new StringJoiner("; ");
        for (Map.Entry<String, WorkerReads> worker : after.entrySet()) {
            WorkerReads reads = worker.getValue().minus(before.getOrDefault(worker.getKey(), ZERO));
            if (reads.fetches() == 0 && reads.waitTimeouts() == 0) {
                continue;
            }
            line.add("%s %,d fetches of %s (wait timeouts %,d, take-overs %,d, pages not cached off their file's worker %,d, partial-page misses %,d, read-ahead pages wasted %,d, hedges %,d)".formatted(
                    worker.getKey(), reads.fetches(), DemoReport.bytes(reads.fetchedBytes()), reads.waitTimeouts(), reads.takeOvers(),
                    reads.notCachedNotPreferred(), reads.partialPageMisses(), reads.readAheadPagesWasted(), reads.hedges()));
        }
        return line.toString();
    }
}
