package io.overdrive.it.placement;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Reference model of Trino 483's cache affinity for the stock Hive connector with {@code fs.cache}: each split's
 * affinity key ({@code CacheSplitAffinityProvider}: {@code path:start:length}) hashes to one of 2048 buckets, and
 * {@code StableHostAddressProvider} maps each bucket to its preferred hosts
 * ({@code node-scheduler.cache-preferred-hosts-count}, default 2) by rendezvous hashing over the live
 * workers. {@code UniformNodeSelector} (optimized local scheduling) takes those hosts as the split's only candidates
 * ({@link TrinoNodeSelector}): no fallback to another worker; when neither may take it, the split waits for one of them.
 * Every preferred host caches.
 * Trino hashes with XxHash64; this model with murmur3 and a 64-bit finalizer, which distributes the same way.
 */
final class TrinoAffinityPolicy
        extends Policy
{
    static final int BUCKETS = 2048;
    private static final HashFunction HASH = Hashing.murmur3_128(0x7472);

    private final Lake lake;
    private final SplitsBalancing balancing;
    private final int preferredHosts;
    private final SimWorker[][] bucketHosts = new SimWorker[BUCKETS][];
    // every worker ever live: a departed one's waiting splits are taken back too
    private final Set<SimWorker> known = new LinkedHashSet<>();

    TrinoAffinityPolicy(String name, Lake lake, SplitsBalancing balancing, int preferredHosts)
    {
        super(name);
        this.lake = lake;
        this.balancing = balancing;
        this.preferredHosts = preferredHosts;
    }

    @Override
    protected void membershipChanged()
    {
        known.addAll(live);
        long[] nodeHashes = live.stream().mapToLong(worker -> HASH.hashString(worker.nodeId, UTF_8).asLong()).toArray();
        int hosts = Math.min(preferredHosts, live.size());
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            long bucketHash = mix(bucket * 0x9e3779b97f4a7c15L + 1);
            int[] top = new int[hosts];
            long[] topScores = new long[hosts];
            int found = 0;
            for (int index = 0; index < nodeHashes.length; index++) {
                long score = mix(bucketHash ^ nodeHashes[index]);
                if (found == hosts && score <= topScores[hosts - 1]) {
                    continue;
                }
                int position = found == hosts ? hosts - 1 : found++;
                while (position > 0 && score > topScores[position - 1]) {
                    top[position] = top[position - 1];
                    topScores[position] = topScores[position - 1];
                    position--;
                }
                top[position] = index;
                topScores[position] = score;
            }
            SimWorker[] chosen = new SimWorker[found];
            for (int rank = 0; rank < found; rank++) {
                chosen[rank] = live.get(top[rank]);
            }
            bucketHosts[bucket] = chosen;
        }
    }

    @Override
    SimWorker place(SplitTask split)
    {
        SimWorker[] hosts = bucketHosts[bucket(split.file, split.index)];
        SimWorker best = TrinoNodeSelector.choose(hosts, hosts.length, split.query, balancing);
        if (best != null) {
            return split.placeOn(best, best == hosts[0] ? Choice.PREFERRED : Choice.ALTERNATIVE, true);
        }
        split.waitingFor = hosts;
        for (SimWorker host : hosts) {
            host.waiting.addLast(split);
        }
        return null;
    }

    @Override
    SplitTask nextWaitingFor(SimWorker worker)
    {
        while (!worker.waiting.isEmpty()) {
            SplitTask split = worker.waiting.peekFirst();
            SimWorker[] hosts = split.waitingFor;
            if (hosts == null) {
                // assigned to its other host meanwhile
                worker.waiting.pollFirst();
                continue;
            }
            if (TrinoNodeSelector.choose(new SimWorker[] {worker}, 1, split.query, balancing) == null) {
                return null;
            }
            worker.waiting.pollFirst();
            split.waitingFor = null;
            split.placeOn(worker, worker == hosts[0] ? Choice.PREFERRED : Choice.ALTERNATIVE, true);
            return split;
        }
        return null;
    }

    @Override
    List<SplitTask> takeWaiting()
    {
        List<SplitTask> waiting = new ArrayList<>();
        for (SimWorker worker : known) {
            for (SplitTask split : worker.waiting) {
                if (split.waitingFor != null) {
                    split.waitingFor = null;
                    waiting.add(split);
                }
            }
            worker.waiting.clear();
        }
        waiting.sort(Comparator.comparingLong(split -> split.sequence));
        return waiting;
    }

    @Override
    String firstChoice(int file, int split)
    {
        return bucketHosts[bucket(file, split)][0].nodeId;
    }

    private int bucket(int file, int split)
    {
        String key = lake.path(file) + ":" + split * Lake.SPLIT_BYTES + ":" + Lake.SPLIT_BYTES;
        return Math.floorMod(HASH.hashString(key, UTF_8).asLong(), BUCKETS);
    }
}
