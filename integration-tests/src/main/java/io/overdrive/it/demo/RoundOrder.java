package io.overdrive.it.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The catalogs' order in each round of a phase, balanced over the rounds: round {@code r} takes the base order rotated
 * by {@code r / 2} places, reversed in every odd round. Over every {@code 2n} rounds of {@code n} catalogs each catalog
 * runs first and last equally often (for three catalogs every ordered pair also follows each other equally often, a
 * Williams design), so that none is always the one that runs after a quiet machine or after the others warmed the OS.
 */
final class RoundOrder
{
    private RoundOrder() {}

    static <T> List<T> of(List<T> base, int round)
    {
        if (round < 0) {
            throw new IllegalArgumentException("round must not be negative: " + round);
        }
        if (base.isEmpty()) {
            return List.of();
        }
        int offset = (round / 2) % base.size();
        List<T> rotated = new ArrayList<>(base.size());
        for (int i = 0; i < base.size(); i++) {
            rotated.add(base.get((offset + i) % base.size()));
        }
        return List.copyOf(round % 2 == 0 ? rotated : rotated.reversed());
    }
}
