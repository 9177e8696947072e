package io.overdrive.it.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static java.util.Objects.requireNonNull;

/**
 * A ratio between two catalogs' figures of one phase (Overdrive's over an anchor's: P50, P95 or a total) with a 95%
 * bootstrap percentile interval and its verdict. Pure: no clock, no I/O; the same inputs and seed give the same answer.
 * <p>
 * Each catalog ran the phase in the same rounds. The point estimate is the ratio of the statistics over every round's
 * values pooled. With two rounds or more the interval resamples rounds with replacement (the same rounds for both
 * catalogs: a round is a pair, run under the same conditions), pools the drawn rounds' values and takes the ratio again;
 * with one round there are no rounds to resample, so each catalog's values are resampled within each query instead
 * (every resample keeps the query mix), which ignores what differs from round to round and is labelled so. A figure
 * with one value per round (storage bytes) has no interval from one round.
 */
public final class RatioInterval
{
    static final int RESAMPLES = 10_000;
    static final long SEED = 1;

    /** What is compared: a nearest-rank percentile of the values, or their total. */
    public enum Statistic
    {
        P50, P95, TOTAL;

        double of(List<Long> values)
        {
            return of(values.stream().mapToLong(Long::longValue).toArray());
        }

        /** The statistic of {@code values} (sorts them in place); NaN where there are none. */
        double of(long[] values)
        {
            if (values.length == 0) {
                return Double.NaN;
            }
            return switch (this) {
                case P50 -> nearestRank(values, 50);
                case P95 -> nearestRank(values, 95);
                case TOTAL -> Arrays.stream(values).sum();
            };
        }

        // as PhaseSummary.percentile: the smallest value with at least percent% of the values at or below it
        private static long nearestRank(long[] values, int percent)
        {
            Arrays.sort(values);
            int rank = (int) Math.ceil(percent / 100.0 * values.length);
            return values[Math.max(rank, 1) - 1];
        }
    }

    /** Win: the interval entirely below 1 (lower is better); loss: entirely above; tie: it contains 1; none: no interval. */
    public enum Verdict
    {
        WIN, TIE, LOSS, NONE;

        public String label()
        {
            return this == NONE ? "-" : name().toLowerCase(Locale.ROOT);
        }

        static Verdict of(double low, double high)
        {
            if (Double.isNaN(low) || Double.isNaN(high)) {
                return NONE;
            }
            if (high < 1) {
                return WIN;
            }
            if (low > 1) {
                return LOSS;
            }
            return TIE;
        }
    }

    /** How the interval was drawn. */
    public enum Method
    {
        /** Rounds resampled with replacement. */
        ROUNDS("rounds resampled"),
        /** One round: each catalog's runs resampled within each query. */
        QUERIES("one round: queries resampled within it"),
        /** No interval: one round of a figure with one value per round, or no figure at all. */
        NONE("no interval");

        private final String description;

        Method(String description)
        {
            this.description = description;
        }

        public String description()
        {
            return description;
        }
    }

    /** One catalog's values in one round, by query (a figure with one value per round: one key). */
    public record Round(Map<String, List<Long>> byQuery)
    {
        public Round
        {
            Map<String, List<Long>> copy = new LinkedHashMap<>();
            byQuery.forEach((query, values) -> copy.put(requireNonNull(query, "query is null"), List.copyOf(values)));
            byQuery = Collections.unmodifiableMap(copy);
        }

        /** A round with one value (a phase's storage bytes). */
        public static Round single(long value)
        {
            return new Round(Map.of("", List.of(value)));
        }

        List<Long> values()
        {
            return byQuery.values().stream().flatMap(List::stream).toList();
        }

        long[] array()
        {
            return byQuery.values().stream().flatMap(List::stream).mapToLong(Long::longValue).toArray();
        }
    }

    /** The ratio, its interval ({@code NaN} where there is none), the verdict, the method, the rounds and each round's own ratio. */
    public record Estimate(double ratio, double low, double high, Verdict verdict, Method method, int rounds, List<Double> roundRatios)
    {
        public Estimate
        {
            requireNonNull(verdict, "verdict is null");
            requireNonNull(method, "method is null");
            roundRatios = List.copyOf(roundRatios);
        }

        /** "0.87x", or "-" without a ratio. */
        public String ratioText()
        {
            return format(ratio) + (Double.isNaN(ratio) || Double.isInfinite(ratio) ? "" : "x");
        }

        /** "0.74-1.25", or "-" without an interval. */
        public String intervalText()
        {
            return Double.isNaN(low) || Double.isNaN(high) ? "-" : "%s-%s".formatted(format(low), format(high));
        }

        private static String format(double value)
        {
            if (Double.isNaN(value)) {
                return "-";
            }
            return Double.isInfinite(value) ? "inf" : String.format(Locale.ROOT, "%.2f", value);
        }
    }

    private RatioInterval() {}

    public static Estimate estimate(List<Round> catalog, List<Round> anchor, Statistic statistic)
    {
        return estimate(catalog, anchor, statistic, RESAMPLES, SEED);
    }

    /**
     * {@code catalog}'s statistic over {@code anchor}'s, round {@code i} of one paired with round {@code i} of the other;
     * {@code resamples} bootstrap resamples drawn from {@code seed}.
     */
    static Estimate estimate(List<Round> catalog, List<Round> anchor, Statistic statistic, int resamples, long seed)
    {
        requireNonNull(statistic, "statistic is null");
        if (catalog.size() != anchor.size() || catalog.isEmpty()) {
            throw new IllegalArgumentException("both catalogs need the same rounds, at least one: %d and %d".formatted(catalog.size(), anchor.size()));
        }
        if (resamples < 1) {
            throw new IllegalArgumentException("resamples must be at least 1");
        }
        int rounds = catalog.size();
        long[][] ours = catalog.stream().map(Round::array).toArray(long[][]::new);
        long[][] theirs = anchor.stream().map(Round::array).toArray(long[][]::new);
        double point = ratio(statistic.of(concat(ours, identity(rounds))), statistic.of(concat(theirs, identity(rounds))));
        List<Double> roundRatios = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            roundRatios.add(ratio(statistic.of(ours[round].clone()), statistic.of(theirs[round].clone())));
        }
        if (Double.isNaN(point) || (rounds == 1 && !resamplable(catalog.getFirst()) && !resamplable(anchor.getFirst()))) {
            return new Estimate(point, Double.NaN, Double.NaN, Verdict.NONE, Method.NONE, rounds, roundRatios);
        }
        SplittableRandom random = new SplittableRandom(seed);
        double[] ratios = new double[resamples];
        int[] drawn = new int[rounds];
        for (int resample = 0; resample < resamples; resample++) {
            if (rounds == 1) {
                ratios[resample] = ratio(statistic.of(withinQueries(catalog.getFirst(), random)), statistic.of(withinQueries(anchor.getFirst(), random)));
            }
            else {
                for (int i = 0; i < rounds; i++) {
                    drawn[i] = random.nextInt(rounds);
                }
                ratios[resample] = ratio(statistic.of(concat(ours, drawn)), statistic.of(concat(theirs, drawn)));
            }
        }
        // a resample whose rounds hold no values has no ratio (NaN sorts last): only where some round has none
        Arrays.sort(ratios);
        double low = percentileInterval(ratios, 0.025, false);
        double high = percentileInterval(ratios, 0.975, true);
        return new Estimate(point, low, high, Verdict.of(low, high), rounds == 1 ? Method.QUERIES : Method.ROUNDS, rounds, roundRatios);
    }

    /**
     * The bootstrap's percentile bounds over sorted ratios: the lower bound is the value at index floor(0.025 n), the
     * upper at floor(0.975 n) - 1 (of 10,000 resamples: the 251st and the 9,750th), so that 95% of them lie between.
     */
    static double percentileInterval(double[] sorted, double share, boolean upper)
    {
        int index = (int) Math.floor(share * sorted.length) - (upper ? 1 : 0);
        return sorted[Math.clamp(index, 0, sorted.length - 1)];
    }

    /** Overdrive's figure over the anchor's: 1 where both are 0, infinite where only the anchor's is. */
    static double ratio(double value, double anchor)
    {
        if (Double.isNaN(value) || Double.isNaN(anchor)) {
            return Double.NaN;
        }
        if (anchor == 0) {
            return value == 0 ? 1 : Double.POSITIVE_INFINITY;
        }
        return value / anchor;
    }

    private static boolean resamplable(Round round)
    {
        return round.byQuery().values().stream().anyMatch(values -> values.size() > 1);
    }

    private static int[] identity(int rounds)
    {
        int[] all = new int[rounds];
        Arrays.setAll(all, i -> i);
        return all;
    }

    // the values of the rounds at these indexes (repeats included), in a new array
    private static long[] concat(long[][] rounds, int[] indexes)
    {
        int length = 0;
        for (int index : indexes) {
            length += rounds[index].length;
        }
        long[] values = new long[length];
        int at = 0;
        for (int index : indexes) {
            System.arraycopy(rounds[index], 0, values, at, rounds[index].length);
            at += rounds[index].length;
        }
        return values;
    }

    // each query's runs drawn with replacement, as many as it has
    private static long[] withinQueries(Round round, SplittableRandom random)
    {
        long[] drawn = new long[round.values().size()];
        int at = 0;
        for (List<Long> runs : round.byQuery().values()) {
            for (int i = 0; i < runs.size(); i++) {
                drawn[at++] = runs.get(random.nextInt(runs.size()));
            }
        }
        return drawn;
    }
}
