package io.overdrive.scheduler.affinity;

import com.google.common.collect.ImmutableMap;
import com.google.errorprone.annotations.ThreadSafe;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import it.unimi.dsi.fastutil.objects.Object2LongOpenHashMap;

import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.overdrive.scheduler.affinity.RendezvousHashing.hashKey;
import static java.util.Objects.requireNonNull;

/**
 * Places the splits of one split source (one table scan of a query) on workers; create one per split source with
 * {@link SplitPlacerFactory}. The loads it balances are the catalog's, shared by all its placers ({@link PlacedLoad}):
 * concurrent scans and queries see each other's splits.
 * <p>
 * Soft affinity is consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam, 2018): with a total
 * (decayed) weight {@code W} placed on the {@code n} live workers, a split of weight {@code w} may go only to a worker
 * whose load is below {@code capacity = max(floor, (1 + epsilon) * (W + w) / n)}. It goes to the first worker of its
 * key's rendezvous order that is below capacity and not busy: a hot file's overflow walks the same order every time,
 * so it lands on a small, stable set of workers, which cache it. The first {@code preferredHostsCount} of the order
 * (by default 1,000: in effect every worker a file's splits reach) cache the file's pages; a split placed further down
 * is a fallback, read through. The least loaded worker is at or below the average,
 * hence below capacity: after every split no worker exceeds {@code (1 + epsilon)} times the average (or the floor) by
 * more than one split's weight, whatever the popularity skew. The floor keeps strict affinity on an idle or small
 * cluster, where the relative bound alone would move a dominant file's splits off its worker when nothing is queued.
 * Busy workers are skipped only while a worker below capacity is not busy; when all are, the split is placed as if
 * none were, and the engine queues it there.
 * <p>
 * Hard affinity pins every split to the first live worker of its preference order, ignoring loads (its splits still
 * count in the shared loads).
 * <p>
 * The membership is read for every split, so joins and leaves apply mid-scan: a departed worker gets no further
 * splits and its load no longer counts towards the average; a new worker starts empty.
 * <p>
 * Thread-safe: {@link #place} may be called from any thread; placements of all the catalog's placers are serialized,
 * each costs O(workers).
 */
@ThreadSafe
public final class SplitPlacer
{
    private final PlacedLoad load;
    private final boolean pinned;
    private final int preferredHostsCount;
    private final double loadFactor;
    private final double loadFloor;
    private final WorkerLoads engineLoads;
    private final BusyLimits busyLimits;
    private final PlacementStats stats;

    // this placer's splits per node id, including nodes that have left since
    @GuardedBy("this")
    private final Object2LongOpenHashMap<String> splitsByNode = new Object2LongOpenHashMap<>();

    SplitPlacer(
            PlacedLoad load,
            boolean pinned,
            int preferredHostsCount,
            double loadBalanceEpsilon,
            double loadFloor,
            WorkerLoads engineLoads,
            BusyLimits busyLimits,
            PlacementStats stats)
    {
        this.load = requireNonNull(load, "load is null");
        this.pinned = pinned;
        checkArgument(preferredHostsCount >= 1, "preferredHostsCount must be at least 1: %s", preferredHostsCount);
        this.preferredHostsCount = preferredHostsCount;
        checkArgument(loadBalanceEpsilon > 0, "loadBalanceEpsilon must be greater than 0: %s", loadBalanceEpsilon);
        this.loadFactor = 1 + loadBalanceEpsilon;
        checkArgument(loadFloor >= 0, "loadFloor must not be negative: %s", loadFloor);
        this.loadFloor = loadFloor;
        this.engineLoads = requireNonNull(engineLoads, "engineLoads is null");
        this.busyLimits = requireNonNull(busyLimits, "busyLimits is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    /**
     * The worker for a split with this affinity key and weight, or empty when no worker is live: the connector then
     * leaves the split's addresses as they were, so the engine places it and the query does not fail for want of a
     * placement.
     *
     * @param weight the split's weight, in any positive unit that all placers of the factory share (the connector
     * uses Trino's {@code SplitWeight} raw value)
     */
    public Optional<Placement> place(String affinityKey, long weight)
    {
        requireNonNull(affinityKey, "affinityKey is null");
        checkArgument(weight > 0, "weight must be positive: %s", weight);
        Placement placement = load.place(hashKey(affinityKey), weight, pinned, preferredHostsCount, loadFactor, loadFloor, engineLoads, busyLimits);
        if (placement == null) {
            stats.recordUnplaced();
            return Optional.empty();
        }
        synchronized (this) {
            splitsByNode.addTo(placement.worker().nodeId(), 1);
        }
        stats.record(placement);
        return Optional.of(placement);
    }

    /**
     * The worker a split of this affinity key placed as {@code placement} asks for the pages its worker does not cache
     * (Overdrive's peer reads): the first worker of the key's order other than the chosen one. Empty when no other
     * worker is live.
     */
    public Optional<Worker> peer(String affinityKey, Placement placement)
    {
        requireNonNull(affinityKey, "affinityKey is null");
        requireNonNull(placement, "placement is null");
        return load.firstOtherThan(hashKey(affinityKey), placement.worker().nodeId());
    }

    /**
     * This placer's splits per worker live at the catalog's last placement (zero for a live worker it gave none).
     */
    public PlacementSummary summary()
    {
        Membership live = load.membership();
        ImmutableMap.Builder<String, Long> splits = ImmutableMap.builderWithExpectedSize(live.size());
        synchronized (this) {
            for (Worker worker : live.workers()) {
                splits.put(worker.nodeId(), splitsByNode.getLong(worker.nodeId()));
            }
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
}
