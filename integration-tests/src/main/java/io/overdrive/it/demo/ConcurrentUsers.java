package io.overdrive.it.demo;

import io.overdrive.it.harness.ResultRows;
import io.overdrive.it.harness.TrinoProcessCluster;

import io.trino.jdbc.QueryStats;
import io.trino.jdbc.TrinoResultSet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * Users running the query mix at the same time, each a thread with its own connection, in the order a {@link Mix}
 * gives. Every result is compared with the reference rows; a failed query is recorded, not thrown, so one bad answer
 * does not hide the others.
 */
final class ConcurrentUsers
{
    /** Which queries user {@code user} (of {@code users}) runs, in order, in pass {@code pass}. */
    interface Mix
    {
        List<DemoQueries.Query> queries(List<DemoQueries.Query> all, int user, int users, int pass);

        /**
         * Every query once, each user starting at a different one (user {@code u} of {@code n} starts {@code u/n} of the
         * way in), so that users overlap on tables but rarely run the same query together.
         */
        Mix STAGGERED = (all, user, users, pass) -> rotate(all, user * all.size() / users);

        /** Every query once, every user in the same order: all start the same query together. */
        Mix SAME_START = (all, user, users, pass) -> List.copyOf(all);

        /**
         * As many queries as the mix has, each drawn at random with Zipf weights (the query at rank k, in a fixed random
         * ranking, weighs 1/k^{@code exponent}); the same draws for every catalog, since the seed is the user's and pass's.
         */
        static Mix skewed(long seed, double exponent)
        {
            return (all, user, users, pass) -> {
                Random ranking = new Random(seed);
                List<DemoQueries.Query> ranked = new ArrayList<>(all);
                Collections.shuffle(ranked, ranking);
                double[] cumulative = new double[ranked.size()];
                double total = 0;
                for (int rank = 0; rank < ranked.size(); rank++) {
                    total += 1 / Math.pow(rank + 1, exponent);
                    cumulative[rank] = total;
                }
                Random draws = new Random(seed * 1_000_003 + user * 1_009L + pass);
                List<DemoQueries.Query> chosen = new ArrayList<>();
                for (int i = 0; i < all.size(); i++) {
                    double point = draws.nextDouble() * total;
                    int rank = 0;
                    while (cumulative[rank] < point) {
                        rank++;
                    }
                    chosen.add(ranked.get(rank));
                }
                return chosen;
            };
        }

        private static List<DemoQueries.Query> rotate(List<DemoQueries.Query> all, int offset)
        {
            List<DemoQueries.Query> rotated = new ArrayList<>(all.size());
            for (int i = 0; i < all.size(); i++) {
                rotated.add(all.get((offset + i) % all.size()));
            }
            return rotated;
        }
    }

    /**
     * One query run by one user: how long it took (as the client saw it), the CPU time Trino counted for it over every
     * node (-1 where the driver gave none, as for a failed query) and whether its rows were the reference's.
     */
    record QueryRun(int user, String query, long millis, long cpuMillis, boolean matches, String error)
    {
        QueryRun
        {
            requireNonNull(query, "query is null");
        }

        QueryRun(int user, String query, long millis, boolean matches, String error)
        {
            this(user, query, millis, -1, matches, error);
        }
    }

    private final TrinoProcessCluster trino;
    private final int users;
    private final List<DemoQueries.Query> queries;
    private final Map<String, List<List<Object>>> reference;

    ConcurrentUsers(TrinoProcessCluster trino, int users, List<DemoQueries.Query> queries, Map<String, List<List<Object>>> reference)
    {
        this.trino = requireNonNull(trino, "trino is null");
        this.users = users;
        this.queries = List.copyOf(queries);
        this.reference = Map.copyOf(reference);
    }

    /**
     * Every user runs the mix {@code passes} times over {@code schema} (for example {@code hive.lake}); returns the
     * runs once all are done, printing a progress line every few seconds under {@code label}.
     */
    List<QueryRun> run(String label, String schema, int passes, Mix mix)
            throws InterruptedException
    {
        return run(label, schema, passes, mix, 0);
    }

    /** The same, numbering the passes from {@code firstPass} for the {@link Mix} (a skewed mix draws anew per pass). */
    List<QueryRun> run(String label, String schema, int passes, Mix mix, int firstPass)
            throws InterruptedException
    {
        int total = 0;
        for (int user = 0; user < users; user++) {
            for (int pass = 0; pass < passes; pass++) {
                total += mix.queries(queries, user, users, firstPass + pass).size();
            }
        }
        AtomicInteger done = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(users, runnable -> {
            Thread thread = new Thread(runnable, "demo-user");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<List<QueryRun>>> futures = new ArrayList<>();
            for (int user = 0; user < users; user++) {
                int id = user;
                futures.add(executor.submit(() -> {
                    start.await();
                    return runUser(id, schema, passes, mix, firstPass, done);
                }));
            }
            long startNanos = System.nanoTime();
            start.countDown();
            List<QueryRun> runs = new ArrayList<>();
            for (Future<List<QueryRun>> future : futures) {
                while (true) {
                    try {
                        runs.addAll(future.get(5, TimeUnit.SECONDS));
                        break;
                    }
                    catch (TimeoutException e) {
                        System.out.printf("      %s: %d/%d queries done, %.0fs%n", label, done.get(), total, (System.nanoTime() - startNanos) / 1e9);
                    }
                    catch (ExecutionException e) {
                        throw new IllegalStateException("a demo user failed", e.getCause());
                    }
                }
            }
            return runs;
        }
        finally {
            executor.shutdownNow();
        }
    }

    private List<QueryRun> runUser(int user, String schema, int passes, Mix mix, int firstPass, AtomicInteger done)
            throws Exception
    {
        List<QueryRun> runs = new ArrayList<>();
        try (Connection connection = trino.connect("user-" + (user + 1))) {
            for (int pass = 0; pass < passes; pass++) {
                for (DemoQueries.Query query : mix.queries(queries, user, users, firstPass + pass)) {
                    long startNanos = System.nanoTime();
                    String error = null;
                    boolean matches;
                    long cpuMillis = -1;
                    String sql = query.sql(schema);
                    try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
                        matches = ResultRows.same(TrinoProcessCluster.rows(resultSet), reference.get(query.name()));
                        cpuMillis = cpuMillis(resultSet);
                    }
                    catch (SQLException | RuntimeException e) {
                        matches = false;
                        error = "Query failed: " + sql + ": " + e.getMessage();
                    }
                    runs.add(new QueryRun(user, query.name(), (System.nanoTime() - startNanos) / 1_000_000, cpuMillis, matches, error));
                    done.incrementAndGet();
                }
            }
        }
        return runs;
    }

    // the CPU time of the query's last stats, read once every row is: the driver's final response, the query finished
    private static long cpuMillis(ResultSet resultSet)
            throws SQLException
    {
        if (!resultSet.isWrapperFor(TrinoResultSet.class)) {
            return -1;
        }
        QueryStats stats = resultSet.unwrap(TrinoResultSet.class).getStats();
        return stats == null ? -1 : stats.getCpuTimeMillis();
    }
}
