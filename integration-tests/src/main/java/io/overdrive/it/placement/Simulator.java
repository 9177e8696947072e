package io.overdrive.it.placement;

import com.google.common.base.Ticker;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.longs.LongIterator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * A discrete-event simulation of split placement on a cluster: Poisson query arrivals over Zipf-popular tables, each
 * query reading all splits of a run of consecutive files of one table; workers with split slots, a FIFO queue and an LRU page cache (with Overdrive's admission for Overdrive); one worker joining
 * and one leaving mid-run. Single-threaded and deterministic: the same configuration, seed and policy give the same
 * result, and every policy gets the same arrivals.
 * <p>
 * A split's service time is {@code cpu + (hit ? local read : remote read)}, decided when it starts on its worker: a hit
 * if that worker's cache holds the split's data. When a miss finishes, the worker caches the data if the policy
 * allowed it for that placement. A worker that leaves loses its cache, and its running and queued splits are placed
 * again (the running ones start over); a worker that joins starts with an empty cache.
 */
final class Simulator
{
    /**
     * Overdrive with its defaults and its cache's admission; the same with the workers' reports of their loads, polled
     * every 500 ms ({@code overdrive-reported}: the load signal); with its defaults and a plain LRU cache, as the
     * references have ({@code overdrive-lru}: what placement alone does); and with the earlier {@code load-half-life} of
     * 10 s and admission ({@code overdrive-earlier}). Trino with its default of 2 preferred hosts, and with
     * {@code cache-preferred-hosts-count} 1, 4 and 8.
     */
    static final List<String> POLICIES = List.of("overdrive", "overdrive-reported", "overdrive-lru", "overdrive-earlier", "trino", "trino-hosts-1", "trino-hosts-4", "trino-hosts-8", "presto-modular", "presto-consistent", "none");
    private static final String TRINO_HOSTS = "trino-hosts-";
    /** {@code load-half-life} of {@code overdrive-earlier}, in seconds. */
    static final double EARLIER_HALF_LIFE_SECONDS = 10;

    private static final int ARRIVAL = 0;
    private static final int FINISH = 1;
    private static final int JOIN = 2;
    private static final int LEAVE = 3;
    private static final int END_OF_ARRIVALS = 4;
    private static final int POLL = 5;
    // split keys whose first choice the remap figures compare, at most (every key of a lake of up to 100,000 files): at
    // 1,000 workers about 400 of them move on a join or a leave, a standard deviation of 5% of that; a sample of 20,000
    // expects 20 to move, with a standard deviation of 22%
    private static final int MAX_REMAP_KEYS = 400_000;
    private static final long NANOS_PER_MILLI = 1_000_000;

    private final SimulationConfig config;
    private final Lake lake;
    private final Policy policy;
    private final int slots;
    private final long cpuNanos;
    private final long localReadNanos;
    private final long remoteReadNanos;
    private final double meanInterArrivalNanos;
    private final long windowStart;
    private final long arrivalEnd;
    private final SplittableRandom arrivals;

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long eventSequence;
    private long querySequence;
    private long splitSequence;

    private final List<SimWorker> live = new ArrayList<>();
    private final List<SimWorker> everyWorker = new ArrayList<>();
    private final SimWorker joiner;
    private final SimWorker leaver;

    // figures
    private final DoubleArrayList splitWaits = new DoubleArrayList();
    private final DoubleArrayList queryTimes = new DoubleArrayList();
    private final Map<Choice, Long> choices = new EnumMap<>(Choice.class);
    private long hits;
    private long misses;
    private long busyInWindow;
    private long splitsCreated;
    private long splitsCompleted;
    private long unfinished;
    private long abortedExecutions;
    private long lastFinish;
    private long backlogAtEnd = -1;
    private int maxAssigned;
    private double copiesPerCachedFile = Double.NaN;
    private long cachedFiles;
    private double remapJoin = Double.NaN;
    private double remapLeave = Double.NaN;
    private double placerRemapJoin = Double.NaN;
    private double placerRemapLeave = Double.NaN;
    private long checksum;

    private Simulator(SimulationConfig config, String policyName)
    {
        this.config = requireNonNull(config, "config is null");
        this.lake = Lake.of(config);
        this.slots = config.slotsPerWorker();
        this.cpuNanos = millisToNanos(config.cpuMillis());
        this.localReadNanos = millisToNanos(config.localReadMillis());
        this.remoteReadNanos = millisToNanos(config.remoteReadMillis());
        this.meanInterArrivalNanos = 1e9 / config.queriesPerSecond();
        this.windowStart = millisToNanos(config.warmupSeconds() * 1000);
        this.arrivalEnd = millisToNanos(config.arrivalSeconds() * 1000);
        this.arrivals = new SplittableRandom(config.seed());
        Ticker clock = new Ticker()
        {
            @Override
            public long read()
            {
                return now;
            }
        };
        this.policy = switch (policyName) {
            case "overdrive" -> new OverdrivePolicy(policyName, config, lake, clock, true, false);
            case "overdrive-reported" -> new OverdrivePolicy(policyName, config, lake, clock, true, true);
            case "overdrive-lru" -> new OverdrivePolicy(policyName, config, lake, clock, false, false);
            case "overdrive-earlier" -> new OverdrivePolicy(policyName, config.withOverdrive(config.preferredHostsCount(), config.loadBalanceEpsilon(), EARLIER_HALF_LIFE_SECONDS, config.granularity()), lake, clock, true, false);
            case "trino" -> new TrinoAffinityPolicy(policyName, lake, config.splitsBalancing(), config.trinoPreferredHosts());
            case String name when name.startsWith(TRINO_HOSTS) ->
                    new TrinoAffinityPolicy(policyName, lake, config.splitsBalancing(), Integer.parseInt(name.substring(TRINO_HOSTS.length())));
            case "presto-modular" -> new PrestoSoftAffinityPolicy(false, lake, config.seed() ^ 0x5eed);
            case "presto-consistent" -> new PrestoSoftAffinityPolicy(true, lake, config.seed() ^ 0x5eed);
            case "none" -> new NoPreferencePolicy(config.splitsBalancing(), config.seed() ^ 0x5eed);
            default -> throw new IllegalArgumentException("unknown policy " + policyName + ", expected one of " + POLICIES);
        };
        for (int number = 0; number <= config.workers(); number++) {
            everyWorker.add(new SimWorker("worker-%04d".formatted(number), number, config.cachedSplitsPerWorker(), policy.cachesWithAdmission()));
        }
        joiner = everyWorker.get(config.workers());
        leaver = everyWorker.get(new SplittableRandom(config.seed() ^ 0x1eaf).nextInt(config.workers()));
    }

    /** Runs the whole simulation of one policy (see {@link #POLICIES}). */
    static SimulationResult run(SimulationConfig config, String policyName)
    {
        return new Simulator(config, policyName).run();
    }

    private SimulationResult run()
    {
        for (SimWorker worker : everyWorker) {
            if (worker != joiner) {
                worker.alive = true;
                worker.aliveFromNanos = 0;
                live.add(worker);
            }
        }
        policy.setLive(live);
        schedule(nextInterArrival(), ARRIVAL, null);
        schedule(Math.round(arrivalEnd * config.joinFraction()), JOIN, null);
        schedule(Math.round(arrivalEnd * config.leaveFraction()), LEAVE, null);
        schedule(arrivalEnd, END_OF_ARRIVALS, null);
        if (policy.loadPollIntervalNanos() > 0) {
            schedule(0, POLL, null);
        }
        while (!events.isEmpty()) {
            Event event = events.poll();
            now = event.time;
            switch (event.kind) {
                case ARRIVAL -> arrive();
                case FINISH -> finish(event);
                case JOIN -> join();
                case LEAVE -> leave();
                case END_OF_ARRIVALS -> endOfArrivals();
                case POLL -> poll();
                default -> throw new IllegalStateException("unknown event " + event.kind);
            }
        }
        checkState(unfinished == 0 && splitsCompleted == splitsCreated, "%s splits of %s unfinished", unfinished, splitsCreated);
        if (policy instanceof OverdrivePolicy overdrive) {
            placerRemapLeave = overdrive.stats().getLastRemapFraction();
        }
        return result();
    }

    private void arrive()
    {
        int[] files = lake.nextQueryFiles(arrivals);
        int splitsPerFile = lake.splitsPerFile();
        Query query = new Query(querySequence++, now, now >= windowStart, files.length * splitsPerFile);
        splitsCreated += query.splits.length;
        unfinished += query.splits.length;
        for (int offset = 0; offset < files.length; offset++) {
            for (int index = 0; index < splitsPerFile; index++) {
                query.splits[offset * splitsPerFile + index] = new SplitTask(query, files[offset], index, lake.chunk(files[offset], index), splitSequence++);
            }
        }
        for (SplitTask split : query.splits) {
            submit(split);
        }
        long next = now + nextInterArrival();
        if (next < arrivalEnd) {
            schedule(next, ARRIVAL, null);
        }
    }

    private void submit(SplitTask split)
    {
        split.submitNanos = now;
        SimWorker worker = policy.place(split);
        if (worker != null) {
            assign(split, worker);
        }
    }

    private void assign(SplitTask split, SimWorker worker)
    {
        checkState(worker.alive, "%s placed on %s, which is not live", policy.name(), worker);
        split.worker = worker;
        split.query.assigned(worker);
        if (worker.running.size() < slots) {
            start(split);
        }
        else {
            worker.queue.addLast(split);
        }
        if (now >= windowStart && now < arrivalEnd) {
            maxAssigned = Math.max(maxAssigned, worker.assigned());
        }
    }

    private void start(SplitTask split)
    {
        SimWorker worker = split.worker;
        worker.running.add(split);
        split.hit = worker.readCached(split.chunk);
        split.startNanos = now;
        schedule(now + cpuNanos + (split.hit ? localReadNanos : remoteReadNanos), FINISH, split);
    }

    private void finish(Event event)
    {
        SplitTask split = event.split;
        if (event.generation != split.generation) {
            // its worker left: the split was placed again
            return;
        }
        checkState(!split.done, "split %s finished twice", split.sequence);
        SimWorker worker = split.worker;
        worker.running.remove(split);
        worker.completedSplits++;
        if (!split.hit && split.cacheable) {
            worker.cache(split.chunk);
        }
        if (split.startNanos >= windowStart && split.startNanos < arrivalEnd) {
            long duration = now - split.startNanos;
            worker.splitsRun++;
            worker.busyNanos += duration;
            busyInWindow += duration;
        }
        split.done = true;
        split.query.released(worker);
        splitsCompleted++;
        unfinished--;
        lastFinish = now;
        Query query = split.query;
        if (query.measured) {
            splitWaits.add((split.startNanos - split.submitNanos) / (double) NANOS_PER_MILLI);
            if (split.hit) {
                hits++;
            }
            else {
                misses++;
            }
            choices.merge(split.choice, 1L, Long::sum);
        }
        query.remainingSplits--;
        if (query.remainingSplits == 0) {
            query.placer = null;
            if (query.measured) {
                long nanos = now - query.arrivalNanos;
                queryTimes.add(nanos / (double) NANOS_PER_MILLI);
                checksum = checksum * 31 + nanos;
            }
        }
        while (worker.running.size() < slots && !worker.queue.isEmpty()) {
            start(worker.queue.pollFirst());
        }
        SplitTask waiting = policy.nextWaitingFor(worker);
        while (waiting != null) {
            assign(waiting, worker);
            waiting = policy.nextWaitingFor(worker);
        }
    }

    private void join()
    {
        String[] before = firstChoices();
        joiner.alive = true;
        joiner.aliveFromNanos = now;
        live.add(joiner);
        live.sort(Comparator.comparing(worker -> worker.nodeId));
        policy.setLive(live);
        remapJoin = movedFraction(before, firstChoices());
        for (SplitTask split : policy.takeWaiting()) {
            submit(split);
        }
    }

    private void leave()
    {
        if (policy instanceof OverdrivePolicy overdrive) {
            // the join's figure: the placer measured it at its first placement after the join
            placerRemapJoin = overdrive.stats().getLastRemapFraction();
        }
        String[] before = firstChoices();
        leaver.alive = false;
        leaver.aliveUntilNanos = now;
        live.remove(leaver);
        List<SplitTask> again = new ArrayList<>(leaver.running);
        abortedExecutions += leaver.running.size();
        again.addAll(leaver.queue);
        leaver.running.clear();
        leaver.queue.clear();
        leaver.loseCache();
        for (SplitTask split : again) {
            split.generation++;
            split.query.released(leaver);
            split.worker = null;
        }
        policy.setLive(live);
        remapLeave = movedFraction(before, firstChoices());
        again.addAll(policy.takeWaiting());
        for (SplitTask split : again) {
            submit(split);
        }
    }

    // the coordinator's load poll, and the next one while anything else is to come
    private void poll()
    {
        policy.pollLoads();
        if (!events.isEmpty()) {
            schedule(now + policy.loadPollIntervalNanos(), POLL, null);
        }
    }

    private void endOfArrivals()
    {
        backlogAtEnd = unfinished;
        int[] copies = new int[lake.files()];
        int[] seenOn = new int[lake.files()];
        Arrays.fill(seenOn, -1);
        for (SimWorker worker : live) {
            for (LongIterator chunks = worker.cachedChunks().iterator(); chunks.hasNext(); ) {
                int file = (int) (chunks.nextLong() / lake.splitsPerFile());
                if (seenOn[file] != worker.number) {
                    seenOn[file] = worker.number;
                    copies[file]++;
                }
            }
        }
        long total = 0;
        for (int count : copies) {
            if (count > 0) {
                cachedFiles++;
                total += count;
            }
        }
        copiesPerCachedFile = cachedFiles == 0 ? 0 : (double) total / cachedFiles;
    }

    // the first choice of a deterministic sample of split keys under the current membership, null without preferences
    private String[] firstChoices()
    {
        int splitsPerFile = lake.splitsPerFile();
        int sampledFiles = Math.min(lake.files(), Math.max(1, MAX_REMAP_KEYS / splitsPerFile));
        String[] choices = new String[sampledFiles * splitsPerFile];
        for (int sample = 0; sample < sampledFiles; sample++) {
            int file = (int) ((long) sample * lake.files() / sampledFiles);
            for (int index = 0; index < splitsPerFile; index++) {
                String choice = policy.firstChoice(file, index);
                if (choice == null) {
                    return null;
                }
                choices[sample * splitsPerFile + index] = choice;
            }
        }
        return choices;
    }

    private static double movedFraction(String[] before, String[] after)
    {
        if (before == null || after == null) {
            return Double.NaN;
        }
        int moved = 0;
        for (int index = 0; index < before.length; index++) {
            if (!before[index].equals(after[index])) {
                moved++;
            }
        }
        return (double) moved / before.length;
    }

    private SimulationResult result()
    {
        double[] waits = sorted(splitWaits);
        double[] times = sorted(queryTimes);
        double windowNanos = arrivalEnd - windowStart;
        long aliveNanos = 0;
        List<SimWorker> steady = new ArrayList<>();
        for (SimWorker worker : everyWorker) {
            long from = Math.max(windowStart, worker.aliveFromNanos);
            long until = Math.min(arrivalEnd, worker.aliveUntilNanos);
            if (worker == joiner && !worker.alive && worker.aliveUntilNanos == Long.MAX_VALUE) {
                continue;
            }
            aliveNanos += Math.max(0, until - from);
            if (worker.aliveFromNanos <= windowStart && worker.aliveUntilNanos >= arrivalEnd) {
                steady.add(worker);
            }
        }
        double maxSplits = steady.stream().mapToLong(worker -> worker.splitsRun).max().orElse(0);
        double averageSplits = steady.stream().mapToLong(worker -> worker.splitsRun).average().orElse(0);
        double maxBusy = steady.stream().mapToLong(worker -> worker.busyNanos).max().orElse(0);
        double averageBusy = steady.stream().mapToLong(worker -> worker.busyNanos).average().orElse(0);
        long placed = choices.values().stream().mapToLong(Long::longValue).sum();
        long placedByReportedLoads = 0;
        long placedByPlacedLoads = 0;
        if (policy instanceof OverdrivePolicy overdrive) {
            placedByReportedLoads = overdrive.stats().getPlacedByReportedLoads().getTotalCount();
            placedByPlacedLoads = overdrive.stats().getPlacedByPlacedLoads().getTotalCount();
        }
        return new SimulationResult(
                policy.name(),
                config.workers(),
                times.length,
                waits.length,
                hits + misses == 0 ? 0 : (double) hits / (hits + misses),
                percentile(waits, 0.50),
                percentile(waits, 0.95),
                percentile(waits, 0.99),
                percentile(times, 0.50),
                percentile(times, 0.95),
                percentile(times, 0.99),
                Arrays.stream(times).average().orElse(0),
                averageSplits == 0 ? 0 : maxSplits / averageSplits,
                averageBusy == 0 ? 0 : maxBusy / averageBusy,
                aliveNanos == 0 ? 0 : busyInWindow / ((double) aliveNanos * slots),
                maxBusy / (windowNanos * slots),
                copiesPerCachedFile,
                cachedFiles,
                remapJoin,
                remapLeave,
                1.0 / (config.workers() + 1),
                placerRemapJoin,
                placerRemapLeave,
                share(Choice.PREFERRED, placed),
                share(Choice.ALTERNATIVE, placed),
                share(Choice.FALLBACK, placed),
                backlogAtEnd,
                Math.max(0, lastFinish - arrivalEnd) / 1e9,
                splitsCreated,
                splitsCompleted,
                abortedExecutions,
                hits,
                misses,
                everyWorker.stream().mapToLong(worker -> worker.admissionRejections).sum(),
                placedByReportedLoads,
                placedByPlacedLoads,
                maxAssigned,
                checksum,
                SimulationResult.keptUpDrainSeconds(config.arrivalSeconds()));
    }

    private double share(Choice choice, long placed)
    {
        return placed == 0 ? 0 : choices.getOrDefault(choice, 0L) / (double) placed;
    }

    private static double[] sorted(DoubleArrayList values)
    {
        double[] array = values.toDoubleArray();
        Arrays.sort(array);
        return array;
    }

    // nearest rank
    static double percentile(double[] sorted, double fraction)
    {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    private long nextInterArrival()
    {
        return Math.max(1, Math.round(-Math.log(1 - arrivals.nextDouble()) * meanInterArrivalNanos));
    }

    private void schedule(long time, int kind, SplitTask split)
    {
        events.add(new Event(time, eventSequence++, kind, split, split == null ? 0 : split.generation));
    }

    private static long millisToNanos(double millis)
    {
        return Math.round(millis * NANOS_PER_MILLI);
    }

    private record Event(long time, long sequence, int kind, SplitTask split, int generation)
            implements Comparable<Event>
    {
        @Override
        public int compareTo(Event other)
        {
            int byTime = Long.compare(time, other.time);
            if (byTime != 0) {
                return byTime;
            }
            // a load poll sees the state just before the other events of its instant: a worker that joins at a poll
            // answers only at the next one, the longest the placer can go without its report
            int byPoll = Boolean.compare(other.kind == POLL, kind == POLL);
            return byPoll != 0 ? byPoll : Long.compare(sequence, other.sequence);
        }
    }
}
