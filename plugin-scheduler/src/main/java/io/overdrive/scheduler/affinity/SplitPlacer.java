package io.overdrive.scheduler.affinity;

import com.google.common.collect.ImmutableMap;
import com.google.errorprone.annotations.ThreadSafe;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.overdrive.scheduler.stats.PlacementStats;
import it.unimi.dsi.fastutil.objects.Object2LongOpenHashMap;

import java.util.Optional;
import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static io.overdrive.scheduler.affinity.PlacementKind.ALTERNATIVE;
import static io.overdrive.scheduler.affinity.PlacementKind.FALLBACK;
import static io.overdrive.scheduler.affinity.PlacementKind.PREFERRED;
import static io.overdrive.scheduler.affinity.RendezvousHashing.hashKey;
import static io.overdrive.scheduler.affinity.RendezvousHashing.ranksBefore;
import static io.overdrive.scheduler.affinity.RendezvousHashing.topIndexes;
import static java.util.Objects.requireNonNull;

/**
 * Places the splits of one split source (one table scan of a query) on workers; create one per split source with
 * {@link SplitPlacerFactory}. Loads are counted per placer: concurrent scans and queries do not see each other's.
 * <p>
 * Soft affinity is consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam, 2018): with {@code m}
 * splits placed on the {@code n} live workers so far, a worker may hold at most
 * {@code capacity = ceil((1 + epsilon) * (m + 1) / n)} of this placer's splits. A split goes to the first of its
 * {@code preferredHostsCount} rendezvous choices that is below capacity and not busy; else to the least loaded such
 * worker (ties to the better rendezvous rank, so fallbacks stay stable too). Since the splits placed so far average
 * below the capacity, some worker is always below it: the bound holds for every prefix of the split stream, whatever
 * the popularity skew. Busy workers are skipped only while a worker below capacity is not busy; when all are, the
 * split is placed as if none were, and the engine queues it there.
 * <p>
 * Hard affinity pins every split to the first live worker of its preference order, ignoring loads.
 * <p>
 * The membership is read from the supplier for every split, so joins and leaves apply mid-scan: a departed worker
 * gets no further splits, its splits no longer count towards the average, and a new worker starts empty.
 * <p>
 * Thread-safe: {@link #place} may be called from any thread; calls are serialized, each costs O(workers).
 */
@ThreadSafe
public final class SplitPlacer
{
    private final Supplier<Membership> membership;
    private final boolean pinned;
    private final int preferredHostsCount;
    private final double loadFactor;
    private final WorkerLoads engineLoads;
    private final BusyLimits busyLimits;
    private final PlacementStats stats;

    // this placer's splits per node id, including nodes that have left since
    @GuardedBy("this")
    private final Object2LongOpenHashMap<String> splitsByNode = new Object2LongOpenHashMap<>();
    @GuardedBy("this")
    private Membership current = Membership.empty();
    // this placer's splits per worker of current, indexed like current.workers()
    @GuardedBy("this")
    private long[] liveSplits = new long[0];
    @GuardedBy("this")
    private long splitsOnLiveWorkers;
    // scratch space, reused for every split: each worker's score, and the best-ranked indexes
    @GuardedBy("this")
    private long[] scores = new long[0];
    @GuardedBy("this")
    private final int[] preferred;

    SplitPlacer(
            Supplier<Membership> membership,
            boolean pinned,
            int preferredHostsCount,
            double loadBalanceEpsilon,
            WorkerLoads engineLoads,
            BusyLimits busyLimits,
            PlacementStats stats)
    {
        this.membership = requireNonNull(membership, "membership is null");
        this.pinned = pinned;
        checkArgument(preferredHostsCount >= 1, "preferredHostsCount must be at least 1: %s", preferredHostsCount);
        this.preferredHostsCount = preferredHostsCount;
        checkArgument(loadBalanceEpsilon > 0, "loadBalanceEpsilon must be greater than 0: %s", loadBalanceEpsilon);
        this.loadFactor = 1 + loadBalanceEpsilon;
        this.engineLoads = requireNonNull(engineLoads, "engineLoads is null");
        this.busyLimits = requireNonNull(busyLimits, "busyLimits is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.preferred = new int[preferredHostsCount];
    }

    /**
     * The worker for a split with this affinity key, or empty when no worker is live: the connector then leaves the
     * split's addresses as they were, so the engine places it and the query does not fail for want of a placement.
     */
    public synchronized Optional<Placement> place(String affinityKey)
    {
        requireNonNull(affinityKey, "affinityKey is null");
        Membership live = requireNonNull(membership.get(), "membership supplier returned null");
        if (live.isEmpty()) {
            stats.recordUnplaced();
            return Optional.empty();
        }
        // MembershipTracker hands out the same snapshot until the workers change: identity is the cheap, exact test
        @SuppressWarnings("ReferenceEquality")
        boolean changed = live != current;
        if (changed) {
            adopt(live);
        }
        current.scores(hashKey(affinityKey), scores);
        int choices = topIndexes(scores, current.size(), pinned ? 1 : preferredHostsCount, preferred);
        Placement placement;
        if (pinned) {
            placement = new Placement(current.worker(preferred[0]), PREFERRED);
        }
        else {
            long capacity = (long) Math.ceil(loadFactor * (splitsOnLiveWorkers + 1) / current.size());
            placement = choose(choices, capacity, true);
            if (placement == null) {
                placement = choose(choices, capacity, false);
            }
        }
        record(placement);
        return Optional.of(placement);
    }

    /**
     * This placer's splits per worker live at its last placement.
     */
    public synchronized PlacementSummary summary()
    {
        ImmutableMap.Builder<String, Long> splits = ImmutableMap.builderWithExpectedSize(current.size());
        for (int index = 0; index < current.size(); index++) {
            splits.put(current.worker(index).nodeId(), liveSplits[index]);
        }
        return new PlacementSummary(splits.buildOrThrow());
    }

    /**
     * Publishes this placer's spread to {@link PlacementStats}; call once, when the split source is closed.
     */
    public void finish()
    {
        stats.recordQuery(summary());
    }

    @GuardedBy("this")
    private Placement choose(int choices, long capacity, boolean skipBusy)
    {
        for (int rank = 0; rank < choices; rank++) {
            int index = preferred[rank];
            if (liveSplits[index] < capacity && !(skipBusy && isBusy(index))) {
                return new Placement(current.worker(index), rank == 0 ? PREFERRED : ALTERNATIVE);
            }
        }
        int best = -1;
        for (int index = 0; index < current.size(); index++) {
            if (liveSplits[index] >= capacity) {
                continue;
            }
            if (best >= 0 && (liveSplits[index] > liveSplits[best]
                    || (liveSplits[index] == liveSplits[best] && !ranksBefore(scores[index], index, scores[best], best)))) {
                continue;
            }
            if (skipBusy && isBusy(index)) {
                continue;
            }
            best = index;
        }
        return best < 0 ? null : new Placement(current.worker(best), FALLBACK);
    }

    @GuardedBy("this")
    private boolean isBusy(int index)
    {
        return busyLimits.isBusy(requireNonNull(engineLoads.load(current.worker(index)), "engine load is null"));
    }

    @GuardedBy("this")
    private void adopt(Membership live)
    {
        current = live;
        liveSplits = new long[live.size()];
        scores = new long[live.size()];
        splitsOnLiveWorkers = 0;
        for (int index = 0; index < live.size(); index++) {
            liveSplits[index] = splitsByNode.getLong(live.worker(index).nodeId());
            splitsOnLiveWorkers += liveSplits[index];
        }
    }

    @GuardedBy("this")
    private void record(Placement placement)
    {
        String nodeId = placement.worker().nodeId();
        liveSplits[current.indexOf(nodeId)]++;
        splitsOnLiveWorkers++;
        splitsByNode.addTo(nodeId, 1);
        stats.record(placement);
    }
}
