package io.overdrive.it.placement;

import java.util.Arrays;
import java.util.SplittableRandom;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The files of the simulated data lake: their paths (the affinity keys), their splits, the tables they belong to and
 * the tables' Zipf popularity. Table {@code t} has popularity rank {@code t + 1} and holds files
 * {@code t * filesPerTable} to {@code (t + 1) * filesPerTable - 1}; placement hashes the path, so rank and worker are
 * unrelated. A query reads a run of consecutive files of one table, as a query over a range of partitions does.
 */
final class Lake
{
    /** Every split covers this many bytes of its file: the offsets and lengths in split keys. */
    static final long SPLIT_BYTES = 64L << 20;

    private final int splitsPerFile;
    private final int filesPerTable;
    private final int minFilesPerQuery;
    private final int maxFilesPerQuery;
    private final String[] paths;
    private final double[] cumulative;

    Lake(int files, int splitsPerFile, int filesPerTable, int minFilesPerQuery, int maxFilesPerQuery, double zipfExponent)
    {
        checkArgument(files >= 1 && splitsPerFile >= 1, "need files and splits");
        checkArgument(filesPerTable >= 1 && files % filesPerTable == 0, "filesPerTable must divide the files: %s, %s", filesPerTable, files);
        checkArgument(minFilesPerQuery >= 1 && minFilesPerQuery <= maxFilesPerQuery && maxFilesPerQuery <= filesPerTable, "bad files per query: %s to %s", minFilesPerQuery, maxFilesPerQuery);
        this.splitsPerFile = splitsPerFile;
        this.filesPerTable = filesPerTable;
        this.minFilesPerQuery = minFilesPerQuery;
        this.maxFilesPerQuery = maxFilesPerQuery;
        paths = new String[files];
        for (int file = 0; file < files; file++) {
            paths[file] = "hdfs://lake/warehouse/t%05d/part-%07d.parquet".formatted(file / filesPerTable, file);
        }
        int tables = files / filesPerTable;
        cumulative = new double[tables];
        double sum = 0;
        for (int table = 0; table < tables; table++) {
            sum += 1 / Math.pow(table + 1, zipfExponent);
            cumulative[table] = sum;
        }
        for (int table = 0; table < tables; table++) {
            cumulative[table] /= sum;
        }
    }

    static Lake of(SimulationConfig config)
    {
        return new Lake(config.files(), config.splitsPerFile(), config.filesPerTable(), config.minFilesPerQuery(), config.maxFilesPerQuery(), config.zipfExponent());
    }

    int files()
    {
        return paths.length;
    }

    int tables()
    {
        return cumulative.length;
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

    /** The share of the queries that read the most popular of {@code tables} tables. */
    static double hottestShare(int tables, double zipfExponent)
    {
        return new Lake(tables, 1, 1, 1, 1, zipfExponent).popularity(0);
    }

    /** The probability that a query reads {@code table}. */
    double popularity(int table)
    {
        return table == 0 ? cumulative[0] : cumulative[table] - cumulative[table - 1];
    }

    /** The files of the next query: a table drawn by popularity, then a run of its files of random length and start. */
    int[] nextQueryFiles(SplittableRandom random)
    {
        int index = Arrays.binarySearch(cumulative, random.nextDouble());
        int table = Math.min(index >= 0 ? index : -index - 1, cumulative.length - 1);
        int count = minFilesPerQuery + random.nextInt(maxFilesPerQuery - minFilesPerQuery + 1);
        int start = table * filesPerTable + random.nextInt(filesPerTable - count + 1);
        int[] files = new int[count];
        for (int offset = 0; offset < count; offset++) {
            files[offset] = start + offset;
        }
        return files;
    }
}
