package io.overdrive.it.placement;

import java.util.SplittableRandom;

import static io.overdrive.it.placement.TrinoNodeSelector.MIN_CANDIDATES;

/**
 * {@code NO_PREFERENCE}: the splits carry no addresses and the engine places them ({@link TrinoNodeSelector} over
 * {@code node-scheduler.min-candidates} = 10 random workers); every worker caches what it reads.
 */
final class NoPreferencePolicy
        extends Policy
{
    private final SplitsBalancing balancing;
    private final SplittableRandom random;
    private final SimWorker[] candidates = new SimWorker[MIN_CANDIDATES];

    NoPreferencePolicy(SplitsBalancing balancing, long seed)
    {
        super("none");
        this.balancing = balancing;
        this.random = new SplittableRandom(seed);
    }

    @Override
    protected void membershipChanged() {}

    @Override
    SimWorker place(SplitTask split)
    {
        int count = randomCandidates(random, MIN_CANDIDATES, candidates);
        SimWorker chosen = TrinoNodeSelector.choose(candidates, count, split.query, balancing);
        if (chosen == null) {
            // every candidate is full: Trino would hold the split on the coordinator until one has room, the model
            // queues it on the least loaded candidate
            chosen = leastAssigned(candidates, count, Integer.MAX_VALUE);
        }
        return split.placeOn(chosen, Choice.ANY, true);
    }

    @Override
    String firstChoice(int file, int split)
    {
        return null;
    }
}
