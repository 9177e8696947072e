package io.overdrive.it.containers;

import io.overdrive.it.ClusterScenarios;
import io.overdrive.it.ScenarioCluster;
import io.overdrive.it.harness.S3Storage;
import io.overdrive.it.harness.TrinoProcessCluster;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * HDFS (a NameNode and a DataNode), an S3 server and Trino (a coordinator and workers) as containers of the images
 * {@code docker/images.sh} builds, started through Testcontainers. The daemon here only does host networking, so every
 * container listens on loopback ports of its own, picked free.
 */
public final class ContainerCluster
        implements ScenarioCluster
{
    // a limit, not a wait: the three Trino containers start at once, each slower than alone on a busy machine
    private static final Duration STARTUP = Duration.ofMinutes(5);
    private static final String CATALOG_DIRECTORY = "/opt/trino/etc/catalog/";
    private static final String CONFIG_FILE = "/opt/trino/etc/config.properties";

    private record Worker(int port, GenericContainer<?> container) {}

    private final List<GenericContainer<?>> containers;
    private final int coordinatorPort;
    private final List<Worker> workers;

    private ContainerCluster(List<GenericContainer<?>> containers, int coordinatorPort, List<Worker> workers)
    {
        this.containers = List.copyOf(containers);
        this.coordinatorPort = coordinatorPort;
        this.workers = List.copyOf(workers);
    }

    /**
     * Starts HDFS and the S3 server (the bucket {@link ClusterScenarios#S3_BUCKET}), then Trino with the catalogs
     * {@code catalogs} gives for them, the coordinator with {@code coordinatorProperties} in its
     * {@code config.properties} on top of those the image's entrypoint writes. The NameNode and the S3 server start
     * together, the DataNode once the NameNode is up; then the coordinator and the workers together.
     */
    public static ContainerCluster start(DockerImages.Tags images, int workers, Map<String, String> coordinatorProperties, Function<ClusterScenarios.Storage, Map<String, Map<String, String>>> catalogs)
    {
        requireNonNull(images, "images is null");
        List<GenericContainer<?>> started = new CopyOnWriteArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            int rpcPort = TrinoProcessCluster.freePort();
            URI nameNode = URI.create("hdfs://127.0.0.1:" + rpcPort);
            Map<String, String> hdfsPorts = Map.of(
                    "HDFS_NAMENODE_RPC_PORT", Integer.toString(rpcPort),
                    "HDFS_NAMENODE_HTTP_PORT", Integer.toString(TrinoProcessCluster.freePort()),
                    "HDFS_DATANODE_PORT", Integer.toString(TrinoProcessCluster.freePort()),
                    "HDFS_DATANODE_HTTP_PORT", Integer.toString(TrinoProcessCluster.freePort()),
                    "HDFS_DATANODE_IPC_PORT", Integer.toString(TrinoProcessCluster.freePort()));
            int s3Port = TrinoProcessCluster.freePort();
            awaitAll(List.of(
                    executor.submit(() -> {
                        start(started, container(images.hdfs(), "namenode")
                                .withEnv(hdfsPorts)
                                .withCommand("namenode")
                                .waitingFor(Wait.forLogMessage(".*Starting services required for active state.*\\n", 1).withStartupTimeout(STARTUP)));
                        start(started, container(images.hdfs(), "datanode")
                                .withEnv(hdfsPorts)
                                .withCommand("datanode")
                                .waitingFor(Wait.forLogMessage(".*Successfully sent block report.*\\n", 1).withStartupTimeout(STARTUP)));
                    }),
                    executor.submit(() -> start(started, container(images.s3(), "s3")
                            .withEnv(Map.of("S3_PORT", Integer.toString(s3Port), "S3_BUCKET", ClusterScenarios.S3_BUCKET))
                            .waitingFor(Wait.forLogMessage(".*S3 server listening.*\\n", 1).withStartupTimeout(STARTUP))))));
            // the keys the image's server signs requests with (docker/s3/entrypoint.sh)
            Map<String, String> s3 = S3Storage.catalogProperties(URI.create("http://127.0.0.1:" + s3Port), "overdrive", "overdrive-secret");

            Map<String, Map<String, String>> catalogFiles = catalogs.apply(new ClusterScenarios.Storage(nameNode, s3));
            int coordinatorPort = TrinoProcessCluster.freePort();
            GenericContainer<?> coordinator = trino(images, "coordinator", true, coordinatorPort, coordinatorPort, catalogFiles);
            if (!coordinatorProperties.isEmpty()) {
                coordinator.withCopyToContainer(Transferable.of(coordinatorConfig(coordinatorPort, coordinatorProperties)), CONFIG_FILE);
            }
            List<Worker> workerNodes = new ArrayList<>();
            List<Future<?>> trinoStarts = new ArrayList<>();
            trinoStarts.add(executor.submit(() -> start(started, coordinator)));
            for (int worker = 1; worker <= workers; worker++) {
                int port = TrinoProcessCluster.freePort();
                GenericContainer<?> container = trino(images, "worker-" + worker, false, port, coordinatorPort, catalogFiles);
                workerNodes.add(new Worker(port, container));
                trinoStarts.add(executor.submit(() -> start(started, container)));
            }
            awaitAll(trinoStarts);
            ContainerCluster cluster = new ContainerCluster(started, coordinatorPort, workerNodes);
            if (!cluster.awaitActiveNodes(workers + 1, STARTUP)) {
                throw new IllegalStateException("Trino did not see %s active nodes within %s".formatted(workers + 1, STARTUP));
            }
            return cluster;
        }
        catch (RuntimeException e) {
            List.copyOf(started).reversed().forEach(GenericContainer::stop);
            throw e;
        }
    }

    // the config.properties docker/trino/entrypoint.sh writes for a coordinator, with the given entries on top
    private static String coordinatorConfig(int port, Map<String, String> properties)
    {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("node.environment", "overdrive");
        config.put("node.id", "coordinator");
        config.put("node.internal-address", "127.0.0.1");
        config.put("coordinator", "true");
        config.put("http-server.http.port", Integer.toString(port));
        config.put("discovery.uri", "http://127.0.0.1:" + port);
        config.put("metrics.jmx-object-names", "io.overdrive.*:*");
        config.put("node-scheduler.include-coordinator", "false");
        config.putAll(properties);
        return config.entrySet().stream().map(entry -> entry.getKey() + "=" + entry.getValue()).collect(Collectors.joining("\n", "", "\n"));
    }

    // waits for every start, failing with the first failure (the others' added to it)
    private static void awaitAll(List<Future<?>> starts)
    {
        RuntimeException failure = null;
        for (Future<?> start : starts) {
            try {
                start.get();
            }
            catch (ExecutionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException runtime ? runtime : new RuntimeException(e.getCause());
                if (failure == null) {
                    failure = cause;
                }
                else {
                    failure.addSuppressed(cause);
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while starting the containers", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static GenericContainer<?> trino(DockerImages.Tags images, String nodeId, boolean coordinator, int port, int coordinatorPort, Map<String, Map<String, String>> catalogs)
    {
        GenericContainer<?> container = container(images.trino(), nodeId)
                .withEnv(Map.of(
                        "TRINO_NODE_ID", nodeId,
                        "TRINO_COORDINATOR", Boolean.toString(coordinator),
                        "TRINO_HTTP_PORT", Integer.toString(port),
                        "TRINO_DISCOVERY_URI", "http://127.0.0.1:" + coordinatorPort,
                        "TRINO_HEAP", "1G"))
                .waitingFor(Wait.forLogMessage(".*======== SERVER STARTED ========.*\\n", 1).withStartupTimeout(STARTUP));
        catalogs.forEach((name, properties) -> container.withCopyToContainer(
                Transferable.of(properties.entrySet().stream().map(entry -> entry.getKey() + "=" + entry.getValue()).collect(Collectors.joining("\n", "", "\n"))),
                CATALOG_DIRECTORY + name + ".properties"));
        return container;
    }

    @SuppressWarnings("resource") // stopped by close()
    private static GenericContainer<?> container(String image, String role)
    {
        return new GenericContainer<>(DockerImageName.parse(image))
                .withNetworkMode("host")
                .withLabel("io.overdrive.test", role);
    }

    private static void start(List<GenericContainer<?>> started, GenericContainer<?> container)
    {
        started.add(container);
        try {
            container.start();
        }
        catch (RuntimeException e) {
            String logs = container.getContainerId() == null ? "(not created)" : container.getLogs();
            throw new IllegalStateException("%s did not start; its log ends: %s".formatted(container.getDockerImageName(), tail(logs)), e);
        }
    }

    private static String tail(String log)
    {
        return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    }

    @Override
    public Connection connect()
            throws SQLException
    {
        return DriverManager.getConnection("jdbc:trino://127.0.0.1:" + coordinatorPort, "overdrive", null);
    }

    @Override
    public URI coordinator()
    {
        return URI.create("http://127.0.0.1:" + coordinatorPort);
    }

    @Override
    public List<URI> workers()
    {
        return workers.stream().map(worker -> URI.create("http://127.0.0.1:" + worker.port())).toList();
    }

    @Override
    public void killWorker(int index)
    {
        DockerClientFactory.instance().client().killContainerCmd(workers.get(index).container().getContainerId()).exec();
    }

    @Override
    public void restartWorkers()
    {
        // docker restart keeps each container's files, the page cache directory under /opt/trino among them; the
        // entrypoint execs the JVM, so the stop's SIGTERM runs Trino's shutdown hooks
        for (Worker worker : workers) {
            DockerClientFactory.instance().client().restartContainerCmd(worker.container().getContainerId()).exec();
        }
        // the restart returns once each JVM runs, long before it serves; and the coordinator lists a restarted worker
        // as active until its last announcement expires, so its count alone says nothing: wait for each worker's own
        // word that it has started, as the process clusters do
        long deadline = System.nanoTime() + STARTUP.toNanos();
        for (Worker worker : workers) {
            awaitStarted(worker, deadline);
        }
        if (!awaitActiveNodes(workers.size() + 1, STARTUP)) {
            throw new IllegalStateException("Trino did not see %s active nodes within %s of restarting its workers".formatted(workers.size() + 1, STARTUP));
        }
    }

    // until the worker's /v1/info says it is no longer starting (it answers 503 to everything else until then)
    private static void awaitStarted(Worker worker, long deadline)
    {
        URI uri = URI.create("http://127.0.0.1:" + worker.port());
        String last = "starting";
        try (HttpClient http = HttpClient.newHttpClient()) {
            while (System.nanoTime() < deadline) {
                try {
                    if (TrinoProcessCluster.hasStarted(http, uri)) {
                        return;
                    }
                }
                catch (IOException e) {
                    // not listening yet
                    last = e.toString();
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for a restarted worker", e);
                }
                sleepUninterruptibly(500, MILLISECONDS);
            }
        }
        throw new IllegalStateException("The worker at %s did not finish starting within %s of its restart (last: %s)".formatted(uri, STARTUP, last));
    }

    @Override
    public void close()
    {
        containers.reversed().forEach(GenericContainer::stop);
    }
}
