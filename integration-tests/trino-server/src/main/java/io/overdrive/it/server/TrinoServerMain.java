package io.overdrive.it.server;

import io.trino.server.Server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What Trino's own {@code TrinoServer.main} does (it lives in trino-server-main, which is not published): start the
 * server with the Trino version this module was built against. Configuration comes from the usual system properties
 * ({@code -Dconfig=etc/config.properties}) and the working directory ({@code etc/}, {@code plugin/}).
 */
public final class TrinoServerMain
{
    private TrinoServerMain() {}

    public static void main(String[] args)
    {
        if (Boolean.getBoolean("overdrive.exit-on-stdin-eof")) {
            exitWhenParentGoes();
        }
        new Server().start(trinoVersion());
    }

    // the test harness or demo that started us holds our stdin: EOF means it is gone, so no server outlives it
    private static void exitWhenParentGoes()
    {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // ignore input
                }
            }
            catch (IOException ignored) {
                // treat like EOF
            }
            System.exit(0);
        }, "parent-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static String trinoVersion()
    {
        Properties properties = new Properties();
        try (InputStream input = TrinoServerMain.class.getResourceAsStream("server.properties")) {
            properties.load(input);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("trino.version");
    }
}
