package io.overdrive.cache.hedge;

import io.airlift.testing.TestingTicker;
import org.junit.jupiter.api.Test;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

class TestHedgeBudget
{
    @Test
    void allowsTheRatioOfHedgesPerRead()
    {
        HedgeBudget budget = new HedgeBudget(0.05, 0, new TestingTicker());
        reads(budget, 100);
        assertThat(acquired(budget, 50)).isEqualTo(5);
        assertThat(budget.tryAcquire()).isFalse();
    }

    @Test
    void noReadsNoHedges()
    {
        assertThat(new HedgeBudget(0.5, 0, new TestingTicker()).tryAcquire()).isFalse();
        HedgeBudget budget = new HedgeBudget(0.05, 0, new TestingTicker());
        // one read earns a twentieth of a hedge: not a whole one
        reads(budget, 19);
        assertThat(budget.tryAcquire()).isFalse();
        reads(budget, 1);
        assertThat(budget.tryAcquire()).isTrue();
        assertThat(budget.tryAcquire()).isFalse();
    }

    @Test
    void ratioOfOneHedgesTheFirstReadWhateverTheClock()
    {
        // the read is counted at 990ms, its hedge asked for at 1010ms: by then the counters weigh the read e^-1/60
        TestingTicker ticker = new TestingTicker();
        ticker.increment(990, MILLISECONDS);
        HedgeBudget budget = new HedgeBudget(1, 0, ticker);
        budget.recordRead();
        ticker.increment(20, MILLISECONDS);
        assertThat(budget.tryAcquire()).isTrue();
    }

    @Test
    void ratioOfOneHedgesEveryRead()
    {
        // every read is slow and wants its hedge 20ms after it started: hedges weigh as much as reads, and rounding
        // alone puts hedges + 1 above the reads now and then (the 16th read here, before the fix)
        TestingTicker ticker = new TestingTicker();
        HedgeBudget budget = new HedgeBudget(1, 0, ticker);
        for (int read = 0; read < 500; read++) {
            ticker.increment(90, MILLISECONDS);
            budget.recordRead();
            ticker.increment(20, MILLISECONDS);
            assertThat(budget.tryAcquire()).as("hedge of read %s at %sms", read, ticker.read() / 1_000_000).isTrue();
        }
    }

    @Test
    void refusalRecoversAfterMoreReads()
    {
        HedgeBudget budget = new HedgeBudget(0.05, 0, new TestingTicker());
        reads(budget, 100);
        assertThat(acquired(budget, 10)).isEqualTo(5);
        // 19 more reads: 119 * 0.05 = 5.95, not enough for a sixth hedge
        reads(budget, 19);
        assertThat(budget.tryAcquire()).isFalse();
        reads(budget, 1);
        assertThat(budget.tryAcquire()).isTrue();
        assertThat(budget.tryAcquire()).isFalse();
        reads(budget, 40);
        assertThat(acquired(budget, 10)).isEqualTo(2);
    }

    @Test
    void oldReadsStopEarningHedges()
    {
        TestingTicker ticker = new TestingTicker();
        HedgeBudget budget = new HedgeBudget(0.05, 0, ticker);
        reads(budget, 1000);
        // ten minutes later, a thousand reads weigh e^-10 of a read: no hedge
        ticker.increment(10, MINUTES);
        assertThat(budget.tryAcquire()).isFalse();

        TestingTicker control = new TestingTicker();
        HedgeBudget undecayed = new HedgeBudget(0.05, 0, control);
        reads(undecayed, 1000);
        control.increment(1, SECONDS);
        assertThat(undecayed.tryAcquire()).isTrue();
    }

    @Test
    void oldHedgesAreForgotten()
    {
        TestingTicker ticker = new TestingTicker();
        HedgeBudget budget = new HedgeBudget(0.05, 0, ticker);
        reads(budget, 100);
        assertThat(acquired(budget, 10)).isEqualTo(5);
        // ten minutes of one read a second: the reads weigh about 60.5 (a one-minute decay), the old hedges nothing,
        // so 3 hedges fit (60.5 * 0.05 = 3.03); without decay, 700 reads and 5 hedges would leave 30
        for (int second = 0; second < 600; second++) {
            ticker.increment(1, SECONDS);
            budget.recordRead();
        }
        assertThat(acquired(budget, 50)).isEqualTo(3);
    }

    @Test
    void aBurstOfHedgesIsRefusedBeyondTheRatio()
    {
        // a storage-wide slowdown: every read wants a hedge; the budget lets through the ratio, evenly
        TestingTicker ticker = new TestingTicker();
        assertThat(hedgesOfSlowReads(new HedgeBudget(0.1, 0, ticker), ticker, 10_000)).isBetween(990, 1000);
    }

    @Test
    void ratioJustBelowOneStillLimits()
    {
        HedgeBudget budget = new HedgeBudget(0.99, 0, new TestingTicker());
        reads(budget, 150);
        // 150 * 0.99 = 148.5
        assertThat(acquired(budget, 200)).isEqualTo(148);
    }

    @Test
    void reserveHedgesAQuietStorage()
    {
        // a cold cache sends a few reads: the ratio alone allows none before 20 reads, the reserve allows that many
        TestingTicker ticker = new TestingTicker();
        HedgeBudget budget = new HedgeBudget(0.05, 3, ticker);
        assertThat(acquired(budget, 10)).isEqualTo(3);
        reads(budget, 19);
        assertThat(budget.tryAcquire()).isFalse();
        reads(budget, 1);
        // 20 reads earn one hedge on top of the reserve
        assertThat(acquired(budget, 10)).isEqualTo(1);

        // the reserve comes back as the hedges are forgotten: two minutes later the 4 hedges weigh 0.54 and the 20
        // reads 2.71, so two more fit (0.54 + 2 <= 0.14 + 3)
        ticker.increment(2, MINUTES);
        assertThat(acquired(budget, 10)).isEqualTo(2);
    }

    @Test
    void reserveIsSmallAgainstAStorageWideSlowdown()
    {
        // every read of a busy storage wants a hedge, a hundred reads a second for a minute: the hedges stay within the
        // ratio plus the reserve's handful
        TestingTicker ticker = new TestingTicker();
        // without decay 300 + 10; the one-minute decay forgets some of the first hedges, which lets a few more start
        assertThat(hedgesOfSlowReads(new HedgeBudget(0.05, 10, ticker), ticker, 6_000)).isBetween(300, 330);
    }

    @Test
    void reserveDoesNotLimitARatioOfOne()
    {
        HedgeBudget budget = new HedgeBudget(1, 0, new TestingTicker());
        reads(budget, 5);
        assertThat(acquired(budget, 5)).isEqualTo(5);
    }

    // a hundred reads a second, each wanting a hedge: how many the budget allowed
    private static int hedgesOfSlowReads(HedgeBudget budget, TestingTicker ticker, int reads)
    {
        int hedges = 0;
        for (int read = 0; read < reads; read++) {
            if (read % 100 == 0) {
                ticker.increment(1, SECONDS);
            }
            budget.recordRead();
            if (budget.tryAcquire()) {
                hedges++;
            }
        }
        return hedges;
    }

    private static void reads(HedgeBudget budget, int count)
    {
        for (int read = 0; read < count; read++) {
            budget.recordRead();
        }
    }

    private static int acquired(HedgeBudget budget, int attempts)
    {
        int acquired = 0;
        for (int attempt = 0; attempt < attempts; attempt++) {
            if (budget.tryAcquire()) {
                acquired++;
            }
        }
        return acquired;
    }
}
