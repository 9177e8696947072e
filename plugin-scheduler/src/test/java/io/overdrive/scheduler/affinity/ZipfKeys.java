package io.overdrive.scheduler.affinity;

import java.util.Arrays;
import java.util.Random;

/**
 * Split keys drawn from files whose popularity follows Zipf's law: file {@code r} (from 1) is read with probability
 * proportional to {@code 1 / r^exponent}, as queries over a few hot partitions do.
 */
final class ZipfKeys
{
    private final double[] cumulative;
    private final Random random;

    ZipfKeys(int files, double exponent, long seed)
    {
        cumulative = new double[files];
        double sum = 0;
        for (int rank = 1; rank <= files; rank++) {
            sum += 1 / Math.pow(rank, exponent);
            cumulative[rank - 1] = sum;
        }
        for (int index = 0; index < files; index++) {
            cumulative[index] /= sum;
        }
        random = new Random(seed);
    }

    /**
     * The popularity rank (1 = hottest) of the next split's file.
     */
    int nextRank()
    {
        int index = Arrays.binarySearch(cumulative, random.nextDouble());
        return Math.min((index >= 0 ? index : -index - 1) + 1, cumulative.length);
    }
}
