package io.overdrive.merge;

import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.overdrive.merge.pool.MergeTicket;
import io.overdrive.merge.pool.MergePool;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The node's merge engine: one shared merge pool with priority + FIFO ticket, and the merges running on it.
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
    private final MergePool pool;
    private final MergeStats stats;
    private final TypeOperators typeOperators;
    private final Set<ParallelMerge> merges = ConcurrentHashMap.newKeySet();
    // one thread for every merge's merge.timeout
    private final ScheduledExecutorService timeouts = Executors.newSingleThreadScheduledExecutor(daemonThreadsNamed("overdrive-merge-timeout"));
    private volatile boolean closed;

    public MergeEngine(MergeConfig config)
    {
        this(config, new MergeStats(), new TypeOperators());
    }

    public MergeEngine(MergeConfig config, MergeStats stats, TypeOperators typeOperators)
    {
        this.config = requireNonNull(config, "config is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.typeOperators = requireNonNull(typeOperators, "typeOperators is null");
        this.pool = new MergePool(config.getPoolSize(), config.isFifo());
    }

    /**
     * Starts a merge; it waits for ticket if the pool is busy. The engine owns the request's sources from now on
     * and closes them, also when this method throws because the request is invalid.
     */
    public MergedPageStream merge(MergeRequest request)
    {
        requireNonNull(request, "request is null");
        if (closed) {
            request.sources().forEach(MergeEngine::closeQuietly);
            throw new IllegalStateException("The merge engine is closed: the node is shutting down");
        }
        MergePlan plan;
        try {
            plan = MergePlan.create(request, typeOperators);
        }
        catch (RuntimeException e) {
            request.sources().forEach(MergeEngine::closeQuietly);
            throw e;
        }
        MergeTicket ticket = pool.arrive(request.priority());
        ParallelMerge merge = ParallelMerge.submit(
                plan,
                request.sources(),
                pool,
                stats,
                ticket,
                request.parallelism().orElse(config.getParallelism()),
                config.getBatchSize(),
                config.getQueueSize(),
                config.getTargetTaskTime().roundTo(NANOSECONDS),
                merges::remove);
        // a merge that ended before it was registered must not stay registered
        merges.add(merge);
        if (merge.isTerminated()) {
            merges.remove(merge);
        }
        Duration timeout = config.getTimeout();
        ScheduledFuture<?> timer = timeouts.schedule(() -> merge.timeOut(timeout), timeout.toMillis(), MILLISECONDS);
        merge.terminationFuture().whenComplete((_, _) -> timer.cancel(false));
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

    public MergePool getPool()
    {
        return pool;
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
        closed = true;
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
        // fails what is still queued (a merge that arrived during close) and closes its inputs
        pool.close();
        timeouts.shutdownNow();
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
