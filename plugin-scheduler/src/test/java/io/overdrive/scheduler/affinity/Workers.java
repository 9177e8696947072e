package io.overdrive.scheduler.affinity;

import com.google.common.base.Ticker;

import java.util.List;
import java.util.stream.IntStream;

import static com.google.common.collect.ImmutableList.toImmutableList;

/**
 * Test workers and keys with the shapes Trino gives them.
 */
final class Workers
{
    /**
     * A clock that never moves: loads placed under it never decay.
     */
    static final Ticker FROZEN = new Ticker()
    {
        @Override
        public long read()
        {
            return 0;
        }
    };

    private Workers() {}

    static Worker worker(int number)
    {
        return new Worker("worker-" + number, "10.0.0." + number + ":8080");
    }

    static List<Worker> workers(int count)
    {
        return IntStream.range(0, count)
                .mapToObj(Workers::worker)
                .collect(toImmutableList());
    }

    static String fileKey(int file)
    {
        return "hdfs://namenode:8020/warehouse/sales/day=" + (file % 97) + "/part-" + file + ".orc";
    }
}
