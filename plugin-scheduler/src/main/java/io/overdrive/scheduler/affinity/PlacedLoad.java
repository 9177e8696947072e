package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;
import com.google.common.collect.ImmutableSortedMap;
import com.google.errorprone.annotations.ThreadSafe;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.airlift.units.Duration;
import it.unimi.dsi.fastutil.longs.LongIterator;
import it.unimi.dsi.fastutil.longs.LongLinkedOpenHashSet;

import java.util.Arrays;
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
 * Where the workers report their own queued and running splits ({@link ReportedLoads}, Overdrive's load signal over the
 * peer service), and while every live worker has a fresh report, the bound compares those instead: each worker's
 * report, plus the weight placed on it since, less what it is expected to have finished since at its last rate
 * ({@link LoadReport}). The decayed account is kept up all the time, so the placer falls back to it the moment one
 * worker's report is missing or too old.
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
    private final ReportedLoads reportedLoads;
    private final double standardSplitWeight;

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
    // per live worker: when the report the placer last used was received, and the weight placed on it since
    @GuardedBy("this")
    private long[] reportNanos = new long[0];
    @GuardedBy("this")
    private double[] placedSinceReport = new double[0];
    // scratch space: each live worker's estimated outstanding weight from its report
    @GuardedBy("this")
    private double[] estimates = new double[0];
    @GuardedBy("this")
    private final LongLinkedOpenHashSet recentKeys = new LongLinkedOpenHashSet();

    PlacedLoad(Supplier<Membership> membership, Duration halfLife, Ticker ticker, PlacementStats stats)
    {
        this(membership, halfLife, ticker, stats, ReportedLoads.NONE, 1);
    }

    /**
     * @param reportedLoads the workers' own reports of their queued and running splits, used instead of the decayed
     * account while every live worker has one
     * @param standardSplitWeight the weight of one standard split: the reports count standard splits
     */
    PlacedLoad(Supplier<Membership> membership, Duration halfLife, Ticker ticker, PlacementStats stats, ReportedLoads reportedLoads, double standardSplitWeight)
    {
        this.reportedLoads = requireNonNull(reportedLoads, "reportedLoads is null");
        checkArgument(standardSplitWeight > 0, "standardSplitWeight must be positive: %s", standardSplitWeight);
        this.standardSplitWeight = standardSplitWeight;
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
        boolean byReports = false;
        if (pinned) {
            placement = new Placement(current.worker(walk(scaled, Double.POSITIVE_INFINITY, engineLoads, busyLimits, false)), PREFERRED);
        }
        else {
            // the workers' own counts when every live worker has a fresh one; the decayed account of placements otherwise
            double[] loads;
            double capacity;
            double estimatedTotal = estimateFromReports();
            if (estimatedTotal >= 0) {
                byReports = true;
                loads = estimates;
                capacity = Math.max(floor, loadFactor * (estimatedTotal + weight) / current.size());
            }
            else {
                loads = scaled;
                capacity = Math.max(floor * scale, loadFactor * (scaledTotal + scaledWeight) / current.size());
            }
            int chosen = walk(loads, capacity, engineLoads, busyLimits, true);
            if (chosen < 0) {
                chosen = walk(loads, capacity, engineLoads, busyLimits, false);
            }
            int rank = rank(chosen);
            placement = new Placement(current.worker(chosen), rank == 0 ? PREFERRED : rank < preferredHostsCount ? ALTERNATIVE : FALLBACK);
        }
        int index = current.indexOf(placement.worker().nodeId());
        scaled[index] += scaledWeight;
        scaledTotal += scaledWeight;
        placedSinceReport[index] += weight;
        stats.recordLoadSource(byReports);
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

    /**
     * Fills {@link #estimates} with each live worker's outstanding weight estimated from its report and returns their
     * sum, or -1 when a live worker has no fresh report.
     */
    @GuardedBy("this")
    private double estimateFromReports()
    {
        if (reportedLoads == ReportedLoads.NONE) {
            return -1;
        }
        long now = ticker.read();
        double total = 0;
        for (int index = 0; index < current.size(); index++) {
            LoadReport report = reportedLoads.report(current.worker(index).nodeId());
            if (report == null) {
                return -1;
            }
            if (report.receivedNanos() != reportNanos[index]) {
                // a newer report counts what was placed before it: start counting again
                reportNanos[index] = report.receivedNanos();
                placedSinceReport[index] = 0;
            }
            estimates[index] = report.estimate(now - report.receivedNanos(), placedSinceReport[index] / standardSplitWeight) * standardSplitWeight;
            total += estimates[index];
        }
        return total;
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
    private int walk(double[] loads, double capacity, WorkerLoads engineLoads, BusyLimits busyLimits, boolean skipBusy)
    {
        int best = -1;
        for (int index = 0; index < current.size(); index++) {
            if (loads[index] >= capacity || (best >= 0 && !ranksBefore(scores[index], index, scores[best], best))) {
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
        long[] previousReportNanos = reportNanos;
        double[] previousPlacedSinceReport = placedSinceReport;
        current = live;
        scaled = new double[live.size()];
        scores = new long[live.size()];
        estimates = new double[live.size()];
        reportNanos = new long[live.size()];
        placedSinceReport = new double[live.size()];
        Arrays.fill(reportNanos, Long.MIN_VALUE);
        scaledTotal = 0;
        // a worker that stays keeps its load; one that left takes its load with it; one that joined starts empty
        for (int index = 0; index < live.size(); index++) {
            String nodeId = live.worker(index).nodeId();
            if (previous.contains(nodeId)) {
                int before = previous.indexOf(nodeId);
                scaled[index] = previousScaled[before];
                scaledTotal += scaled[index];
                reportNanos[index] = previousReportNanos[before];
                placedSinceReport[index] = previousPlacedSinceReport[before];
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
