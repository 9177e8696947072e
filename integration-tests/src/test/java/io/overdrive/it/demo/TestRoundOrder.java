package io.overdrive.it.demo;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestRoundOrder
{
    private static final List<String> CATALOGS = List.of("hive", "trino_cache", "overdrive");

    @Test
    void theFirstRoundKeepsTheOrderAndSixRoundsRunEveryOrderOnce()
    {
        assertThat(RoundOrder.of(CATALOGS, 0)).isEqualTo(CATALOGS);
        assertThat(RoundOrder.of(CATALOGS, 1)).containsExactly("overdrive", "trino_cache", "hive");
        Set<List<String>> orders = new HashSet<>();
        for (int round = 0; round < 6; round++) {
            orders.add(RoundOrder.of(CATALOGS, round));
        }
        assertThat(orders).hasSize(6);
        // and then again
        assertThat(RoundOrder.of(CATALOGS, 6)).isEqualTo(RoundOrder.of(CATALOGS, 0));
        assertThatThrownBy(() -> RoundOrder.of(CATALOGS, -1)).hasMessageContaining("negative");
        assertThat(RoundOrder.of(List.of(), 3)).isEmpty();
    }

    @Test
    void everyCatalogIsFirstAndLastEquallyOftenAndEveryPairFollowsEquallyOften()
    {
        for (int catalogs = 2; catalogs <= 5; catalogs++) {
            List<Integer> base = IntStream.range(0, catalogs).boxed().toList();
            Map<Integer, Integer> first = new HashMap<>();
            Map<Integer, Integer> last = new HashMap<>();
            Map<List<Integer>, Integer> pairs = new HashMap<>();
            for (int round = 0; round < 2 * catalogs; round++) {
                List<Integer> order = RoundOrder.of(base, round);
                assertThat(order).containsExactlyInAnyOrderElementsOf(base);
                first.merge(order.getFirst(), 1, Integer::sum);
                last.merge(order.getLast(), 1, Integer::sum);
                for (int i = 1; i < order.size(); i++) {
                    pairs.merge(List.of(order.get(i - 1), order.get(i)), 1, Integer::sum);
                }
            }
            assertThat(first.values()).as("%d catalogs first", catalogs).hasSize(catalogs).containsOnly(2);
            assertThat(last.values()).as("%d catalogs last", catalogs).hasSize(catalogs).containsOnly(2);
            if (catalogs == 3) {
                // a Williams design: each of the 6 ordered pairs right after each other twice
                assertThat(pairs).hasSize(6);
                assertThat(pairs.values()).containsOnly(2);
            }
        }
        // two rounds of two catalogs: each first once
        assertThat(List.of(RoundOrder.of(List.of("a", "b"), 0).getFirst(), RoundOrder.of(List.of("a", "b"), 1).getFirst())).containsExactly("a", "b");
    }
}
