package io.overdrive.cache.peer;

import alluxio.client.file.cache.PageId;
import io.airlift.log.Logger;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.overdrive.cache.page.PageCache;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;

import static com.google.common.util.concurrent.MoreExecutors.shutdownAndAwaitTermination;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * A worker's peer service (Netty's HTTP server): answers the catalog's other workers with the bytes this worker's page
 * cache holds ({@link PeerProtocol}), to requests signed with the catalog's secret only. Each page is read through the
 * cache's own read, which checks every chunk's stored checksum: a damaged page is a miss, never sent. At most
 * {@code cache.peer.server-threads} requests are served at once, each of at most {@code cache.peer.max-read-size}
 * bytes; more are refused as busy, and their askers read storage.
 * <p>
 * A request for bytes this worker is reading from storage right now ({@link PagesInFlight}) is answered "not cached,
 * fetching"; asked again with a wait, the service waits at most that long for the read and serves its bytes, so that
 * workers reading the same new file at once read it from storage once.
 */
public final class PeerPageServer
        implements Closeable
{
    private static final Logger log = Logger.get(PeerPageServer.class);

    private final PageCache cache;
    private final PagesInFlight inFlight;
    private final PeerAuth auth;
    private final PeerStats stats;
    private final long maxReadSize;
    private final WorkerLoadSource load;
    private final EventLoopGroup group;
    private final ExecutorService readers;
    private final Channel channel;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Listens on {@code address} (port 0: any free port, see {@link #port()}).
     *
     * @throws IllegalStateException when the address cannot be bound
     */
    public PeerPageServer(InetSocketAddress address, PageCache cache, PeerAuth auth, PeerConfig config, PeerStats stats)
    {
        this(address, cache, PagesInFlight.NONE, WorkerLoadSource.NONE, auth, config, stats);
    }

    /**
     * @param load what this worker answers the placer's load requests with
     */
    public PeerPageServer(InetSocketAddress address, PageCache cache, WorkerLoadSource load, PeerAuth auth, PeerConfig config, PeerStats stats)
    {
        this(address, cache, PagesInFlight.NONE, load, auth, config, stats);
    }

    /**
     * @param inFlight this worker's storage reads in flight, which a request may wait for
     * @param load what this worker answers the placer's load requests with
     */
    public PeerPageServer(InetSocketAddress address, PageCache cache, PagesInFlight inFlight, WorkerLoadSource load, PeerAuth auth, PeerConfig config, PeerStats stats)
    {
        this.cache = requireNonNull(cache, "cache is null");
        this.inFlight = requireNonNull(inFlight, "inFlight is null");
        this.load = requireNonNull(load, "load is null");
        this.auth = requireNonNull(auth, "auth is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.maxReadSize = config.getMaxReadSize().toBytes();
        this.readers = new ThreadPoolExecutor(config.getServerThreads(), config.getServerThreads(), 60, SECONDS, new SynchronousQueue<>(), daemonThreadsNamed("overdrive-peer-server-%s"));
        this.group = new MultiThreadIoEventLoopGroup(1, daemonThreadsNamed("overdrive-peer-io-%s"), NioIoHandler.newFactory());
        try {
            this.channel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>()
                    {
                        @Override
                        protected void initChannel(SocketChannel channel)
                        {
                            channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), new Handler());
                        }
                    })
                    .bind(address)
                    .syncUninterruptibly()
                    .channel();
        }
        catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, SECONDS);
            readers.shutdownNow();
            throw new IllegalStateException("The peer service cannot listen on %s:%s (%s): free that port, or choose another with %s".formatted(
                    address.getHostString(), address.getPort(), e.getMessage(), PeerConfig.PORT_OFFSET), e);
        }
    }

    public int port()
    {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, SECONDS).syncUninterruptibly();
        shutdownAndAwaitTermination(readers, 5, SECONDS);
    }

    private final class Handler
            extends SimpleChannelInboundHandler<FullHttpRequest>
    {
        @Override
        protected void channelRead0(ChannelHandlerContext context, FullHttpRequest request)
        {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            String uri = request.uri();
            var refusal = auth.refusal(request.headers().get(HttpHeaderNames.AUTHORIZATION), uri);
            if (refusal.isPresent()) {
                stats.recordUnauthenticated();
                log.debug("Refused peer request from %s: %s", context.channel().remoteAddress(), refusal.get());
                respond(context, HttpResponseStatus.UNAUTHORIZED, "Not signed with this catalog's cache.peer.shared-secret: " + refusal.get(), keepAlive);
                return;
            }
            if (request.method().equals(HttpMethod.GET) && new QueryStringDecoder(uri, UTF_8).path().equals(PeerProtocol.LOAD_PATH)) {
                // cheap (a few JMX attributes): answered on the I/O thread, never queued behind page reads
                var sample = load.sample();
                stats.recordLoadAnswer(sample.isPresent());
                sample.ifPresentOrElse(
                        answer -> respond(context, HttpResponseStatus.OK, answer.encode(), keepAlive),
                        () -> respond(context, HttpResponseStatus.NOT_FOUND, "this worker cannot tell its load", keepAlive));
                return;
            }
            Read read;
            try {
                read = parse(request.method(), uri);
            }
            catch (IllegalArgumentException e) {
                stats.recordBadRequest();
                respond(context, HttpResponseStatus.BAD_REQUEST, e.getMessage(), keepAlive);
                return;
            }
            try {
                readers.execute(() -> serve(context, read, keepAlive));
            }
            catch (RejectedExecutionException e) {
                stats.recordServedBusy();
                respond(context, HttpResponseStatus.SERVICE_UNAVAILABLE, "busy", keepAlive);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause)
        {
            log.debug(cause, "Peer connection from %s failed", context.channel().remoteAddress());
            context.close();
        }
    }

    private Read parse(HttpMethod method, String uri)
    {
        QueryStringDecoder decoder = new QueryStringDecoder(uri, UTF_8);
        if (!method.equals(HttpMethod.GET) || !decoder.path().equals(PeerProtocol.PATH)) {
            throw new IllegalArgumentException("Unknown request: " + method + " " + decoder.path());
        }
        Map<String, List<String>> parameters = decoder.parameters();
        String fileId = parameter(parameters, "file");
        int pageSize = Integer.parseInt(parameter(parameters, "pageSize"));
        long start = Long.parseLong(parameter(parameters, "start"));
        int length = Integer.parseInt(parameter(parameters, "length"));
        if (pageSize != cache.pageSize()) {
            throw new IllegalArgumentException("Pages of %s bytes asked for, this worker caches pages of %s bytes: set the same cache.page-size on every node".formatted(pageSize, cache.pageSize()));
        }
        if (start < 0 || length <= 0 || length > maxReadSize) {
            throw new IllegalArgumentException("Bad range: %s bytes from %s (at most %s bytes, cache.peer.max-read-size)".formatted(length, start, maxReadSize));
        }
        long waitMillis = 0;
        if (parameters.containsKey("wait")) {
            waitMillis = Long.parseLong(parameter(parameters, "wait"));
            if (waitMillis < 0 || waitMillis > PeerProtocol.MAX_WAIT_MILLIS) {
                throw new IllegalArgumentException("Bad wait: %s ms (at most %s)".formatted(waitMillis, PeerProtocol.MAX_WAIT_MILLIS));
            }
        }
        return new Read(fileId, start, length, waitMillis);
    }

    private static String parameter(Map<String, List<String>> parameters, String name)
    {
        List<String> values = parameters.get(name);
        if (values == null || values.size() != 1) {
            throw new IllegalArgumentException("Parameter %s missing".formatted(name));
        }
        return values.getFirst();
    }

    private void serve(ChannelHandlerContext context, Read read, boolean keepAlive)
    {
        byte[] data;
        boolean fetching = false;
        try {
            data = readCached(read);
            if (data == null && read.waitMillis() > 0) {
                data = readFetched(read);
                if (data != null) {
                    stats.recordServedAfterFetch();
                }
            }
            else if (data == null) {
                fetching = isFetching(read);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            data = null;
        }
        catch (RuntimeException e) {
            log.warn(e, "Serving a peer's read of %s failed", read.fileId());
            data = null;
        }
        if (data == null) {
            stats.recordServedMiss();
            if (fetching) {
                respond(context, HttpResponseStatus.NOT_FOUND, "not cached, fetching", Optional.of(PeerProtocol.FETCHING_HEADER), keepAlive);
            }
            else {
                respond(context, HttpResponseStatus.NOT_FOUND, "not cached", keepAlive);
            }
            return;
        }
        byte[] checksums = PeerProtocol.checksums(data, 0, data.length);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(checksums, data));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, PeerProtocol.CONTENT_TYPE);
        stats.recordServed(data.length);
        send(context, response, keepAlive);
    }

    // every byte asked for, each page read through the cache's checked read; null when one is missing or damaged
    private byte[] readCached(Read read)
    {
        byte[] data = new byte[read.length()];
        for (PageSlice slice : slices(read)) {
            if (cache.read(slice.page(), slice.pageOffset(), slice.length(), data, slice.targetOffset()) != slice.length()) {
                return null;
            }
        }
        return data;
    }

    // whether every page of the read this worker does not hold is being read from storage here now
    private boolean isFetching(Read read)
    {
        boolean any = false;
        for (PageSlice slice : slices(read)) {
            if (cache.contains(slice.page(), slice.pageOffset(), slice.pageOffset() + slice.length())) {
                continue;
            }
            if (!inFlight.fetching(slice.page())) {
                return false;
            }
            any = true;
        }
        return any;
    }

    // every byte asked for, each page from the cache or, waiting at most the read's wait in all, from this worker's storage
    // read of it in flight; null when one cannot be had
    private byte[] readFetched(Read read)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + MILLISECONDS.toNanos(read.waitMillis());
        byte[] data = new byte[read.length()];
        for (PageSlice slice : slices(read)) {
            if (cache.read(slice.page(), slice.pageOffset(), slice.length(), data, slice.targetOffset()) == slice.length()) {
                continue;
            }
            if (!inFlight.awaitFetched(slice.page(), slice.pageOffset(), slice.length(), data, slice.targetOffset(), Math.max(0, deadline - System.nanoTime()))
                    // the read may have completed, cached the page and left between the two looks
                    && cache.read(slice.page(), slice.pageOffset(), slice.length(), data, slice.targetOffset()) != slice.length()) {
                return null;
            }
        }
        return data;
    }

    // the read cut at page boundaries: for each page it touches, where in the page and where in the answer its bytes go
    private List<PageSlice> slices(Read read)
    {
        int pageSize = cache.pageSize();
        long end = read.start() + read.length();
        List<PageSlice> slices = new ArrayList<>();
        for (long page = read.start() / pageSize; page * pageSize < end; page++) {
            long pageStart = page * pageSize;
            long from = Math.max(read.start(), pageStart);
            slices.add(new PageSlice(new PageId(read.fileId(), page), (int) (from - pageStart), (int) (Math.min(end, pageStart + pageSize) - from), (int) (from - read.start())));
        }
        return slices;
    }

    private static void respond(ChannelHandlerContext context, HttpResponseStatus status, String message, boolean keepAlive)
    {
        respond(context, status, message, Optional.empty(), keepAlive);
    }

    // a plain-text answer; flag, when present, is a header set to "true"
    private static void respond(ChannelHandlerContext context, HttpResponseStatus status, String message, Optional<String> flag, boolean keepAlive)
    {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.copiedBuffer(message, UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        flag.ifPresent(header -> response.headers().set(header, "true"));
        send(context, response, keepAlive);
    }

    private static void send(ChannelHandlerContext context, FullHttpResponse response, boolean keepAlive)
    {
        HttpUtil.setContentLength(response, response.content().readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        var future = context.writeAndFlush(response);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private record Read(String fileId, long start, int length, long waitMillis) {}

    private record PageSlice(PageId page, int pageOffset, int length, int targetOffset) {}
}
