package io.overdrive.scheduler.affinity;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.overdrive.scheduler.affinity.RendezvousHashing.hashKey;
import static io.overdrive.scheduler.affinity.RendezvousHashing.hashNode;
import static io.overdrive.scheduler.affinity.RendezvousHashing.ranksBefore;
import static io.overdrive.scheduler.affinity.RendezvousHashing.score;
import static io.overdrive.scheduler.affinity.RendezvousHashing.topIndexes;
import static java.util.Objects.requireNonNull;

/**
 * An immutable snapshot of the live workers and the rendezvous preference order of any affinity key over them.
 * Two snapshots of the same workers, listed in any order, on any JVM, give every key the same order.
 */
public final class Membership
{
    private static final Membership EMPTY = new Membership(ImmutableList.of());

    // sorted by node id: the order ties are broken in
    private final List<Worker> workers;
    private final long[] nodeHashes;
    private final Map<String, Integer> indexByNodeId;

    private Membership(List<Worker> sortedWorkers)
    {
        this.workers = sortedWorkers;
        this.nodeHashes = sortedWorkers.stream()
                .mapToLong(worker -> hashNode(worker.nodeId()))
                .toArray();
        ImmutableMap.Builder<String, Integer> indexes = ImmutableMap.builderWithExpectedSize(sortedWorkers.size());
        for (int index = 0; index < sortedWorkers.size(); index++) {
            indexes.put(sortedWorkers.get(index).nodeId(), index);
        }
        this.indexByNodeId = indexes.buildOrThrow();
    }

    public static Membership of(Collection<Worker> workers)
    {
        List<Worker> sorted = requireNonNull(workers, "workers is null").stream()
                .sorted(Comparator.comparing(Worker::nodeId))
                .collect(toImmutableList());
        for (int index = 1; index < sorted.size(); index++) {
            checkArgument(!sorted.get(index - 1).nodeId().equals(sorted.get(index).nodeId()),
                    "Two workers with node id %s: %s and %s", sorted.get(index).nodeId(), sorted.get(index - 1), sorted.get(index));
        }
        return sorted.isEmpty() ? EMPTY : new Membership(sorted);
    }

    public static Membership empty()
    {
        return EMPTY;
    }

    /**
     * The workers, sorted by node id.
     */
    public List<Worker> workers()
    {
        return workers;
    }

    public int size()
    {
        return workers.size();
    }

    public boolean isEmpty()
    {
        return workers.isEmpty();
    }

    public boolean contains(String nodeId)
    {
        return indexByNodeId.containsKey(requireNonNull(nodeId, "nodeId is null"));
    }

    /**
     * The first {@code count} workers in the key's preference order (fewer when there are fewer workers), best first.
     */
    public List<Worker> preferenceOrder(String affinityKey, int count)
    {
        checkArgument(count >= 1, "count must be at least 1: %s", count);
        long[] scores = new long[size()];
        scores(hashKey(requireNonNull(affinityKey, "affinityKey is null")), scores);
        int[] top = new int[Math.min(count, size())];
        int found = topIndexes(scores, size(), count, top);
        ImmutableList.Builder<Worker> order = ImmutableList.builderWithExpectedSize(found);
        for (int rank = 0; rank < found; rank++) {
            order.add(workers.get(top[rank]));
        }
        return order.build();
    }

    /**
     * Whether {@code nodeId} is among the first {@code preferredCount} workers of the key's preference order: what a
     * worker asks before it caches a file, since it cannot see the addresses the coordinator gave the split.
     * Linear in the number of workers, without allocation.
     */
    public boolean isPreferred(String affinityKey, String nodeId, int preferredCount)
    {
        checkArgument(preferredCount >= 1, "preferredCount must be at least 1: %s", preferredCount);
        Integer self = indexByNodeId.get(requireNonNull(nodeId, "nodeId is null"));
        if (self == null) {
            return false;
        }
        long keyHash = hashKey(requireNonNull(affinityKey, "affinityKey is null"));
        long selfScore = score(keyHash, nodeHashes[self]);
        int better = 0;
        for (int index = 0; index < nodeHashes.length; index++) {
            if (ranksBefore(score(keyHash, nodeHashes[index]), index, selfScore, self)) {
                better++;
                if (better >= preferredCount) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Writes the score of every worker for the key hash into {@code into}, indexed like {@link #workers()}.
     */
    void scores(long keyHash, long[] into)
    {
        for (int index = 0; index < nodeHashes.length; index++) {
            into[index] = score(keyHash, nodeHashes[index]);
        }
    }

    /**
     * The key's first choice, using {@code scratch} (at least {@link #size()} long) for the scores.
     */
    Worker firstChoice(long keyHash, long[] scratch)
    {
        scores(keyHash, scratch);
        int best = 0;
        for (int index = 1; index < nodeHashes.length; index++) {
            if (ranksBefore(scratch[index], index, scratch[best], best)) {
                best = index;
            }
        }
        return workers.get(best);
    }

    Worker worker(int index)
    {
        return workers.get(index);
    }

    int indexOf(String nodeId)
    {
        return indexByNodeId.get(nodeId);
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof Membership other && workers.equals(other.workers);
    }

    @Override
    public int hashCode()
    {
        return workers.hashCode();
    }

    @Override
    public String toString()
    {
        return "Membership" + workers;
    }
}
