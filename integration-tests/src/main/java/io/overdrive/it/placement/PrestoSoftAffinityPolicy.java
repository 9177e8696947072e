package io.overdrive.it.placement;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;

import java.util.Arrays;
import java.util.SplittableRandom;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Reference model of Presto's {@code SOFT_AFFINITY} scheduling ({@code SimpleNodeSelector} with Presto's defaults): a
 * split's file path picks a preferred worker and an alternative, by modular hashing ({@code hash mod N} over the
 * workers sorted by node id, and the next one) or by consistent hashing (a ring with 100 virtual nodes per worker: the
 * owner of the key's position and the next other owner clockwise). The split goes to the preferred worker unless it is
 * busy, else to the alternative unless busy, else to the least busy of 10 random workers that is not busy; busy means
 * {@code node-scheduler.max-splits-per-node} (100) splits assigned, running or queued. When all of those are busy, a
 * second pass takes the preferred worker (then the alternative) while the query has fewer than
 * {@code node-scheduler.max-pending-splits-per-task} (10) splits queued there; past that the model queues the split on the
 * preferred worker, where Presto would hold it on the coordinator. Only the preferred and the alternative cache.
 */
final class PrestoSoftAffinityPolicy
        extends Policy
{
    static final int MAX_SPLITS_PER_NODE = 100;
    static final int MAX_PENDING_SPLITS_PER_TASK = 10;
    static final int VIRTUAL_NODES = 100;
    private static final HashFunction HASH = Hashing.murmur3_128(0x5072);

    private final boolean consistent;
    private final long[] fileHashes;
    private final SplittableRandom random;
    private final SimWorker[] candidates = new SimWorker[TrinoNodeSelector.MIN_CANDIDATES];
    // the ring: positions sorted, with the index (into live) of their owner
    private long[] ringPositions = new long[0];
    private int[] ringOwners = new int[0];

    PrestoSoftAffinityPolicy(boolean consistent, Lake lake, long seed)
    {
        super(consistent ? "presto-consistent" : "presto-modular");
        this.consistent = consistent;
        this.random = new SplittableRandom(seed);
        fileHashes = new long[lake.files()];
        for (int file = 0; file < fileHashes.length; file++) {
            fileHashes[file] = HASH.hashString(lake.path(file), UTF_8).asLong();
        }
    }

    @Override
    protected void membershipChanged()
    {
        if (!consistent) {
            return;
        }
        int size = live.size() * VIRTUAL_NODES;
        long[] packedPositions = new long[size];
        long[][] entries = new long[size][];
        int next = 0;
        for (int index = 0; index < live.size(); index++) {
            for (int virtual = 0; virtual < VIRTUAL_NODES; virtual++) {
                long position = HASH.hashString(live.get(index).nodeId + "#" + virtual, UTF_8).asLong();
                entries[next++] = new long[] {position, index};
            }
        }
        Arrays.sort(entries, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int[] owners = new int[size];
        for (int entry = 0; entry < size; entry++) {
            packedPositions[entry] = entries[entry][0];
            owners[entry] = (int) entries[entry][1];
        }
        ringPositions = packedPositions;
        ringOwners = owners;
    }

    @Override
    SimWorker place(SplitTask split)
    {
        long hash = fileHashes[split.file];
        SimWorker preferred = live.get(preferredIndex(hash));
        if (preferred.assigned() < MAX_SPLITS_PER_NODE) {
            return split.placeOn(preferred, Choice.PREFERRED, true);
        }
        SimWorker alternative = live.get(alternativeIndex(hash));
        if (alternative.assigned() < MAX_SPLITS_PER_NODE) {
            return split.placeOn(alternative, Choice.ALTERNATIVE, true);
        }
        int count = randomCandidates(random, candidates.length, candidates);
        SimWorker leastBusy = leastAssigned(candidates, count, MAX_SPLITS_PER_NODE);
        if (leastBusy != null) {
            return split.placeOn(leastBusy, Choice.FALLBACK, false);
        }
        if (split.query.splitsOn(alternative) < split.query.splitsOn(preferred) && split.query.splitsOn(preferred) >= MAX_PENDING_SPLITS_PER_TASK) {
            return split.placeOn(alternative, Choice.ALTERNATIVE, true);
        }
        // the second pass; when both hold 10 of this query's splits Presto would hold the split on the coordinator
        // until one has room, the model queues it on the preferred worker: the same wait, in the worker's queue
        return split.placeOn(preferred, Choice.PREFERRED, true);
    }

    @Override
    String firstChoice(int file, int split)
    {
        return live.get(preferredIndex(fileHashes[file])).nodeId;
    }

    private int preferredIndex(long hash)
    {
        if (!consistent) {
            return Math.floorMod(hash, live.size());
        }
        return ringOwners[ringSlot(hash)];
    }

    private int alternativeIndex(long hash)
    {
        if (!consistent) {
            return (Math.floorMod(hash, live.size()) + 1) % live.size();
        }
        int slot = ringSlot(hash);
        int owner = ringOwners[slot];
        for (int step = 1; step < ringOwners.length; step++) {
            int candidate = ringOwners[(slot + step) % ringOwners.length];
            if (candidate != owner) {
                return candidate;
            }
        }
        return owner;
    }

    // the first ring position at or after the hash, wrapping around
    private int ringSlot(long hash)
    {
        int slot = Arrays.binarySearch(ringPositions, hash);
        if (slot < 0) {
            slot = -slot - 1;
        }
        return slot == ringPositions.length ? 0 : slot;
    }
}
