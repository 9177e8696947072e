package io.overdrive.it.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * A TCP proxy on loopback in front of a real server, the fault injected at the boundary: a slow replica, a shard down.
 * It forwards bytes unchanged both ways (so HTTP/1.1 keep-alive works, and the Host header the client sends names the
 * proxy: Trino's {@code nextUri} then points back at the proxy), and delays the server-to-client direction by
 * {@link #setDelay}: every chunk read from the server is written to the client that long after it arrived (latency,
 * not a bandwidth limit: chunks in flight keep their order and do not add up their delays). Zero passes through.
 * {@link #setRefusing refusing} drops the open connections and resets every new one at once, as a server that is down.
 * {@link #setDamage Damage} stands for a server that dies while it answers.
 * One virtual thread per direction of every connection.
 */
public final class SlowProxy
        implements AutoCloseable
{
    private static final int BUFFER_SIZE = 64 * 1024;

    private final InetSocketAddress target;
    private final ServerSocket serverSocket;
    private final Thread acceptor;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong acceptedConnections = new AtomicLong();
    private final AtomicLong refusedConnections = new AtomicLong();
    private volatile long delayNanos;
    private volatile boolean refusing;
    private volatile Damage damage = Damage.NONE;
    private final AtomicLong cutConnections = new AtomicLong();
    private volatile boolean closed;

    private SlowProxy(InetSocketAddress target, ServerSocket serverSocket)
    {
        this.target = requireNonNull(target, "target is null");
        this.serverSocket = requireNonNull(serverSocket, "serverSocket is null");
        this.acceptor = Thread.ofVirtual().name("slow-proxy-" + serverSocket.getLocalPort()).start(this::acceptLoop);
    }

    /** A proxy for the server at {@code target}'s host and port (e.g. a shard's {@code httpUri()}), on a free port. */
    public static SlowProxy start(URI target)
    {
        return start(target.getHost(), target.getPort());
    }

    public static SlowProxy start(String host, int port)
    {
        return start(host, port, TrinoProcessCluster.freePort());
    }

    /** A proxy listening on {@code listenPort} (one reserved for it, as a peer service's port above a worker's). */
    public static SlowProxy start(String host, int port, int listenPort)
    {
        try {
            ServerSocket serverSocket = new ServerSocket(listenPort, 50, InetAddress.getLoopbackAddress());
            return new SlowProxy(new InetSocketAddress(host, port), serverSocket);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot listen for the proxy", e);
        }
    }

    public int port()
    {
        return serverSocket.getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>}: where clients connect instead of the server. */
    public URI httpUri()
    {
        return URI.create("http://127.0.0.1:" + port());
    }

    /** {@code http://127.0.0.1:<port>/<catalog>/<schema>}, the connector's {@code shards.uris} form, through the proxy. */
    public String uri(String catalog, String schema)
    {
        return "%s/%s/%s".formatted(httpUri(), catalog, schema);
    }

    public String jdbcUrl()
    {
        return "jdbc:trino://127.0.0.1:" + port();
    }

    /** Delays what the server sends from now on (open connections included); {@link Duration#ZERO} passes it through. */
    public void setDelay(Duration delay)
    {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay is negative: " + delay);
        }
        this.delayNanos = delay.toNanos();
    }

    public Duration delay()
    {
        return Duration.ofNanos(delayNanos);
    }

    /**
     * Refusing: the open connections are dropped and each new one is reset as soon as it is accepted (the client sees
     * a connection reset or end of stream), as when the server is down. Not refusing: new connections are forwarded.
     */
    public void setRefusing(boolean refusing)
    {
        this.refusing = refusing;
        if (refusing) {
            sockets.forEach(SlowProxy::closeQuietly);
        }
    }

    public boolean isRefusing()
    {
        return refusing;
    }

    /** What happens to what the server sends from now on. */
    public enum Damage
    {
        /** Passed on unchanged. */
        NONE,
        /**
         * Half of the first chunk the server sends on each connection reaches the client, then the connection is reset:
         * a server killed while it answers.
         */
        CUT,
    }

    public void setDamage(Damage damage)
    {
        this.damage = requireNonNull(damage, "damage is null");
    }

    /** Connections reset mid-answer under {@link Damage#CUT}. */
    public long cutConnections()
    {
        return cutConnections.get();
    }

    /** Connections forwarded to the server so far. */
    public long acceptedConnections()
    {
        return acceptedConnections.get();
    }

    /** Connections reset because the proxy was refusing. */
    public long refusedConnections()
    {
        return refusedConnections.get();
    }

    private void acceptLoop()
    {
        while (!closed) {
            Socket client;
            try {
                client = serverSocket.accept();
            }
            catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (refusing) {
                refusedConnections.incrementAndGet();
                reset(client);
                continue;
            }
            acceptedConnections.incrementAndGet();
            Thread.ofVirtual().name("slow-proxy-connect-" + port()).start(() -> connect(client));
        }
    }

    private void connect(Socket client)
    {
        Socket server = new Socket();
        sockets.add(client);
        sockets.add(server);
        try {
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
            server.connect(target, 10_000);
        }
        catch (IOException e) {
            // the server is not there: the client sees the connection go, as it would without the proxy
            reset(client);
            closePair(client, server);
            return;
        }
        // both directions done (or one failed): then both sockets close
        ConnectionState state = new ConnectionState(client, server);
        Thread.ofVirtual().name("slow-proxy-upstream").start(() -> state.finish(pump(client, server)));
        Thread.ofVirtual().name("slow-proxy-downstream").start(() -> state.finish(delayedPump(server, client)));
    }

    private final class ConnectionState
    {
        private final Socket client;
        private final Socket server;
        private int finished;

        ConnectionState(Socket client, Socket server)
        {
            this.client = client;
            this.server = server;
        }

        synchronized void finish(boolean clean)
        {
            finished++;
            if (!clean || finished == 2) {
                closePair(client, server);
            }
        }
    }

    // client to server, unchanged; an end of stream is passed on as a half close. True when it ended cleanly.
    private static boolean pump(Socket from, Socket to)
    {
        byte[] buffer = new byte[BUFFER_SIZE];
        try {
            InputStream input = from.getInputStream();
            OutputStream output = to.getOutputStream();
            int read;
            while ((read = input.read(buffer)) >= 0) {
                output.write(buffer, 0, read);
                output.flush();
            }
            to.shutdownOutput();
            return true;
        }
        catch (IOException e) {
            return false;
        }
    }

    // server to client: each chunk is written the delay after it was read; a writer thread keeps the chunks' order
    private boolean delayedPump(Socket from, Socket to)
    {
        // always through the queue, so that a delay set while the connection is open applies to it too
        BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
        Thread writer = Thread.ofVirtual().name("slow-proxy-delay").start(() -> writeDelayed(chunks, from, to));
        boolean clean;
        byte[] buffer = new byte[BUFFER_SIZE];
        try {
            InputStream input = from.getInputStream();
            int read;
            while ((read = input.read(buffer)) >= 0) {
                chunks.add(new Chunk(System.nanoTime() + delayNanos, Arrays.copyOf(buffer, read)));
            }
            clean = true;
        }
        catch (IOException e) {
            clean = false;
        }
        chunks.add(new Chunk(System.nanoTime() + delayNanos, new byte[0]));
        try {
            writer.join();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return clean && !to.isClosed();
    }

    // no bytes: the end of the stream (a read returns at least one byte)
    private record Chunk(long dueNanos, byte[] bytes) {}

    private void writeDelayed(BlockingQueue<Chunk> chunks, Socket from, Socket to)
    {
        try {
            OutputStream output = to.getOutputStream();
            while (true) {
                Chunk chunk = chunks.take();
                long wait = chunk.dueNanos() - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(Duration.ofNanos(wait));
                }
                if (chunk.bytes().length == 0) {
                    to.shutdownOutput();
                    return;
                }
                byte[] bytes = chunk.bytes();
                switch (damage) {
                    case NONE -> {}
                    case CUT -> {
                        output.write(bytes, 0, bytes.length / 2);
                        output.flush();
                        cutConnections.incrementAndGet();
                        reset(to);
                        closeQuietly(from);
                        return;
                    }
                }
                output.write(bytes);
                output.flush();
            }
        }
        catch (IOException e) {
            // the client went away: stop reading from the server too
            closeQuietly(from);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closePair(Socket client, Socket server)
    {
        closeQuietly(client);
        closeQuietly(server);
        sockets.remove(client);
        sockets.remove(server);
    }

    // an RST rather than a FIN: the client fails at once instead of reading an empty response
    private static void reset(Socket socket)
    {
        try {
            socket.setSoLinger(true, 0);
        }
        catch (SocketException ignored) {
            // closing is what matters
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket)
    {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close()
    {
        closed = true;
        try {
            serverSocket.close();
        }
        catch (IOException ignored) {
            // closing
        }
        sockets.forEach(SlowProxy::closeQuietly);
        sockets.clear();
        try {
            acceptor.join(Duration.ofSeconds(5));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
