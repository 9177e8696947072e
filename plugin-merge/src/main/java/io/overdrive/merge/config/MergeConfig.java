package io.overdrive.merge.config;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.units.Duration;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Node-wide settings of the merge engine ({@code merge.*} properties).
 */
public class MergeConfig
{
    private int poolSize = Runtime.getRuntime().availableProcessors();
    private MergeParallelism parallelism = MergeParallelism.AUTO;
    private int batchSize = 4096;
    private Duration targetTaskTime = new Duration(10, MILLISECONDS);
    private int queueSize = 16;
    private boolean fifo = true;
    private Duration timeout = new Duration(1, HOURS);

    @Min(value = 1, message = "merge.pool-size must be at least 1")
    @Max(value = 4096, message = "merge.pool-size must be at most 4096")
    public int getPoolSize()
    {
        return poolSize;
    }

    @Config("merge.pool-size")
    @ConfigDescription("Threads of the node-wide merge fork-join pool; default: the number of processors")
    public MergeConfig setPoolSize(int poolSize)
    {
        this.poolSize = poolSize;
        return this;
    }

    // parsed once, here: text that is no parallelism becomes null, which the validation reports with the property's
    // name and what it accepts (Airlift would report a parse exception without either)
    @NotNull(message = "merge.parallelism must be 'auto' or a positive integer")
    public MergeParallelism getParallelism()
    {
        return parallelism;
    }

    @Config("merge.parallelism")
    @ConfigDescription("Layer-1 tasks per merge: 'auto' chooses from the pool's current utilisation, 1 merges serially in one task")
    public MergeConfig setParallelism(String parallelism)
    {
        this.parallelism = parallelism == null ? null : MergeParallelism.parse(parallelism).orElse(null);
        return this;
    }

    public MergeConfig setParallelism(MergeParallelism parallelism)
    {
        this.parallelism = parallelism;
        return this;
    }

    @Min(value = 1, message = "merge.batch-size must be at least 1 row")
    @Max(value = 1_048_576, message = "merge.batch-size must be at most 1048576 rows")
    public int getBatchSize()
    {
        return batchSize;
    }

    @Config("merge.batch-size")
    @ConfigDescription("Rows per batch (page) that merge tasks hand to the next layer and to the consumer")
    public MergeConfig setBatchSize(int batchSize)
    {
        this.batchSize = batchSize;
        return this;
    }

    @NotNull(message = "merge.target-task-time must be set, e.g. 10ms")
    @MinDuration(value = "100us", message = "merge.target-task-time must be at least 100us")
    @MaxDuration(value = "10s", message = "merge.target-task-time must be at most 10s")
    public Duration getTargetTaskTime()
    {
        return targetTaskTime;
    }

    @Config("merge.target-task-time")
    @ConfigDescription("How long one merge task runs before it yields the thread; the rows per run are tuned from measurements to approach it")
    public MergeConfig setTargetTaskTime(Duration targetTaskTime)
    {
        this.targetTaskTime = targetTaskTime;
        return this;
    }

    @Min(value = 1, message = "merge.queue-size must be at least 1 batch")
    @Max(value = 65_536, message = "merge.queue-size must be at most 65536 batches")
    public int getQueueSize()
    {
        return queueSize;
    }

    @Config("merge.queue-size")
    @ConfigDescription("Batches buffered between merge layers and for the consumer before the producer pauses (backpressure)")
    public MergeConfig setQueueSize(int queueSize)
    {
        this.queueSize = queueSize;
        return this;
    }

    public boolean isFifo()
    {
        return fifo;
    }

    @Config("merge.fifo")
    @ConfigDescription("Admit equal-priority merges to the pool in arrival order; false leaves their order unspecified")
    public MergeConfig setFifo(boolean fifo)
    {
        this.fifo = fifo;
        return this;
    }

    @NotNull(message = "merge.timeout must be set, e.g. 1h")
    @MinDuration(value = "1s", message = "merge.timeout must be at least 1s")
    public Duration getTimeout()
    {
        return timeout;
    }

    @Config("merge.timeout")
    @ConfigDescription("A merge still running after this long fails with EXCEEDED_TIME_LIMIT, and its tasks, buffers and inputs are released")
    public MergeConfig setTimeout(Duration timeout)
    {
        this.timeout = timeout;
        return this;
    }
}
