package io.overdrive.merge;

import io.airlift.log.Logger;
import io.overdrive.merge.admission.Admission;
import io.overdrive.merge.admission.MergeScheduler;
import io.overdrive.merge.config.MergeConfig;
import io.overdrive.merge.engine.MergePlan;
import io.overdrive.merge.engine.ParallelMerge;
import io.overdrive.merge.stats.MergeStats;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The node's merge engine: one shared merge pool with priority + FIFO admission, and the merges running on it.
 * Create one per node (per plugin instance) and close it on shutdown.
 *
 * <pre>{@code
 * MergedPageStream stream = engine.merge(MergeRequest.builder(types, List.of(SortKey.ascending(0)))
 *         .sources(inputs)
 *         .combine(CombineSpec.of(CombineStep.FINAL, Aggregation.sum(1)))
 *         .build());
 * }</pre>
 */
public final class MergeEngine
        implements AutoCloseable
{
    private static final Logger log = Logger.get(MergeEngine.class);

    private final MergeConfig config;
    private final MergeScheduler scheduler;
    private final MergeStats stats;
    private final TypeOperators typeOperators;
    private final Set<ParallelMerge> merges = ConcurrentHashMap.newKeySet();

    public MergeEngine(MergeConfig config)
    {
        this(config, new MergeStats(), new TypeOperators());
    }

    public MergeEngine(MergeConfig config, MergeStats stats, TypeOperators typeOperators)
    {
        this.config = requireNonNull(config, "config is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.typeOperators = requireNonNull(typeOperators, "typeOperators is null");
        this.scheduler = new MergeScheduler(config.getPoolSize(), config.isFifo());
    }

    /**
     * Starts a merge; it waits for admission if the pool is busy. The engine owns the request's sources from now on
     * and closes them, also when this method throws because the request is invalid.
     */
    public MergedPageStream merge(MergeRequest request)
    {
        requireNonNull(request, "request is null");
        MergePlan plan;
        try {
            plan = MergePlan.create(request, typeOperators);
        }
        catch (RuntimeException e) {
            request.sources().forEach(MergeEngine::closeQuietly);
            throw e;
        }
        Admission admission = scheduler.arrive(request.priority());
        ParallelMerge merge = ParallelMerge.submit(
                plan,
                request.sources(),
                scheduler,
                stats,
                admission,
                request.parallelism().orElse(config.getParallelismSetting()),
                config.getBatchSize(),
                config.getQueueSize(),
                config.getTargetTaskTime().roundTo(NANOSECONDS),
                merges::remove);
        // a merge that ended before it was registered must not stay registered
        merges.add(merge);
        if (merge.isTerminated()) {
            merges.remove(merge);
        }
        return merge;
    }

    /**
     * The output types a request produces (the input types, or the sort keys and aggregations when combining).
     */
    public List<Type> outputTypes(MergeRequest request)
    {
        return MergePlan.create(request, typeOperators).outputTypes();
    }

    public MergeStats getStats()
    {
        return stats;
    }

    public MergeScheduler getScheduler()
    {
        return scheduler;
    }

    public MergeConfig getConfig()
    {
        return config;
    }

    /**
     * Merges not yet terminated (queued, running, or with tasks still exiting).
     */
    public int getActiveMerges()
    {
        return merges.size();
    }

    /**
     * Cancels every merge, lets their tasks exit and close their inputs (for up to 10 seconds), and stops the pool.
     */
    @Override
    public void close()
    {
        List<CompletableFuture<Void>> terminations = new ArrayList<>();
        for (ParallelMerge merge : merges) {
            merge.close();
            terminations.add(merge.terminationFuture());
        }
        try {
            CompletableFuture.allOf(terminations.toArray(CompletableFuture[]::new)).get(10, SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        catch (ExecutionException | TimeoutException e) {
            log.warn(e, "Merges did not all stop before the merge pool was shut down");
        }
        scheduler.close();
    }

    private static void closeQuietly(SortedPageSource source)
    {
        try {
            source.close();
        }
        catch (RuntimeException _) {
            // the request failed; the caller gets that failure
        }
    }
}
