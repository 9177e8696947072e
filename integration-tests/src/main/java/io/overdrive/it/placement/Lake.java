package io.overdrive.it.placement;

import java.util.Arrays;
import java.util.SplittableRandom;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The files of the simulated data lake: their paths (the affinity keys), their splits and their Zipf popularity.
 * File {@code f} has popularity rank {@code f + 1}; placement hashes the path, so rank and worker are unrelated.
 */
final class Lake
{
    /** Every split covers this many bytes of its file: the offsets and lengths in split keys. */
    static final long SPLIT_BYTES = 64L << 20;

    private final int splitsPerFile;
    private final String[] paths;
    private final double[] cumulative;

    Lake(int files, int splitsPerFile, double zipfExponent)
    {
        checkArgument(files >= 1 && splitsPerFile >= 1, "need files and splits");
        this.splitsPerFile = splitsPerFile;
        paths = new String[files];
        cumulative = new double[files];
        double sum = 0;
        for (int file = 0; file < files; file++) {
            paths[file] = "hdfs://lake/warehouse/events/part-%07d.parquet".formatted(file);
            sum += 1 / Math.pow(file + 1, zipfExponent);
            cumulative[file] = sum;
        }
        for (int file = 0; file < files; file++) {
            cumulative[file] /= sum;
        }
    }

    int files()
    {
        return paths.length;
    }

    int splitsPerFile()
    {
        return splitsPerFile;
    }

    String path(int file)
    {
        return paths[file];
    }

    /** The cache unit of a split: one id per (file, split). */
    long chunk(int file, int split)
    {
        return (long) file * splitsPerFile + split;
    }

    /** The probability that a query reads {@code file}. */
    double popularity(int file)
    {
        return file == 0 ? cumulative[0] : cumulative[file] - cumulative[file - 1];
    }

    /** A file drawn by popularity. */
    int nextFile(SplittableRandom random)
    {
        int index = Arrays.binarySearch(cumulative, random.nextDouble());
        return Math.min(index >= 0 ? index : -index - 1, cumulative.length - 1);
    }
}
