package io.overdrive.it.s3;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;

/**
 * Runs a real S3 server (s3proxy, Apache-2.0) over the local file system on loopback with a free port until its standard
 * input closes or says {@code shutdown}. Buckets are the directories under the data directory; the bucket named on the
 * command line is created at startup. When the server is up it writes a properties file ({@code endpoint},
 * {@code access-key}, {@code secret-key}, {@code bucket}) atomically, which is how the parent process learns where it
 * listens. Requests are signed (AWS signature version 2 or 4) with the keys in that file.
 * <p>
 * Every object read goes through {@link ObjectStoreBehaviour}, which the lines below on standard input set, to make
 * the server answer like a remote object store:
 * <ul>
 * <li>{@code first-byte <fixed ms> <tail ms> <tail share>}: each GET waits {@code fixed} milliseconds before its first
 * byte, and a share {@code tail share} (0 to 1) of them waits a further uniformly random 0 to {@code tail} (a heavy
 * tail of slow requests); {@code first-byte off} turns it off;</li>
 * <li>{@code slow-get <n> <ms> [<key part>]}: every n-th GET (of the objects whose key contains {@code key part}, if
 * given, counted from this command on) waits a further {@code ms} before its first byte, a slow request that comes back
 * for sure ({@code slow-get off});</li>
 * <li>{@code slow-endpoint <share> <ms>}: a share (0 to 1) of the GETs reach a slow endpoint and wait a further random
 * 0 to {@code ms} before their first byte, as when one of the servers behind the store's name is slow
 * ({@code slow-endpoint off});</li>
 * <li>{@code bandwidth <bytes per second>}: all GETs together send no more object bytes per second than that
 * ({@code bandwidth off});</li>
 * <li>{@code slow-down <n>}: every n-th GET is refused with 503 Slow Down, as S3 throttles a busy prefix
 * ({@code slow-down off});</li>
 * <li>{@code get-requests} answers {@code answer get-requests = <n>}, the object GETs served (each range request is
 * one); {@code get-bytes} answers {@code answer get-bytes = <n>}, the object bytes they sent, counted as they are sent
 * (a GET whose client went away counts what was sent until then); {@code slow-downs} answers
 * {@code answer slow-downs = <n>}, the GETs refused;</li>
 * <li>{@code distinct-bytes} answers {@code answer distinct-bytes = <n>}, the distinct object bytes sent since the
 * server started or since {@code distinct-reset}: each byte of each object counted once however often it was sent.</li>
 * </ul>
 * The server answers {@code applied <line>} to every command it has applied.
 * <p>
 * For diagnostics, with the environment variable {@code OVERDRIVE_S3_GET_LOG} naming a file, every GET served appends a
 * line to it: the time in milliseconds, the bucket and key, the ranges asked for and the bytes answered.
 * <p>
 * Usage: {@code S3Server [--port <port>] [--serve] <data directory> <bucket> <ready file>}. With {@code --port} it
 * listens on that port of every address (a container's service) instead of a free loopback port; with {@code --serve}
 * it keeps serving when its standard input closes (a container has none) and stops when it is killed.
 */
public final class S3Server
{
    static final String ACCESS_KEY = "overdrive";
    static final String SECRET_KEY = "overdrive-secret";

    private S3Server() {}

    public static void main(String[] args)
            throws Exception
    {
        int port = 0;
        boolean serve = false;
        List<String> positional = new ArrayList<>();
        for (int index = 0; index < args.length; index++) {
            switch (args[index]) {
                case "--port" -> {
                    if (index + 1 == args.length) {
                        usage();
                    }
                    port = Integer.parseInt(args[++index]);
                }
                case "--serve" -> serve = true;
                default -> positional.add(args[index]);
            }
        }
        if (positional.size() != 3 || port < 0 || port > 65535) {
            usage();
        }
        Path dataDirectory = Path.of(positional.get(0)).toAbsolutePath();
        String bucket = positional.get(1);
        Path readyFile = Path.of(positional.get(2)).toAbsolutePath();
        // a bucket of the filesystem provider is a directory under its base directory
        Files.createDirectories(dataDirectory.resolve(bucket));

        Properties overrides = new Properties();
        overrides.setProperty("jclouds.filesystem.basedir", dataDirectory.toString());
        BlobStoreContext context = ContextBuilder.newBuilder("filesystem")
                .overrides(overrides)
                .build(BlobStoreContext.class);
        ObjectStoreBehaviour behaviour = new ObjectStoreBehaviour(context.getBlobStore());
        BlobStore blobStore = behaviour;
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(blobStore)
                .endpoint(URI.create(port == 0 ? "http://127.0.0.1:0" : "http://0.0.0.0:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                // as S3 does, answer requests whose headers ask for what this server does not keep (the AWS SDK asks
                // listings for x-amz-optional-object-attributes: RestoreStatus, which no object here has)
                .ignoreUnknownHeaders(true)
                .build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
            Thread.sleep(10);
        }

        Properties ready = new Properties();
        ready.setProperty("endpoint", "http://127.0.0.1:" + proxy.getPort());
        ready.setProperty("access-key", ACCESS_KEY);
        ready.setProperty("secret-key", SECRET_KEY);
        ready.setProperty("bucket", bucket);
        Path temporary = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
        try (Writer writer = Files.newBufferedWriter(temporary, UTF_8)) {
            ready.store(writer, "S3 server");
        }
        Files.move(temporary, readyFile, ATOMIC_MOVE);
        System.out.println("S3 server listening on " + ready.getProperty("endpoint") + ", data in " + dataDirectory);

        // the parent holds our stdin: EOF means it is gone, so the server never outlives the tests or the demo
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            // a command may end with " #<sequence number>", echoed back so that the parent can wait for this very one
            String command = line.replaceFirst("\\s+#\\d+$", "").strip();
            String[] words = command.split("\\s+");
            try {
                switch (words[0]) {
                    case "shutdown" -> {
                        proxy.stop();
                        context.close();
                        System.exit(0);
                    }
                    case "first-byte" -> {
                        if (words[1].equals("off")) {
                            behaviour.setFirstByteLatency(0, 0, 0);
                        }
                        else {
                            behaviour.setFirstByteLatency(Long.parseLong(words[1]), Long.parseLong(words[2]), Double.parseDouble(words[3]));
                        }
                    }
                    case "slow-get" -> {
                        if (words[1].equals("off")) {
                            behaviour.setSlowGet(0, 0, "");
                        }
                        else {
                            behaviour.setSlowGet(Integer.parseInt(words[1]), Long.parseLong(words[2]), words.length > 3 ? words[3] : "");
                        }
                    }
                    case "slow-endpoint" -> {
                        if (words[1].equals("off")) {
                            behaviour.setSlowEndpoint(0, 0);
                        }
                        else {
                            behaviour.setSlowEndpoint(Double.parseDouble(words[1]), Long.parseLong(words[2]));
                        }
                    }
                    case "bandwidth" -> behaviour.setBandwidth(words[1].equals("off") ? 0 : Long.parseLong(words[1]));
                    case "slow-down" -> behaviour.setSlowDownEvery(words[1].equals("off") ? 0 : Integer.parseInt(words[1]));
                    case "get-requests" -> System.out.println("answer " + line + " = " + behaviour.getRequests());
                    case "get-bytes" -> System.out.println("answer " + line + " = " + behaviour.getBytes());
                    case "slow-downs" -> System.out.println("answer " + line + " = " + behaviour.slowDowns());
                    case "distinct-bytes" -> System.out.println("answer " + line + " = " + behaviour.distinctBytes());
                    case "distinct-reset" -> behaviour.resetDistinct();
                    default -> {
                        System.out.println("unknown command: " + line);
                        continue;
                    }
                }
                System.out.println("applied " + line);
            }
            catch (RuntimeException e) {
                System.out.println("failed " + line + ": " + e);
            }
        }
        if (serve) {
            // no commands to come: serve until killed
            Thread.currentThread().join();
        }
        proxy.stop();
        context.close();
        System.exit(0);
    }

    private static void usage()
    {
        System.err.println("usage: S3Server [--port <port>] [--serve] <data directory> <bucket> <ready file>");
        System.exit(2);
    }
}
