package io.overdrive.it.placement;

import io.overdrive.scheduler.affinity.AffinityGranularity;
import io.overdrive.scheduler.affinity.NodeSelectionConfig;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The parameters of one simulated run. Times are in milliseconds of simulated time unless named otherwise; the same
 * configuration and seed give the same arrivals (and the same results) for every policy.
 *
 * @param workers workers at the start; one more joins at {@code joinFraction} of the arrival period, one of the
 * original ones leaves at {@code leaveFraction}
 * @param slotsPerWorker splits a worker runs at once (its driver threads)
 * @param filesPerWorker files in the lake per starting worker: the lake grows with the cluster
 * @param splitsPerFile splits of each file (each split is one cacheable unit: its pages)
 * @param filesPerTable files of each table: the lake is tables of this many files, and popularity is a table's
 * @param minFilesPerQuery a query reads a run of consecutive files of one table (a range of partitions), at least this
 * many...
 * @param maxFilesPerQuery ... and at most this many (uniformly), at most {@code filesPerTable}
 * @param cachedSplitsPerWorker how many splits' data a worker's page cache holds (LRU)
 * @param zipfExponent table popularity: the table of rank r is read with probability proportional to 1 / r^exponent
 * @param utilisation the offered load: arrival rate × mean splits per query × reference service time / (workers × slots)
 * @param referenceHitRatio the hit ratio the reference service time assumes (only sets the arrival rate; every policy
 * then gets the same arrivals and its own hit ratio)
 * @param cpuMillis a split's processing time
 * @param localReadMillis a split's read time when its data is in the worker's cache
 * @param remoteReadMillis a split's read time from remote storage (a miss)
 * @param arrivalSeconds queries arrive during this long; then the run drains
 * @param warmupSeconds queries arriving before this are not measured (caches and load account fill up)
 * @param joinFraction when a new worker joins, as a fraction of the arrival period
 * @param leaveFraction when one of the original workers leaves, as a fraction of the arrival period
 * @param splitsBalancing how Trino's engine picks among a split's candidate nodes
 * ({@code node-scheduler.splits-balancing-policy}): STAGE (Trino's default) or NODE
 * @param preferredHostsCount Overdrive's {@code node-selection.preferred-hosts-count}
 * @param loadBalanceEpsilon Overdrive's {@code node-selection.load-balance-epsilon}
 * @param loadHalfLifeSeconds Overdrive's {@code node-selection.load-half-life}
 * @param granularity Overdrive's {@code node-selection.affinity-granularity}
 * @param seed the seed of the arrivals, of the worker that leaves and of the policies' tie breaks
 * @param trinoPreferredHosts Trino's {@code node-scheduler.cache-preferred-hosts-count} (its default: 2)
 */
record SimulationConfig(
        int workers,
        int slotsPerWorker,
        int filesPerWorker,
        int splitsPerFile,
        int filesPerTable,
        int minFilesPerQuery,
        int maxFilesPerQuery,
        int cachedSplitsPerWorker,
        double zipfExponent,
        double utilisation,
        double referenceHitRatio,
        double cpuMillis,
        double localReadMillis,
        double remoteReadMillis,
        double arrivalSeconds,
        double warmupSeconds,
        double joinFraction,
        double leaveFraction,
        SplitsBalancing splitsBalancing,
        int preferredHostsCount,
        double loadBalanceEpsilon,
        double loadHalfLifeSeconds,
        AffinityGranularity granularity,
        long seed,
        int trinoPreferredHosts)
{
    static final long DEFAULT_SEED = 20261212;
    // Overdrive's shipped placement defaults
    private static final NodeSelectionConfig DEFAULTS = new NodeSelectionConfig();

    SimulationConfig
    {
        checkArgument(workers >= 2, "workers must be at least 2: %s", workers);
        checkArgument(slotsPerWorker >= 1, "slotsPerWorker must be positive: %s", slotsPerWorker);
        checkArgument(filesPerWorker >= 1, "filesPerWorker must be positive: %s", filesPerWorker);
        checkArgument(splitsPerFile >= 1, "splitsPerFile must be positive: %s", splitsPerFile);
        checkArgument(filesPerTable >= 1 && filesPerWorker % filesPerTable == 0, "filesPerTable must divide filesPerWorker: %s, %s", filesPerTable, filesPerWorker);
        checkArgument(minFilesPerQuery >= 1 && minFilesPerQuery <= maxFilesPerQuery && maxFilesPerQuery <= filesPerTable,
                "need 1 <= minFilesPerQuery <= maxFilesPerQuery <= filesPerTable: %s, %s, %s", minFilesPerQuery, maxFilesPerQuery, filesPerTable);
        checkArgument(cachedSplitsPerWorker >= 1, "cachedSplitsPerWorker must be positive: %s", cachedSplitsPerWorker);
        checkArgument(zipfExponent >= 0, "zipfExponent must not be negative: %s", zipfExponent);
        checkArgument(utilisation > 0 && utilisation < 2, "utilisation must be in (0, 2): %s", utilisation);
        checkArgument(referenceHitRatio >= 0 && referenceHitRatio <= 1, "referenceHitRatio must be in [0, 1]: %s", referenceHitRatio);
        checkArgument(cpuMillis > 0 && localReadMillis >= 0 && remoteReadMillis >= 0, "service times must be positive");
        checkArgument(arrivalSeconds > warmupSeconds && warmupSeconds >= 0, "warm-up %s must be shorter than the arrival period %s", warmupSeconds, arrivalSeconds);
        checkArgument(joinFraction > 0 && joinFraction < leaveFraction && leaveFraction < 1, "need 0 < joinFraction < leaveFraction < 1: %s, %s", joinFraction, leaveFraction);
        requireNonNull(splitsBalancing, "splitsBalancing is null");
        checkArgument(preferredHostsCount >= 1, "preferredHostsCount must be positive: %s", preferredHostsCount);
        checkArgument(trinoPreferredHosts >= 1, "trinoPreferredHosts must be positive: %s", trinoPreferredHosts);
        checkArgument(loadBalanceEpsilon > 0, "loadBalanceEpsilon must be positive: %s", loadBalanceEpsilon);
        checkArgument(loadHalfLifeSeconds > 0, "loadHalfLifeSeconds must be positive: %s", loadHalfLifeSeconds);
        requireNonNull(granularity, "granularity is null");
    }

    /**
     * The report's model: 16 slots, 250 files of 4 splits per worker in tables of 50 files, queries of 4 to 50
     * consecutive files of one table (16 to 200 splits), a cache of 150 splits per worker (15% of a worker's share of
     * the lake), Zipf 1.1 over tables, 75% offered load, 50 ms of CPU and 5 ms (cached) or 100 ms (remote) of
     * reading per split; a longer run for fewer workers, which have fewer arrivals per second.
     */
    static SimulationConfig standard(int workers)
    {
        double arrivalSeconds;
        double warmupSeconds;
        if (workers <= 10) {
            arrivalSeconds = 1200;
            warmupSeconds = 120;
        }
        else if (workers <= 100) {
            arrivalSeconds = 600;
            warmupSeconds = 90;
        }
        else {
            // the real placer costs O(workers) per split: a shorter run keeps 1,000 workers to a few minutes
            arrivalSeconds = 90;
            warmupSeconds = 30;
        }
        return new SimulationConfig(workers, 16, 250, 4, 50, 4, 50, 150, 1.1, 0.75, 0.6, 50, 5, 100,
                arrivalSeconds, warmupSeconds, 0.45, 0.75, SplitsBalancing.STAGE,
                DEFAULTS.getPreferredHostsCount(), DEFAULTS.getLoadBalanceEpsilon(), DEFAULTS.getLoadHalfLife().getValue(SECONDS), DEFAULTS.getAffinityGranularity(), DEFAULT_SEED, 2);
    }

    int files()
    {
        return workers * filesPerWorker;
    }

    /** The mean service time of a split at the reference hit ratio, which sets the arrival rate. */
    double referenceServiceMillis()
    {
        return cpuMillis + referenceHitRatio * localReadMillis + (1 - referenceHitRatio) * remoteReadMillis;
    }

    int tables()
    {
        return files() / filesPerTable;
    }

    double meanSplitsPerQuery()
    {
        return splitsPerFile * (minFilesPerQuery + maxFilesPerQuery) / 2.0;
    }

    double queriesPerSecond()
    {
        return utilisation * workers * slotsPerWorker * 1000 / (meanSplitsPerQuery() * referenceServiceMillis());
    }

    /** Queries of one whole file each, files popular by Zipf: every table is one file. */
    SimulationConfig withSingleFileQueries()
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, 1, 1, 1, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withUtilisation(double value)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, zipfExponent, value, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withZipfExponent(double value)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, value, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withPeriod(double arrival, double warmup)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrival, warmup, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withQueryShape(int tableFiles, int minFiles, int maxFiles)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, tableFiles, minFiles, maxFiles, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withLake(int files, int cachedSplits)
    {
        return new SimulationConfig(workers, slotsPerWorker, files, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplits, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withOverdrive(int hosts, double epsilon, double halfLifeSeconds, AffinityGranularity affinityGranularity)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, hosts, epsilon, halfLifeSeconds, affinityGranularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withSlots(int slots)
    {
        return new SimulationConfig(workers, slots, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withSplitsBalancing(SplitsBalancing value)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, value, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, seed, trinoPreferredHosts);
    }

    SimulationConfig withSeed(long value)
    {
        return new SimulationConfig(workers, slotsPerWorker, filesPerWorker, splitsPerFile, filesPerTable, minFilesPerQuery, maxFilesPerQuery, cachedSplitsPerWorker, zipfExponent, utilisation, referenceHitRatio, cpuMillis, localReadMillis, remoteReadMillis,
                arrivalSeconds, warmupSeconds, joinFraction, leaveFraction, splitsBalancing, preferredHostsCount, loadBalanceEpsilon, loadHalfLifeSeconds, granularity, value, trinoPreferredHosts);
    }
}
