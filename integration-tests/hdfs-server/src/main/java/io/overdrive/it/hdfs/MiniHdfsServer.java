package io.overdrive.it.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeFaultInjector;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.hdfs.server.namenode.metrics.NameNodeMetrics;
import org.apache.hadoop.hdfs.util.Canceler;
import org.apache.hadoop.hdfs.util.DataTransferThrottler;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Runs a real HDFS (one NameNode, N DataNodes) on loopback with free ports until its standard input closes or says
 * {@code shutdown}. When the cluster is up it writes a properties file ({@code namenode.uri}, {@code datanodes},
 * {@code datanodes.http}, ...) atomically, which is how the parent process learns where HDFS listens.
 * <p>
 * A line {@code read-delay-ms <n>} on standard input makes every DataNode wait {@code n} milliseconds before serving
 * each block read request (0, the default, turns it off), to mimic the latency of remote object storage; the server
 * logs {@code read delay set to <n> ms} once it applies.
 * <p>
 * A line {@code slow-datanode <index> <fixed ms> <random ms>} makes one DataNode (0-based, in the order of
 * {@code datanodes}) slow: it waits a further {@code fixed} plus a uniformly random {@code 0..random} milliseconds
 * before each block read request, like a node with a bad disk or a congested link; {@code slow-datanode off} heals it.
 * A line {@code fail-reads on} makes every DataNode fail every block read request ({@code fail-reads off} undoes it).
 * <p>
 * A line {@code read-bandwidth <bytes per second>} caps what all DataNodes together send to readers, one limit shared
 * by every block read as on a data lake whose storage link is the bottleneck: concurrent readers compete for it
 * ({@code read-bandwidth off} lifts it). A line {@code bytes-read} answers {@code answer bytes-read = <n>}: the bytes
 * every DataNode has sent to readers since startup (block read packets, checksums included), counted as they are sent;
 * {@code read-requests} answers {@code answer read-requests = <n>}, the block read requests they have served;
 * {@code namenode-ops} answers {@code answer namenode-ops = <opens> <file infos> <listings>}: the NameNode's
 * {@code getBlockLocations} (a file opened for reading), {@code getFileInfo} and {@code getListing} calls since startup.
 * The server answers {@code applied <line>} to every command it has applied.
 * <p>
 * Usage: {@code MiniHdfsServer <base directory> <number of datanodes> <ready file>}
 */
public final class MiniHdfsServer
{
    private MiniHdfsServer() {}

    public static void main(String[] args)
            throws Exception
    {
        if (args.length != 3) {
            System.err.println("usage: MiniHdfsServer <base directory> <number of datanodes> <ready file>");
            System.exit(2);
        }
        Path baseDirectory = Path.of(args[0]).toAbsolutePath();
        int dataNodes = Integer.parseInt(args[1]);
        Path readyFile = Path.of(args[2]).toAbsolutePath();
        Files.createDirectories(baseDirectory);

        Configuration configuration = new HdfsConfiguration();
        configuration.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDirectory.toString());
        // tests and the demo write as the local user through Trino; permissions would only get in the way
        configuration.setBoolean(DFSConfigKeys.DFS_PERMISSIONS_ENABLED_KEY, false);
        configuration.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, Math.min(3, dataNodes));
        configuration.set(DFSConfigKeys.DFS_NAMENODE_RPC_BIND_HOST_KEY, "127.0.0.1");
        configuration.set(DFSConfigKeys.DFS_DATANODE_HOST_NAME_KEY, "127.0.0.1");
        // small heartbeats so that a stopped DataNode is noticed within seconds
        configuration.setLong(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);

        MiniDFSCluster cluster = new MiniDFSCluster.Builder(configuration, baseDirectory.toFile())
                .numDataNodes(dataNodes)
                .nameNodePort(0)
                .format(true)
                .build();
        cluster.waitActive();
        DataNodeFaultInjector.set(new ReadDelayInjector());
        // every DataNode's block reads for clients (and nothing else) go through its read throttler: one shared by all
        SharedReadBandwidth readBandwidth = new SharedReadBandwidth();
        for (DataNode dataNode : cluster.getDataNodes()) {
            setReadThrottler(dataNode, readBandwidth);
        }
        List<ThreadGroup> dataNodeThreadGroups = new ArrayList<>();
        for (DataNode dataNode : cluster.getDataNodes()) {
            dataNodeThreadGroups.add(threadGroupOf(dataNode));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown, "hdfs-shutdown"));

        Properties ready = new Properties();
        ready.setProperty("namenode.uri", "hdfs://127.0.0.1:" + cluster.getNameNodePort());
        ready.setProperty("namenode.http", "http://127.0.0.1:" + cluster.getNameNode().getHttpAddress().getPort());
        StringBuilder dataNodeAddresses = new StringBuilder();
        for (DataNode dataNode : cluster.getDataNodes()) {
            if (!dataNodeAddresses.isEmpty()) {
                dataNodeAddresses.append(',');
            }
            dataNodeAddresses.append("127.0.0.1:").append(dataNode.getXferPort());
        }
        ready.setProperty("datanodes", dataNodeAddresses.toString());
        // HTTP info ports: /jmx there shows each DataNode's metrics (DataNodeActivity-*: BytesRead, ...)
        StringBuilder dataNodeHttp = new StringBuilder();
        for (DataNode dataNode : cluster.getDataNodes()) {
            if (!dataNodeHttp.isEmpty()) {
                dataNodeHttp.append(',');
            }
            dataNodeHttp.append("http://127.0.0.1:").append(dataNode.getInfoPort());
        }
        ready.setProperty("datanodes.http", dataNodeHttp.toString());
        ready.setProperty("pid", Long.toString(ProcessHandle.current().pid()));
        Path temporary = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
        try (Writer writer = Files.newBufferedWriter(temporary, UTF_8)) {
            ready.store(writer, "written by MiniHdfsServer when HDFS is up");
        }
        Files.move(temporary, readyFile, ATOMIC_MOVE);
        System.out.println("HDFS ready at " + ready.getProperty("namenode.uri"));
        System.out.flush();

        waitForShutdown(dataNodeThreadGroups, readBandwidth, NameNode.getNameNodeMetrics());
        cluster.shutdown();
        System.exit(0);
    }

    // the parent holds our stdin: EOF means it is gone, so HDFS never outlives the tests or the demo
    private static void waitForShutdown(List<ThreadGroup> dataNodeThreadGroups, SharedReadBandwidth readBandwidth, NameNodeMetrics nameNodeMetrics)
            throws IOException, ReflectiveOperationException
    {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            // a command may end with " #<sequence number>", echoed back so that the parent can wait for this very one
            String command = line.replaceFirst("\\s+#\\d+$", "").strip();
            String[] words = command.split("\\s+");
            switch (words[0]) {
                case "shutdown" -> {
                    return;
                }
                case "read-delay-ms" -> {
                    ReadDelayInjector.delayMillis = Long.parseLong(words[1]);
                    System.out.println("read delay set to " + ReadDelayInjector.delayMillis + " ms");
                }
                case "slow-datanode" -> {
                    if (words[1].equals("off")) {
                        ReadDelayInjector.slow = null;
                    }
                    else {
                        ReadDelayInjector.slow = new SlowDataNode(dataNodeThreadGroups.get(Integer.parseInt(words[1])), Long.parseLong(words[2]), Long.parseLong(words[3]));
                    }
                }
                case "fail-reads" -> ReadDelayInjector.failReads = words[1].equals("on");
                case "read-bandwidth" -> readBandwidth.setBytesPerSecond(words[1].equals("off") ? 0 : Long.parseLong(words[1]));
                case "bytes-read" -> System.out.println("answer " + line.strip() + " = " + readBandwidth.bytesSent());
                case "read-requests" -> System.out.println("answer " + line.strip() + " = " + ReadDelayInjector.requests.get());
                case "namenode-ops" -> System.out.println("answer %s = %s %s %s".formatted(line.strip(),
                        counter(nameNodeMetrics, "getBlockLocations"), counter(nameNodeMetrics, "fileInfoOps"), counter(nameNodeMetrics, "getListingOps")));
                default -> {
                    System.out.println("unknown command: " + line);
                    System.out.flush();
                    continue;
                }
            }
            System.out.println("applied " + line.strip());
            System.out.flush();
        }
    }

    // each DataNode runs its block transfers (DataXceiver threads) in a thread group of its own: the hook below, shared
    // by every DataNode of this JVM, tells them apart by it
    private static ThreadGroup threadGroupOf(DataNode dataNode)
            throws ReflectiveOperationException
    {
        Field field = DataNode.class.getDeclaredField("threadGroup");
        field.setAccessible(true);
        return (ThreadGroup) field.get(dataNode);
    }

    // Installed as every DataNode's read throttler, which BlockSender calls after each packet it sends to a client
    // reading a block. One token bucket for all DataNodes: a packet takes its bytes from the bucket, and the sender
    // waits until the bucket has paid for them, so the DataNodes together send at most the limit.
    private static final class SharedReadBandwidth
            extends DataTransferThrottler
    {
        // what an idle bucket may send at once: a reader that starts alone gets the full rate from its first packet
        private static final long BURST_NANOS = MILLISECONDS.toNanos(20);

        private final AtomicLong bytesSent = new AtomicLong();
        private long bytesPerSecond;
        private long nextFreeNanos;

        SharedReadBandwidth()
        {
            // the superclass's own throttling is never used
            super(1);
        }

        synchronized void setBytesPerSecond(long bytesPerSecond)
        {
            if (bytesPerSecond < 0) {
                throw new IllegalArgumentException("read bandwidth must not be negative: " + bytesPerSecond);
            }
            this.bytesPerSecond = bytesPerSecond;
            nextFreeNanos = System.nanoTime();
            System.out.println("read bandwidth set to " + (bytesPerSecond == 0 ? "off" : bytesPerSecond + " bytes/s"));
        }

        long bytesSent()
        {
            return bytesSent.get();
        }

        @Override
        public void throttle(long numOfBytes)
        {
            throttle(numOfBytes, null);
        }

        @Override
        public void throttle(long numOfBytes, Canceler canceler)
        {
            bytesSent.addAndGet(numOfBytes);
            long waitNanos = reserve(numOfBytes);
            if (waitNanos > 0) {
                try {
                    NANOSECONDS.sleep(waitNanos);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        // the time this packet's bytes are paid for, as a wait from now (0: no limit)
        private synchronized long reserve(long bytes)
        {
            if (bytesPerSecond == 0) {
                return 0;
            }
            long now = System.nanoTime();
            nextFreeNanos = Math.max(nextFreeNanos, now - BURST_NANOS) + (long) (bytes * 1e9 / bytesPerSecond);
            return nextFreeNanos - now;
        }
    }

    // NameNodeMetrics keeps its op counters in package-private fields; the JMX view of them is refreshed only every 10 s
    private static long counter(NameNodeMetrics metrics, String name)
            throws ReflectiveOperationException
    {
        Field field = NameNodeMetrics.class.getDeclaredField(name);
        field.setAccessible(true);
        return ((MutableCounterLong) field.get(metrics)).value();
    }

    // DataXceiverServer, which DataXceiver asks for the read throttler of each client block read, is package-private
    private static void setReadThrottler(DataNode dataNode, DataTransferThrottler throttler)
            throws ReflectiveOperationException
    {
        Object server = dataNode.getXferServer();
        Method setter = server.getClass().getMethod("setReadThrottler", DataTransferThrottler.class);
        setter.setAccessible(true);
        setter.invoke(server, throttler);
    }

    private record SlowDataNode(ThreadGroup threadGroup, long fixedMillis, long randomMillis) {}

    // BlockSender calls this hook once per block read request (before it opens the replica), on every DataNode
    private static final class ReadDelayInjector
            extends DataNodeFaultInjector
    {
        static volatile long delayMillis;
        static volatile SlowDataNode slow;
        static volatile boolean failReads;
        static final AtomicLong requests = new AtomicLong();

        @Override
        public void throwTooManyOpenFiles()
                throws FileNotFoundException
        {
            requests.incrementAndGet();
            if (failReads) {
                throw new FileNotFoundException("read failure injected by MiniHdfsServer (fail-reads on)");
            }
            long delay = delayMillis;
            SlowDataNode slowDataNode = slow;
            if (slowDataNode != null && Thread.currentThread().getThreadGroup() == slowDataNode.threadGroup()) {
                delay += slowDataNode.fixedMillis() + ThreadLocalRandom.current().nextLong(slowDataNode.randomMillis() + 1);
            }
            if (delay > 0) {
                try {
                    Thread.sleep(delay);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
