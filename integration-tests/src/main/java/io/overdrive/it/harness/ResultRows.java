package io.overdrive.it.harness;

import java.util.List;

/**
 * Compares query results row by row. Doubles compare with a relative tolerance: a distributed sum of doubles may add
 * its partial sums in a different order from run to run, which changes the last bits, not the answer.
 */
public final class ResultRows
{
    private static final double RELATIVE_TOLERANCE = 1e-9;

    private ResultRows() {}

    public static boolean same(List<List<Object>> left, List<List<Object>> right)
    {
        if (left.size() != right.size()) {
            return false;
        }
        for (int row = 0; row < left.size(); row++) {
            List<Object> leftRow = left.get(row);
            List<Object> rightRow = right.get(row);
            if (leftRow.size() != rightRow.size()) {
                return false;
            }
            for (int column = 0; column < leftRow.size(); column++) {
                if (!sameValue(leftRow.get(column), rightRow.get(column))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean sameValue(Object left, Object right)
    {
        if (left instanceof Double leftDouble && right instanceof Double rightDouble) {
            double scale = Math.max(Math.abs(leftDouble), Math.abs(rightDouble));
            return leftDouble.equals(rightDouble) || Math.abs(leftDouble - rightDouble) <= RELATIVE_TOLERANCE * scale;
        }
        return java.util.Objects.equals(left, right);
    }
}
