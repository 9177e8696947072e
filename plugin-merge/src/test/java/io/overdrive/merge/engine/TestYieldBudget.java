package io.overdrive.merge.engine;

import org.junit.jupiter.api.Test;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

public class TestYieldBudget
{
    @Test
    public void testConvergesToTargetTime()
    {
        YieldBudget budget = new YieldBudget(MILLISECONDS.toNanos(10));
        assertThat(budget.rows()).isEqualTo(YieldBudget.INITIAL_ROWS);
        // 50 ns per row: 10 ms is 200,000 rows
        for (int i = 0; i < 20; i++) {
            budget.record(budget.rows(), budget.rows() * 50L);
        }
        assertThat(budget.rows()).isBetween(199_000, 201_000);
        // the merge gets 10x slower (e.g. wide rows): the budget follows
        for (int i = 0; i < 20; i++) {
            budget.record(budget.rows(), budget.rows() * 500L);
        }
        assertThat(budget.rows()).isBetween(19_900, 20_100);
    }

    @Test
    public void testFirstGuessFollowsTarget()
    {
        assertThat(new YieldBudget(MILLISECONDS.toNanos(10)).rows()).isEqualTo(YieldBudget.INITIAL_ROWS);
        assertThat(new YieldBudget(MILLISECONDS.toNanos(10) / 50).rows()).isEqualTo(4_000);
        assertThat(new YieldBudget(1_000).rows()).isEqualTo(YieldBudget.MIN_ROWS);
    }

    @Test
    public void testIgnoresTinySamplesAndStaysBounded()
    {
        YieldBudget budget = new YieldBudget(MILLISECONDS.toNanos(10));
        budget.record(3, 1);
        assertThat(budget.rows()).isEqualTo(YieldBudget.INITIAL_ROWS);
        for (int i = 0; i < 100; i++) {
            budget.record(1_000_000, 1);
        }
        assertThat(budget.rows()).isEqualTo(YieldBudget.MAX_ROWS);
        for (int i = 0; i < 100; i++) {
            budget.record(1_000, MILLISECONDS.toNanos(1000));
        }
        assertThat(budget.rows()).isEqualTo(YieldBudget.MIN_ROWS);
    }
}
