package io.overdrive.it.placement;

import java.util.List;
import java.util.SplittableRandom;

import static java.util.Objects.requireNonNull;

/**
 * A split placement policy under simulation: Overdrive's real placer or a reference model of an alternative.
 */
abstract class Policy
{
    private final String name;
    // live workers, sorted by node id
    protected List<SimWorker> live = List.of();
    // a permutation of the live workers' indexes, shuffled in part for each choice of random candidates
    private int[] permutation = new int[0];

    Policy(String name)
    {
        this.name = requireNonNull(name, "name is null");
    }

    final String name()
    {
        return name;
    }

    /** Whether the workers' caches admit as Overdrive's page cache does ({@link SimWorker}); false: plain LRU. */
    boolean cachesWithAdmission()
    {
        return false;
    }

    /** The live workers changed (sorted by node id); called at the start, on the join and on the leave. */
    final void setLive(List<SimWorker> workers)
    {
        this.live = List.copyOf(workers);
        permutation = new int[live.size()];
        for (int index = 0; index < permutation.length; index++) {
            permutation[index] = index;
        }
        membershipChanged();
    }

    protected abstract void membershipChanged();

    /** How often the coordinator polls the live workers for their loads ({@link #pollLoads}), in simulated nanoseconds; 0: never. */
    long loadPollIntervalNanos()
    {
        return 0;
    }

    /** The coordinator polls every live worker for its load now; called every {@link #loadPollIntervalNanos}. */
    void pollLoads()
    {
    }

    /**
     * The worker the split goes to now, recording on the split whether that worker may cache its data
     * ({@link SplitTask#placeOn}), or null when the split waits on the coordinator (then the policy keeps it until
     * {@link #nextWaitingFor} or {@link #takeWaiting} hands it back).
     */
    abstract SimWorker place(SplitTask split);

    /** A waiting split that may now be assigned to {@code worker}, which has room, or null. */
    SplitTask nextWaitingFor(SimWorker worker)
    {
        return null;
    }

    /** Every waiting split, oldest first, no longer waiting: they are placed again after a membership change. */
    List<SplitTask> takeWaiting()
    {
        return List.of();
    }

    /** The node id of the first choice of the key of split {@code split} of {@code file}, or null without preferences. */
    abstract String firstChoice(int file, int split);

    /**
     * Writes {@code count} distinct live workers in random order into {@code into} (all of them when fewer are live)
     * and returns how many: the engine's random candidates ({@code node-scheduler.min-candidates}).
     */
    protected final int randomCandidates(SplittableRandom random, int count, SimWorker[] into)
    {
        int size = permutation.length;
        int chosen = Math.min(count, size);
        for (int index = 0; index < chosen; index++) {
            int swap = index + random.nextInt(size - index);
            int worker = permutation[swap];
            permutation[swap] = permutation[index];
            permutation[index] = worker;
            into[index] = live.get(worker);
        }
        return chosen;
    }

    /** The candidate with the fewest splits assigned, ties to the first; null when there is none. */
    protected static SimWorker leastAssigned(SimWorker[] candidates, int count, int below)
    {
        SimWorker best = null;
        for (int index = 0; index < count; index++) {
            SimWorker candidate = candidates[index];
            if (candidate.assigned() < below && (best == null || candidate.assigned() < best.assigned())) {
                best = candidate;
            }
        }
        return best;
    }

    /** A 64-bit finalizer (Stafford's mix13, as SplittableRandom's): turns XORed hashes into independent weights. */
    static long mix(long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
