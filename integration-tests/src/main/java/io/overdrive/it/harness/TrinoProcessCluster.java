package io.overdrive.it.harness;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A Trino cluster of separate JVMs on loopback: one coordinator and N workers, each started from the assembled
 * {@code trino-server} class path with its own {@code etc/} and a {@code plugin/} folder holding the stock plugins and
 * the Overdrive plugins unzipped from their packaged zips, exactly as a user installs them.
 */
public final class TrinoProcessCluster
        implements AutoCloseable
{
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(5);
    private static final int FIRST_PORT = 20_000;
    private static final int LAST_PORT = 32_000;
    private static final Set<Integer> HANDED_OUT_PORTS = ConcurrentHashMap.newKeySet();
    private static final int RESERVED_ABOVE = 3;

    private final List<TrinoNode> nodes;
    private final Launcher launcher;
    // workers prepared (home, ports, files) but not running: they join on joinWorker()
    private final List<StandbyWorker> standby;

    private TrinoProcessCluster(List<TrinoNode> nodes, List<StandbyWorker> standby, Launcher launcher)
    {
        this.nodes = new CopyOnWriteArrayList<>(nodes);
        this.standby = new CopyOnWriteArrayList<>(standby);
        this.launcher = requireNonNull(launcher, "launcher is null");
    }

    /** A worker whose home and ports are ready and which is not running. */
    private record StandbyWorker(String name, int httpPort, int jmxPort, Path home) {}

    /** Starts a node's JVM over its home. */
    @FunctionalInterface
    private interface Launcher
    {
        ChildProcess launch(String name, Path home, int jmxPort);
    }

    public record TrinoNode(String name, boolean coordinator, int httpPort, int jmxPort, Path home, ChildProcess process)
    {
        public TrinoNode
        {
            requireNonNull(name, "name is null");
            requireNonNull(home, "home is null");
            requireNonNull(process, "process is null");
        }

        public URI httpUri()
        {
            return URI.create("http://127.0.0.1:" + httpPort);
        }
    }

    public static Builder builder(ProjectLayout layout, Path workDirectory)
    {
        return new Builder(layout, workDirectory);
    }

    public static final class Builder
    {
        private final ProjectLayout layout;
        private final Path workDirectory;
        private int workers = 2;
        private int standbyWorkers;
        private String heapSize = "1200m";
        private int coordinatorPort;
        private final Map<String, Map<String, String>> catalogs = new LinkedHashMap<>();
        // node name -> catalog -> properties replacing the catalog's on that node alone
        private final Map<String, Map<String, Map<String, String>>> nodeCatalogOverrides = new LinkedHashMap<>();
        private final Map<String, String> coordinatorProperties = new LinkedHashMap<>();
        private final Map<String, String> workerProperties = new LinkedHashMap<>();
        private final Map<String, String> exchangeManagerProperties = new LinkedHashMap<>();
        private final List<String> nodeDirectories = new ArrayList<>();
        private boolean icebergPlugin;

        private Builder(ProjectLayout layout, Path workDirectory)
        {
            this.layout = requireNonNull(layout, "layout is null");
            this.workDirectory = requireNonNull(workDirectory, "workDirectory is null").toAbsolutePath();
        }

        public Builder workers(int workers)
        {
            this.workers = workers;
            return this;
        }

        /**
         * Workers prepared like the others but not started: each joins the running cluster on
         * {@link TrinoProcessCluster#joinWorker()} (a scale-out).
         */
        public Builder standbyWorkers(int standbyWorkers)
        {
            this.standbyWorkers = standbyWorkers;
            return this;
        }

        public Builder heapSize(String heapSize)
        {
            this.heapSize = requireNonNull(heapSize, "heapSize is null");
            return this;
        }

        public Builder catalog(String name, String connector, Map<String, String> properties)
        {
            Map<String, String> all = new LinkedHashMap<>();
            all.put("connector.name", connector);
            all.putAll(properties);
            catalogs.put(name, all);
            return this;
        }

        /**
         * Properties that replace (or add to) catalog {@code name}'s on one node alone ({@code worker-1}, ...): a node
         * whose catalog file differs from the others', as after a partial roll-out.
         */
        public Builder nodeCatalogProperties(String node, String name, Map<String, String> properties)
        {
            if (!catalogs.containsKey(name)) {
                throw new IllegalArgumentException("no catalog " + name + " to override on " + node);
            }
            nodeCatalogOverrides.computeIfAbsent(node, _ -> new LinkedHashMap<>())
                    .computeIfAbsent(name, _ -> new LinkedHashMap<>())
                    .putAll(properties);
            return this;
        }

        /** The coordinator's HTTP port, for catalogs that must name it before the cluster starts; a free one by default. */
        public Builder coordinatorPort(int port)
        {
            this.coordinatorPort = port;
            return this;
        }

        /**
         * A directory created in every node's home before it starts, for a catalog property that names a directory
         * relative to the server's working directory and wants it to exist (Trino's {@code fs.cache.directories}).
         */
        public Builder nodeDirectory(String relativePath)
        {
            nodeDirectories.add(requireNonNull(relativePath, "relativePath is null"));
            return this;
        }

        public Builder coordinatorProperty(String key, String value)
        {
            coordinatorProperties.put(key, value);
            return this;
        }

        public Builder workerProperty(String key, String value)
        {
            workerProperties.put(key, value);
            return this;
        }

        /**
         * Every node's {@code etc/exchange-manager.properties} (with {@code exchange-manager.name}), which
         * {@code retry-policy=TASK} needs, and Trino's filesystem exchange manager plugin in {@code plugin/}; none by
         * default.
         */
        public Builder exchangeManager(Map<String, String> properties)
        {
            exchangeManagerProperties.clear();
            exchangeManagerProperties.putAll(properties);
            return this;
        }

        /**
         * Whether every node's {@code plugin/} also holds Trino's stock Iceberg plugin, for catalogs with
         * {@code connector.name=iceberg}; not by default, since loading its 450 MB of jars adds to every node's start.
         */
        public Builder icebergPlugin(boolean icebergPlugin)
        {
            this.icebergPlugin = icebergPlugin;
            return this;
        }

        public TrinoProcessCluster start()
        {
            Path plugins = installPlugins();
            int coordinatorPort = this.coordinatorPort == 0 ? freePort() : this.coordinatorPort;
            URI discovery = URI.create("http://127.0.0.1:" + coordinatorPort);
            List<TrinoNode> nodes = new ArrayList<>();
            try {
                nodes.add(startNode("coordinator", true, coordinatorPort, discovery, plugins));
                for (int i = 1; i <= workers; i++) {
                    nodes.add(startNode("worker-" + i, false, freePort(), discovery, plugins));
                }
                List<StandbyWorker> standby = new ArrayList<>();
                for (int i = workers + 1; i <= workers + standbyWorkers; i++) {
                    String name = "worker-" + i;
                    int port = freePort();
                    standby.add(new StandbyWorker(name, port, freePort(), prepareNode(name, false, port, discovery, plugins)));
                }
                TrinoProcessCluster cluster = new TrinoProcessCluster(nodes, standby, this::launch);
                cluster.awaitActiveNodes(nodes.size(), STARTUP_TIMEOUT);
                return cluster;
            }
            catch (RuntimeException e) {
                nodes.forEach(node -> node.process().close());
                throw e;
            }
        }

        // every node shares one plugin/ folder: the stock plugins (and the exchange manager's and Iceberg's, when asked
        // for) and the unzipped Overdrive zips
        private Path installPlugins()
        {
            Path plugins = workDirectory.resolve("plugin");
            try {
                deleteRecursively(plugins);
                Files.createDirectories(plugins);
                try (var stock = Files.list(layout.stockPluginDirectory())) {
                    for (Path plugin : stock.toList()) {
                        Files.createSymbolicLink(plugins.resolve(plugin.getFileName()), plugin);
                    }
                }
                if (!exchangeManagerProperties.isEmpty()) {
                    Path exchange = layout.exchangePluginDirectory();
                    Files.createSymbolicLink(plugins.resolve(exchange.getFileName()), exchange);
                }
                if (icebergPlugin) {
                    Path iceberg = layout.icebergPluginDirectory();
                    Files.createSymbolicLink(plugins.resolve(iceberg.getFileName()), iceberg);
                }
                for (Path zip : layout.overdrivePluginZips()) {
                    unzip(zip, plugins);
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return plugins;
        }

        private TrinoNode startNode(String name, boolean coordinator, int port, URI discovery, Path plugins)
        {
            Path home = prepareNode(name, coordinator, port, discovery, plugins);
            int jmxPort = freePort();
            return new TrinoNode(name, coordinator, port, jmxPort, home, launch(name, home, jmxPort));
        }

        // the node's home: etc/ with its configuration and catalogs, the shared plugin/ folder, its directories
        private Path prepareNode(String name, boolean coordinator, int port, URI discovery, Path plugins)
        {
            Path home = workDirectory.resolve(name);
            try {
                deleteRecursively(home);
                Files.createDirectories(home.resolve("etc/catalog"));
                Files.createSymbolicLink(home.resolve("plugin"), plugins);
                for (String directory : nodeDirectories) {
                    Files.createDirectories(home.resolve(directory));
                }

                Map<String, String> config = new LinkedHashMap<>();
                config.put("node.environment", "overdrive");
                config.put("node.id", name);
                // all traffic between the nodes stays on loopback
                config.put("node.internal-address", "127.0.0.1");
                config.put("node.bind-ip", "127.0.0.1");
                config.put("coordinator", Boolean.toString(coordinator));
                config.put("http-server.http.port", Integer.toString(port));
                config.put("discovery.uri", discovery.toString());
                config.put("query.max-memory", "1GB");
                config.put("query.max-memory-per-node", "400MB");
                if (coordinator) {
                    config.put("node-scheduler.include-coordinator", "false");
                    config.putAll(coordinatorProperties);
                }
                else {
                    config.putAll(workerProperties);
                }
                writeProperties(home.resolve("etc/config.properties"), config);
                writeProperties(home.resolve("etc/log.properties"), Map.of("io.trino", "INFO", "io.overdrive", "INFO"));
                if (!exchangeManagerProperties.isEmpty()) {
                    writeProperties(home.resolve("etc/exchange-manager.properties"), exchangeManagerProperties);
                }
                for (Map.Entry<String, Map<String, String>> catalog : catalogs.entrySet()) {
                    Map<String, String> properties = new LinkedHashMap<>(catalog.getValue());
                    properties.putAll(nodeCatalogOverrides.getOrDefault(name, Map.of()).getOrDefault(catalog.getKey(), Map.of()));
                    writeProperties(home.resolve("etc/catalog/" + catalog.getKey() + ".properties"), properties);
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return home;
        }

        // the node's JVM over its etc/ in home; a restarted node gets the same ports and files
        private ChildProcess launch(String name, Path home, int jmxPort)
        {
            List<String> jvm = List.of(
                    "-Xmx" + heapSize,
                    // JMX on loopback only, for reading Overdrive's MBeans like an operator's monitoring would
                    "-Dcom.sun.management.jmxremote.port=" + jmxPort,
                    "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                    "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                    "-Djava.rmi.server.hostname=127.0.0.1",
                    "-Dcom.sun.management.jmxremote.authenticate=false",
                    "-Dcom.sun.management.jmxremote.ssl=false",
                    "-XX:+UseG1GC",
                    "-XX:G1HeapRegionSize=32M",
                    "-XX:+ExitOnOutOfMemoryError",
                    "-XX:+ExplicitGCInvokesConcurrent",
                    "-Djdk.attach.allowAttachSelf=true",
                    "-Dfile.encoding=UTF-8",
                    "-Duser.timezone=UTC",
                    "--add-modules=jdk.incubator.vector",
                    "--enable-native-access=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow",
                    "-Dconfig=etc/config.properties",
                    "-Dlog.levels-file=etc/log.properties",
                    "-Doverdrive.exit-on-stdin-eof=true");
            return ChildProcess.startJava(name, home, jvm, layout.trinoServerClasspath(), "io.overdrive.it.server.TrinoServerMain", List.of());
        }
    }

    public List<TrinoNode> nodes()
    {
        return List.copyOf(nodes);
    }

    /**
     * Stops every worker (as {@link ChildProcess#close()} stops a node: its shutdown hooks run), runs {@code whileDown}
     * for each stopped worker (to delete or change files in its home, e.g. a cache directory or
     * {@code etc/catalog/*.properties}), then starts them again with the same node ids, ports and files, and waits until
     * every node has started and the coordinator counts the whole cluster as active again.
     */
    public void restartWorkers(Consumer<TrinoNode> whileDown)
    {
        requireNonNull(whileDown, "whileDown is null");
        List<TrinoNode> stopped = workers();
        for (TrinoNode worker : stopped.reversed()) {
            worker.process().close();
        }
        for (TrinoNode worker : stopped) {
            whileDown.accept(worker);
        }
        for (TrinoNode worker : stopped) {
            nodes.set(nodes.indexOf(worker), new TrinoNode(worker.name(), false, worker.httpPort(), worker.jmxPort(), worker.home(), launcher.launch(worker.name(), worker.home(), worker.jmxPort())));
        }
        awaitActiveNodes(nodes.size(), STARTUP_TIMEOUT);
    }

    /**
     * Starts the next standby worker (see {@link Builder#standbyWorkers}) and waits until the coordinator counts it
     * active: a worker joins the running cluster. Its files are as it left them ({@link #removeWorker}).
     *
     * @throws IllegalStateException when no standby worker is left
     */
    public TrinoNode joinWorker()
    {
        if (standby.isEmpty()) {
            throw new IllegalStateException("no standby worker left: build the cluster with standbyWorkers(n)");
        }
        StandbyWorker next = standby.removeFirst();
        nodes.add(new TrinoNode(next.name(), false, next.httpPort(), next.jmxPort(), next.home(), launcher.launch(next.name(), next.home(), next.jmxPort())));
        awaitActiveNodes(nodes.size(), STARTUP_TIMEOUT);
        return nodes.getLast();
    }

    /**
     * Stops {@code worker} (its shutdown hooks run), runs {@code whileDown} on it (to delete its cache directories), and
     * waits until the coordinator no longer counts it active; it becomes a standby worker that {@link #joinWorker} starts
     * again with the same node id, ports and files.
     */
    public void removeWorker(TrinoNode worker, Consumer<TrinoNode> whileDown)
    {
        requireNonNull(whileDown, "whileDown is null");
        if (worker.coordinator() || !nodes.remove(worker)) {
            throw new IllegalArgumentException("not a running worker of this cluster: " + worker.name());
        }
        worker.process().close();
        whileDown.accept(worker);
        standby.addFirst(new StandbyWorker(worker.name(), worker.httpPort(), worker.jmxPort(), worker.home()));
        // until the coordinator notices, a query that it schedules on the stopped worker fails (the node count's too)
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        long active = -1;
        while (active != nodes.size()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the coordinator still counts %s active nodes %s after %s stopped, not %s".formatted(active, STARTUP_TIMEOUT, worker.name(), nodes.size()));
            }
            sleepUninterruptibly(500, MILLISECONDS);
            try {
                active = activeNodes();
            }
            catch (RuntimeException e) {
                active = -1;
            }
        }
    }

    /** Rewrites one catalog's properties file in {@code node}'s home; the node reads it when it next starts. */
    public static void writeCatalog(TrinoNode node, String catalog, String connector, Map<String, String> properties)
    {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("connector.name", connector);
        all.putAll(properties);
        try {
            writeProperties(node.home().resolve("etc/catalog/" + catalog + ".properties"), all);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public TrinoNode coordinator()
    {
        return nodes.getFirst();
    }

    public List<TrinoNode> workers()
    {
        return List.copyOf(nodes.subList(1, nodes.size()));
    }

    /** The running worker named {@code name} ({@code worker-1}, ...). */
    public TrinoNode worker(String name)
    {
        return workers().stream()
                .filter(worker -> worker.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no worker " + name));
    }

    public String jdbcUrl()
    {
        return "jdbc:trino://127.0.0.1:" + coordinator().httpPort();
    }

    public Connection connect()
            throws SQLException
    {
        return connect("overdrive");
    }

    /** A JDBC connection to the coordinator as {@code user}. */
    public Connection connect(String user)
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        return DriverManager.getConnection(jdbcUrl(), properties);
    }

    /** Runs a query and returns its rows as lists of column values (JDBC objects). */
    public List<List<Object>> query(String sql)
    {
        try (Connection connection = connect()) {
            return query(connection, sql);
        }
        catch (SQLException e) {
            throw new RuntimeException("Query failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    /** Runs a query on an open connection and returns its rows as lists of column values (JDBC objects). */
    public static List<List<Object>> query(Connection connection, String sql)
    {
        try (Statement statement = connection.createStatement(); ResultSet resultSet = statement.executeQuery(sql)) {
            return rows(resultSet);
        }
        catch (SQLException e) {
            throw new RuntimeException("Query failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    /** A result's rows as lists of column values (JDBC objects). */
    public static List<List<Object>> rows(ResultSet resultSet)
            throws SQLException
    {
        int columns = resultSet.getMetaData().getColumnCount();
        List<List<Object>> rows = new ArrayList<>();
        while (resultSet.next()) {
            List<Object> row = new ArrayList<>(columns);
            for (int column = 1; column <= columns; column++) {
                row.add(resultSet.getObject(column));
            }
            rows.add(row);
        }
        return rows;
    }

    public long execute(String sql)
    {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            if (statement.execute(sql)) {
                try (ResultSet resultSet = statement.getResultSet()) {
                    return resultSet.next() ? resultSet.getLong(1) : 0;
                }
            }
            return statement.getLargeUpdateCount();
        }
        catch (SQLException e) {
            throw new RuntimeException("Statement failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    /** Waits until the coordinator sees {@code count} active nodes (itself included), failing with the nodes' logs. */
    public void awaitActiveNodes(int count, Duration timeout)
    {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            for (TrinoNode node : nodes) {
                if (!node.process().isAlive()) {
                    throw new IllegalStateException("Trino %s exited during startup; log %s:\n%s".formatted(node.name(), node.process().logFile(), node.process().logTail(60)));
                }
            }
            try {
                if (allStarted(http) && activeNodes() >= count) {
                    return;
                }
            }
            catch (Exception e) {
                last = e;
            }
            sleepUninterruptibly(500, MILLISECONDS);
        }
        StringBuilder logs = new StringBuilder();
        for (TrinoNode node : nodes) {
            logs.append("\n--- ").append(node.name()).append(" (").append(node.process().logFile()).append(")\n").append(node.process().logTail(20));
        }
        throw new IllegalStateException("Trino cluster did not reach %s active nodes within %s (last error: %s)%s".formatted(count, timeout, last, logs));
    }

    private boolean allStarted(HttpClient http)
            throws IOException, InterruptedException
    {
        for (TrinoNode node : nodes) {
            if (!node.process().isAlive()) {
                continue;
            }
            if (!hasStarted(http, node.httpUri())) {
                return false;
            }
        }
        return true;
    }

    /** Whether the Trino server at {@code httpUri} says it has started: its {@code /v1/info} answers {@code "starting": false}. */
    public static boolean hasStarted(HttpClient http, URI httpUri)
            throws IOException, InterruptedException
    {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(httpUri.resolve("/v1/info")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 && response.body().replace(" ", "").contains("\"starting\":false");
    }

    /** Sums an attribute of the MBeans matching {@code pattern} over every node, coordinator included (JMX on loopback). */
    public long sumOverNodes(String pattern, String attribute)
    {
        return sum(nodes, pattern, attribute);
    }

    /** Sums an attribute of the MBeans matching {@code pattern} over the workers (over JMX on loopback). */
    public long sumOverWorkers(String pattern, String attribute)
    {
        return sum(workers(), pattern, attribute);
    }

    private static long sum(List<TrinoNode> nodes, String pattern, String attribute)
    {
        long total = 0;
        for (TrinoNode node : nodes) {
            total += JmxAttributes.sum(node.jmxPort(), pattern, attribute);
        }
        return total;
    }

    public long activeNodes()
    {
        return ((Number) query("SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'").getFirst().getFirst()).longValue();
    }

    @Override
    public void close()
    {
        // workers first, so the coordinator does not reschedule onto nodes that are going away
        for (int i = nodes.size() - 1; i >= 0; i--) {
            nodes.get(i).process().close();
        }
    }

    // Below Linux's ephemeral range (32768-60999), from which every outgoing connection takes its local port: a free
    // port picked there can be taken by some connection before the node binds it ("Address already in use"). Never
    // the same port twice in this JVM, since a node binds its ports only seconds after they are picked.
    // The RESERVED_ABOVE ports above each one are free too and never handed out: a worker's Overdrive peer service
    // listens there (cache.peer.port-offset, 1 by default; a test may put a catalog's services at 2 or 3, or a proxy
    // in front of one).
    public static int freePort()
    {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST_PORT, LAST_PORT - RESERVED_ABOVE);
            if (!reserve(port)) {
                continue;
            }
            List<ServerSocket> sockets = new ArrayList<>();
            try {
                for (int offset = 0; offset <= RESERVED_ABOVE; offset++) {
                    sockets.add(new ServerSocket(port + offset, 1, InetAddress.getLoopbackAddress()));
                }
                return port;
            }
            catch (IOException e) {
                // taken: try another
            }
            finally {
                sockets.forEach(TrinoProcessCluster::closeQuietly);
            }
        }
        throw new IllegalStateException("No free port between %s and %s".formatted(FIRST_PORT, LAST_PORT));
    }

    // the port and the ones above it, unless one of them was handed out or reserved already
    private static synchronized boolean reserve(int port)
    {
        for (int offset = 0; offset <= RESERVED_ABOVE; offset++) {
            if (HANDED_OUT_PORTS.contains(port + offset)) {
                return false;
            }
        }
        for (int offset = 0; offset <= RESERVED_ABOVE; offset++) {
            HANDED_OUT_PORTS.add(port + offset);
        }
        return true;
    }

    private static void closeQuietly(ServerSocket socket)
    {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // a probe
        }
    }

    private static void writeProperties(Path file, Map<String, String> properties)
            throws IOException
    {
        try (Writer writer = Files.newBufferedWriter(file, UTF_8)) {
            for (Map.Entry<String, String> entry : properties.entrySet()) {
                writer.write(entry.getKey() + "=" + entry.getValue() + "\n");
            }
        }
    }

    static void unzip(Path zip, Path directory)
            throws IOException
    {
        Path root = directory.toAbsolutePath().normalize();
        try (InputStream file = Files.newInputStream(zip); ZipInputStream input = new ZipInputStream(file)) {
            ZipEntry entry;
            while ((entry = input.getNextEntry()) != null) {
                Path target = root.resolve(entry.getName()).normalize();
                if (!target.startsWith(root)) {
                    throw new IOException("Zip entry outside the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                }
                else {
                    Files.createDirectories(target.getParent());
                    Files.copy(input, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** Deletes a file or directory tree if present, without following symbolic links (node homes link to shared plugin folders). */
    public static void deleteRecursively(Path path)
            throws IOException
    {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            MoreFiles.deleteRecursively(path, RecursiveDeleteOption.ALLOW_INSECURE);
        }
    }
}
