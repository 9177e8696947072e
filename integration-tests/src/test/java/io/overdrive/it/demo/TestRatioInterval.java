package io.overdrive.it.demo;

import io.overdrive.it.demo.RatioInterval.Estimate;
import io.overdrive.it.demo.RatioInterval.Method;
import io.overdrive.it.demo.RatioInterval.Round;
import io.overdrive.it.demo.RatioInterval.Statistic;
import io.overdrive.it.demo.RatioInterval.Verdict;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongUnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

final class TestRatioInterval
{
    @Test
    void identicalSamplesGiveRatioOneAndATie()
    {
        List<Round> rounds = noisyRounds(5, 42, value -> value);
        for (Statistic statistic : Statistic.values()) {
            Estimate estimate = RatioInterval.estimate(rounds, rounds, statistic);
            assertThat(estimate.ratio()).as(statistic.name()).isEqualTo(1.0);
            assertThat(estimate.low()).as(statistic.name()).isEqualTo(1.0);
            assertThat(estimate.high()).as(statistic.name()).isEqualTo(1.0);
            assertThat(estimate.verdict()).as(statistic.name()).isEqualTo(Verdict.TIE);
            assertThat(estimate.method()).isEqualTo(Method.ROUNDS);
            assertThat(estimate.rounds()).isEqualTo(5);
            assertThat(estimate.roundRatios()).containsOnly(1.0).hasSize(5);
        }
        // one round: the queries are resampled, each catalog on its own, so the interval is wide but contains 1
        Estimate one = RatioInterval.estimate(rounds.subList(0, 1), rounds.subList(0, 1), Statistic.P95);
        assertThat(one.ratio()).isEqualTo(1.0);
        assertThat(one.method()).isEqualTo(Method.QUERIES);
        assertThat(one.low()).isLessThan(1.0);
        assertThat(one.high()).isGreaterThan(1.0);
        assertThat(one.verdict()).isEqualTo(Verdict.TIE);
    }

    @Test
    void aSampleTwiceAsSlowIsALossAndHalfAsSlowAWin()
    {
        List<Round> anchor = noisyRounds(4, 7, value -> value);
        List<Round> doubled = noisyRounds(4, 7, value -> 2 * value);
        for (Statistic statistic : Statistic.values()) {
            Estimate estimate = RatioInterval.estimate(doubled, anchor, statistic);
            // the rounds are pairs: every resample draws the same rounds for both, so every resample's ratio is 2
            assertThat(estimate.ratio()).as(statistic.name()).isEqualTo(2.0);
            assertThat(estimate.intervalText()).isEqualTo("2.00-2.00");
            assertThat(estimate.verdict()).isEqualTo(Verdict.LOSS);
            Estimate reverse = RatioInterval.estimate(anchor, doubled, statistic);
            assertThat(reverse.ratio()).isEqualTo(0.5);
            assertThat(reverse.verdict()).isEqualTo(Verdict.WIN);
        }
        // one round of tight runs per query: resampled within each query, still clearly above 1
        Estimate one = RatioInterval.estimate(tightRound(2), tightRound(1), Statistic.P95);
        assertThat(one.method()).isEqualTo(Method.QUERIES);
        assertThat(one.ratio()).isCloseTo(2.0, within(1e-9));
        assertThat(one.low()).isGreaterThan(1.5);
        assertThat(one.high()).isLessThan(2.5);
        assertThat(one.verdict()).isEqualTo(Verdict.LOSS);
        assertThat(one.ratioText()).isEqualTo("2.00x");
    }

    @Test
    void twoRoundsGiveTheHandComputedBootstrap()
    {
        // totals: Overdrive 1 and 3, the anchor 1 and 1. Two rounds drawn with replacement: (1st, 1st) 2/2 = 1 with
        // probability 1/4, a 1st and a 2nd 4/2 = 2 with 1/2, (2nd, 2nd) 6/2 = 3 with 1/4; the 2.5th and 97.5th
        // percentiles are 1 and 3, the pooled ratio 4/2
        Estimate estimate = RatioInterval.estimate(List.of(Round.single(1), Round.single(3)), List.of(Round.single(1), Round.single(1)), Statistic.TOTAL);
        assertThat(estimate.ratio()).isEqualTo(2.0);
        assertThat(estimate.low()).isEqualTo(1.0);
        assertThat(estimate.high()).isEqualTo(3.0);
        assertThat(estimate.roundRatios()).containsExactly(1.0, 3.0);
        // 1 is in the interval (low is not above 1)
        assertThat(estimate.verdict()).isEqualTo(Verdict.TIE);

        Estimate loss = RatioInterval.estimate(List.of(Round.single(2), Round.single(3), Round.single(4)), List.of(Round.single(1), Round.single(1), Round.single(1)),
                Statistic.TOTAL);
        assertThat(loss.ratio()).isEqualTo(3.0);
        assertThat(loss.low()).isGreaterThanOrEqualTo(2.0);
        assertThat(loss.high()).isLessThanOrEqualTo(4.0);
        assertThat(loss.verdict()).isEqualTo(Verdict.LOSS);
    }

    @Test
    void percentilesAreNearestRankAndTheIntervalCutsTwoAndAHalfPercentEachSide()
    {
        // nearest rank, as the report's P50 and P95: of 1..20, P95 is the 19th value; of {5, 1, 3} P50 the 2nd
        assertThat(Statistic.P95.of(LongStream.rangeClosed(1, 20).boxed().toList())).isEqualTo(19);
        assertThat(Statistic.P50.of(List.of(5L, 1L, 3L))).isEqualTo(3);
        assertThat(Statistic.P50.of(List.of(5L, 1L, 3L, 4L))).isEqualTo(3);
        assertThat(Statistic.TOTAL.of(List.of(5L, 1L, 3L))).isEqualTo(9);
        assertThat(Statistic.P95.of(List.<Long>of())).isNaN();
        // of 10,000 sorted ratios 1..10000: the 251st and the 9,750th, so that 9,500 lie between them, both included
        double[] sorted = IntStream.rangeClosed(1, 10_000).asDoubleStream().toArray();
        assertThat(RatioInterval.percentileInterval(sorted, 0.025, false)).isEqualTo(251);
        assertThat(RatioInterval.percentileInterval(sorted, 0.975, true)).isEqualTo(9750);
        // of 40: the 2nd and the 39th, one left out on each side
        double[] forty = IntStream.rangeClosed(1, 40).asDoubleStream().toArray();
        assertThat(RatioInterval.percentileInterval(forty, 0.025, false)).isEqualTo(2);
        assertThat(RatioInterval.percentileInterval(forty, 0.975, true)).isEqualTo(39);
    }

    @Test
    void theSameSeedGivesTheSameIntervalAndAnotherSeedAnother()
    {
        List<Round> catalog = noisyRounds(6, 1, value -> value);
        List<Round> anchor = noisyRounds(6, 2, value -> value);
        Estimate first = RatioInterval.estimate(catalog, anchor, Statistic.P95, 10_000, 5);
        assertThat(RatioInterval.estimate(catalog, anchor, Statistic.P95, 10_000, 5)).isEqualTo(first);
        assertThat(RatioInterval.estimate(catalog, anchor, Statistic.P95)).isEqualTo(RatioInterval.estimate(catalog, anchor, Statistic.P95));
        assertThat(first.low()).isLessThan(first.high());
        List<Estimate> others = LongStream.rangeClosed(6, 10).mapToObj(seed -> RatioInterval.estimate(catalog, anchor, Statistic.P95, 1_000, seed)).toList();
        assertThat(others).extracting(Estimate::low).doesNotHaveDuplicates().hasSizeGreaterThan(1);
        // the point estimate does not depend on the seed
        assertThat(others).extracting(Estimate::ratio).containsOnly(first.ratio());
        List<Estimate> oneRound = LongStream.rangeClosed(1, 2).mapToObj(seed -> RatioInterval.estimate(catalog.subList(0, 1), anchor.subList(0, 1), Statistic.P50, 1_000, seed)).toList();
        assertThat(oneRound.getFirst()).isEqualTo(RatioInterval.estimate(catalog.subList(0, 1), anchor.subList(0, 1), Statistic.P50, 1_000, 1));
    }

    @Test
    void oneValuePerRoundHasNoIntervalFromOneRoundAndZeroAnchorsAreHandled()
    {
        Estimate bytes = RatioInterval.estimate(List.of(Round.single(50)), List.of(Round.single(100)), Statistic.TOTAL);
        assertThat(bytes.ratio()).isEqualTo(0.5);
        assertThat(bytes.low()).isNaN();
        assertThat(bytes.verdict()).isEqualTo(Verdict.NONE);
        assertThat(bytes.method()).isEqualTo(Method.NONE);
        assertThat(bytes.intervalText()).isEqualTo("-");
        assertThat(bytes.verdict().label()).isEqualTo("-");
        // neither read anything: the same; only the anchor read nothing: infinitely worse, a loss
        assertThat(RatioInterval.estimate(List.of(Round.single(0), Round.single(0)), List.of(Round.single(0), Round.single(0)), Statistic.TOTAL).ratio()).isEqualTo(1.0);
        Estimate worse = RatioInterval.estimate(List.of(Round.single(1), Round.single(1)), List.of(Round.single(0), Round.single(0)), Statistic.TOTAL);
        assertThat(worse.ratio()).isInfinite();
        assertThat(worse.ratioText()).isEqualTo("inf");
        assertThat(worse.verdict()).isEqualTo(Verdict.LOSS);
        // no values at all (no CPU time reported): no ratio
        Estimate none = RatioInterval.estimate(List.of(new Round(Map.of())), List.of(new Round(Map.of())), Statistic.TOTAL);
        assertThat(none.ratio()).isNaN();
        assertThat(none.ratioText()).isEqualTo("-");
        assertThat(none.verdict()).isEqualTo(Verdict.NONE);
        assertThatThrownBy(() -> RatioInterval.estimate(List.of(Round.single(1)), List.of(), Statistic.TOTAL))
                .hasMessageContaining("the same rounds");
    }

    // rounds of 8 queries x 3 runs, each run the query's base time plus seeded noise, then mapped
    private static List<Round> noisyRounds(int rounds, long seed, LongUnaryOperator map)
    {
        Random random = new Random(seed);
        List<Round> result = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            Map<String, List<Long>> byQuery = new LinkedHashMap<>();
            for (int query = 1; query <= 8; query++) {
                List<Long> runs = new ArrayList<>();
                for (int run = 0; run < 3; run++) {
                    runs.add(map.applyAsLong(100L * query + random.nextInt(200)));
                }
                byQuery.put("Q" + query, runs);
            }
            result.add(new Round(byQuery));
        }
        return result;
    }

    // one round, 8 queries x 4 runs within 1% of 1000 ms x the query's number, times factor
    private static List<Round> tightRound(long factor)
    {
        Map<String, List<Long>> byQuery = new LinkedHashMap<>();
        for (int query = 1; query <= 8; query++) {
            long base = 1000L * query;
            byQuery.put("Q" + query, List.of(factor * base, factor * (base + 3), factor * (base + 6), factor * (base + 9)));
        }
        return List.of(new Round(byQuery));
    }
}
