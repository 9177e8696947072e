package io.overdrive.cache.peer;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a worker tells the coordinator's placer about its work (the load signal).
 *
 * @param outstandingSplits leaf splits the worker's task executor has started and not finished (running, waiting for a
 * thread or blocked)
 * @param completedSplits splits the task executor has finished since the worker started
 */
public record WorkerLoadSample(long outstandingSplits, long completedSplits)
{
    public WorkerLoadSample
    {
        checkArgument(outstandingSplits >= 0, "outstandingSplits is negative: %s", outstandingSplits);
        checkArgument(completedSplits >= 0, "completedSplits is negative: %s", completedSplits);
    }

    /** The answer's body: the two counts, separated by a space. */
    String encode()
    {
        return outstandingSplits + " " + completedSplits;
    }

    /**
     * @throws IllegalArgumentException when {@code body} is not an answer
     */
    static WorkerLoadSample decode(String body)
    {
        String[] parts = body.strip().split(" ");
        checkArgument(parts.length == 2, "Not a load answer: %s", body);
        return new WorkerLoadSample(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
    }
}
