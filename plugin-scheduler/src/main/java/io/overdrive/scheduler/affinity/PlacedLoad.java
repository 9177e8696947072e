package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;
import com.google.common.collect.ImmutableSortedMap;
import com.google.errorprone.annotations.ThreadSafe;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.airlift.units.Duration;
import it.unimi.dsi.fastutil.longs.LongIterator;
import it.unimi.dsi.fastutil.longs.LongLinkedOpenHashSet;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static io.overdrive.scheduler.affinity.PlacementKind.ALTERNATIVE;
import static io.overdrive.scheduler.affinity.PlacementKind.FALLBACK;
import static io.overdrive.scheduler.affinity.PlacementKind.PREFERRED;
import static io.overdrive.scheduler.affinity.RendezvousHashing.ranksBefore;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The catalog's account of the split weight recently placed on each live worker, shared by every {@link SplitPlacer}
 * of the catalog, so that the bounded-load check sees all concurrent scans and queries, not just its own.
 * <p>
 * The account decays exponentially with a half-life ({@code node-selection.load-half-life}): weight placed one
 * half-life ago counts half. The connector SPI tells a split manager neither when a split finishes nor how busy a
 * worker is, so recent placements are the best estimate of the work still queued or running on each worker; the decay
 * forgets what has long been done. Every load decays at the same rate, so comparisons are made on loads scaled to a
 * fixed landmark (forward decay, Cormode et al. 2009): one exponential per placement, not one per worker.
 * <p>
 * It also keeps the hashes of the most recently placed distinct keys, to measure on each membership change which
 * fraction of them changed their first choice (published as {@link PlacementStats}' remap figures).
 * <p>
 * Thread-safe: every method synchronizes on this object; a placement costs O(workers).
 */
@ThreadSafe
final class PlacedLoad
{
    static final int REMAP_SAMPLE_KEYS = 4096;
    // rescale before the landmark's factor loses precision or overflows: e^40 is about 2.4e17
    private static final double MAX_EXPONENT = 40;

    private final Supplier<Membership> membership;
    private final double decayPerNano;
    private final Ticker ticker;
    private final PlacementStats stats;

    @GuardedBy("this")
    private Membership current = Membership.empty();
    // each live worker's load scaled to the landmark (load now = scaled * e^(-decay * (now - landmark))), indexed like current
    @GuardedBy("this")
    private double[] scaled = new double[0];
    @GuardedBy("this")
    private double scaledTotal;
    @GuardedBy("this")
    private long landmarkNanos;
    // scratch space, reused for every split
    @GuardedBy("this")
    private long[] scores = new long[0];
    @GuardedBy("this")
    private final LongLinkedOpenHashSet recentKeys = new LongLinkedOpenHashSet();

    PlacedLoad(Supplier<Membership> membership, Duration halfLife, Ticker ticker, PlacementStats stats)
    {
        this.membership = requireNonNull(membership, "membership is null");
        long halfLifeNanos = requireNonNull(halfLife, "halfLife is null").roundTo(NANOSECONDS);
        checkArgument(halfLifeNanos > 0, "halfLife must be positive: %s", halfLife);
        this.decayPerNano = Math.log(2) / halfLifeNanos;
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.landmarkNanos = ticker.read();
        stats.setLoadView(this::loads);
    }

    /**
     * Places one split of {@code weight} with the key's hash, or returns null when no worker is live.
     *
     * @param pinned hard affinity: the first choice whatever the loads
     * @param preferredHostsCount the workers, from the first of the key's order, that cache its pages: a split placed
     * further down the order is a {@link PlacementKind#FALLBACK}
     * @param loadFactor {@code 1 + epsilon}: a worker whose load is at or above this times the average (counting this
     * split) takes no further split, unless its load is below {@code floor}
     * @param floor the load below which a worker takes every split whose walk reaches it, whatever the others' loads
     */
    synchronized Placement place(long keyHash, double weight, boolean pinned, int preferredHostsCount, double loadFactor, double floor, WorkerLoads engineLoads, BusyLimits busyLimits)
    {
        refreshMembership();
        if (current.isEmpty()) {
            return null;
        }
        current.scores(keyHash, scores);
        double scale = scaleNow();
        double scaledWeight = weight * scale;
        Placement placement;
        if (pinned) {
            placement = new Placement(current.worker(walk(Double.POSITIVE_INFINITY, engineLoads, busyLimits, false)), PREFERRED);
        }
        else {
            double capacity = Math.max(floor * scale, loadFactor * (scaledTotal + scaledWeight) / current.size());
            int chosen = walk(capacity, engineLoads, busyLimits, true);
            if (chosen < 0) {
                chosen = walk(capacity, engineLoads, busyLimits, false);
            }
            int rank = rank(chosen);
            placement = new Placement(current.worker(chosen), rank == 0 ? PREFERRED : rank < preferredHostsCount ? ALTERNATIVE : FALLBACK);
        }
        int index = current.indexOf(placement.worker().nodeId());
        scaled[index] += scaledWeight;
        scaledTotal += scaledWeight;
        recentKeys.addAndMoveToLast(keyHash);
        if (recentKeys.size() > REMAP_SAMPLE_KEYS) {
            recentKeys.removeFirstLong();
        }
        return placement;
    }

    /**
     * The first live worker of the key's rendezvous order other than {@code nodeId}: for a split placed on its key's
     * first worker, the next one (which held the key's pages before that worker joined); for a split placed further down,
     * the first (which holds them). Empty when no other worker is live.
     */
    synchronized Optional<Worker> firstOtherThan(long keyHash, String nodeId)
    {
        refreshMembership();
        current.scores(keyHash, scores);
        int best = -1;
        for (int index = 0; index < current.size(); index++) {
            if (current.worker(index).nodeId().equals(nodeId)) {
                continue;
            }
            if (best < 0 || ranksBefore(scores[index], index, scores[best], best)) {
                best = index;
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(current.worker(best));
    }

    /**
     * The live workers as of the last placement.
     */
    synchronized Membership membership()
    {
        return current;
    }

    /**
     * Each live worker's decayed load now, by node id.
     */
    synchronized Map<String, Double> loads()
    {
        double scale = scaleNow();
        ImmutableSortedMap.Builder<String, Double> loads = ImmutableSortedMap.naturalOrder();
        for (int index = 0; index < current.size(); index++) {
            loads.put(current.worker(index).nodeId(), scaled[index] / scale);
        }
        return loads.buildOrThrow();
    }

    // e^(decay * (now - landmark)), moving the landmark to now first when that factor grows too large
    @GuardedBy("this")
    private double scaleNow()
    {
        long now = ticker.read();
        double exponent = decayPerNano * (now - landmarkNanos);
        if (exponent > MAX_EXPONENT) {
            double factor = Math.exp(-exponent);
            scaledTotal = 0;
            for (int index = 0; index < scaled.length; index++) {
                scaled[index] *= factor;
                scaledTotal += scaled[index];
            }
            landmarkNanos = now;
            exponent = 0;
        }
        return Math.exp(exponent);
    }

    // Bounded-load consistent hashing: the first worker of the key's rendezvous order below capacity (and not busy,
    // on the first pass). The least loaded worker is at or below the average, so below capacity: one always is. O(n):
    // the best-scoring worker among those below capacity, with no sort of the whole order.
    @GuardedBy("this")
    private int walk(double capacity, WorkerLoads engineLoads, BusyLimits busyLimits, boolean skipBusy)
    {
        int best = -1;
        for (int index = 0; index < current.size(); index++) {
            if (scaled[index] >= capacity || (best >= 0 && !ranksBefore(scores[index], index, scores[best], best))) {
                continue;
            }
            if (skipBusy && isBusy(index, engineLoads, busyLimits)) {
                continue;
            }
            best = index;
        }
        return best;
    }

    // the chosen worker's position in the key's rendezvous order: how many workers rank before it
    @GuardedBy("this")
    private int rank(int chosen)
    {
        int rank = 0;
        for (int index = 0; index < current.size(); index++) {
            if (index != chosen && ranksBefore(scores[index], index, scores[chosen], chosen)) {
                rank++;
            }
        }
        return rank;
    }

    @GuardedBy("this")
    private boolean isBusy(int index, WorkerLoads engineLoads, BusyLimits busyLimits)
    {
        return busyLimits.isBusy(requireNonNull(engineLoads.load(current.worker(index)), "engine load is null"));
    }

    @GuardedBy("this")
    private void refreshMembership()
    {
        Membership live = requireNonNull(membership.get(), "membership supplier returned null");
        // MembershipTracker hands out the same snapshot until the workers change: identity is the cheap, exact test
        @SuppressWarnings("ReferenceEquality")
        boolean changed = live != current;
        if (!changed) {
            return;
        }
        Membership previous = current;
        double[] previousScaled = scaled;
        current = live;
        scaled = new double[live.size()];
        scores = new long[live.size()];
        scaledTotal = 0;
        // a worker that stays keeps its load; one that left takes its load with it; one that joined starts empty
        for (int index = 0; index < live.size(); index++) {
            String nodeId = live.worker(index).nodeId();
            if (previous.contains(nodeId)) {
                scaled[index] = previousScaled[previous.indexOf(nodeId)];
                scaledTotal += scaled[index];
            }
        }
        if (!previous.isEmpty() && !live.isEmpty() && !recentKeys.isEmpty()) {
            stats.recordMembershipChange(previous.workers(), live.workers(), remappedFraction(previous, live), recentKeys.size());
        }
    }

    // the fraction of the recently placed keys whose first choice differs between the two memberships
    @GuardedBy("this")
    private double remappedFraction(Membership previous, Membership live)
    {
        long[] previousScores = new long[previous.size()];
        int moved = 0;
        for (LongIterator keys = recentKeys.iterator(); keys.hasNext(); ) {
            long keyHash = keys.nextLong();
            if (!previous.firstChoice(keyHash, previousScores).equals(live.firstChoice(keyHash, scores))) {
                moved++;
            }
        }
        return (double) moved / recentKeys.size();
    }
}
