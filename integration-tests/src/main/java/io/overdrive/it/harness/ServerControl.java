package io.overdrive.it.harness;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.google.common.util.concurrent.Uninterruptibles.sleepUninterruptibly;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A test server in its own JVM (HDFS, S3) and the protocol the harness speaks with it: the server writes a properties
 * file once it is up, then takes one command per line on its standard input. A command ends with {@code #<sequence
 * number>}; the server echoes {@code applied <line>} once it has applied it, and a query command answers
 * {@code answer <line> = <values>} first.
 */
final class ServerControl
        implements AutoCloseable
{
    private final String displayName;
    private final ChildProcess process;
    private final Properties ready;
    private int commands;

    private ServerControl(String displayName, ChildProcess process, Properties ready)
    {
        this.displayName = requireNonNull(displayName, "displayName is null");
        this.process = requireNonNull(process, "process is null");
        this.ready = requireNonNull(ready, "ready is null");
    }

    /**
     * Starts the server and waits until it has written {@code readyFile} (deleted first), or fails naming
     * {@code displayName} with the end of its log.
     */
    static ServerControl start(String displayName, String name, Path workDirectory, List<String> jvmOptions, String classpath, String mainClass, List<String> arguments, Path readyFile, Duration timeout)
    {
        try {
            Files.createDirectories(workDirectory);
            Files.deleteIfExists(readyFile);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChildProcess process = ChildProcess.startJava(name, workDirectory, jvmOptions, classpath, mainClass, arguments);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(readyFile)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("%s exited during startup; log %s:\n%s".formatted(displayName, process.logFile(), process.logTail(40)));
            }
            if (System.nanoTime() > deadline) {
                process.close();
                throw new IllegalStateException("%s did not start within %s; log %s:\n%s".formatted(displayName, timeout, process.logFile(), process.logTail(40)));
            }
            sleepUninterruptibly(100, MILLISECONDS);
        }
        Properties ready = new Properties();
        try (Reader reader = Files.newBufferedReader(readyFile)) {
            ready.load(reader);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ServerControl(displayName, process, ready);
    }

    /** What the server wrote to its ready file. */
    String ready(String key)
    {
        return requireNonNull(ready.getProperty(key), () -> "%s wrote no %s".formatted(displayName, key));
    }

    String ready(String key, String defaultValue)
    {
        return ready.getProperty(key, defaultValue);
    }

    ChildProcess process()
    {
        return process;
    }

    record Applied(String command, long logOffset) {}

    /**
     * Sends the command and waits until the server has applied it. The sequence number tells this command from an
     * earlier same one; the log is searched from where it was when the command was sent, not in a tail, since a server
     * can log long stack traces right after the echo.
     */
    synchronized Applied apply(String command)
    {
        String numbered = command + " #" + (++commands);
        long offset = process.logLength();
        process.sendLine(numbered);
        String applied = "applied " + numbered;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!process.logSince(offset).contains(applied)) {
            if (!process.isAlive() || System.nanoTime() > deadline || process.logSince(offset).contains("failed " + numbered)) {
                throw new IllegalStateException("%s did not apply '%s'; log %s:\n%s".formatted(displayName, command, process.logFile(), process.logTail(40)));
            }
            sleepUninterruptibly(20, MILLISECONDS);
        }
        return new Applied(numbered, offset);
    }

    /** Sends a query command: its answer's values, matched by {@code values}. */
    Matcher answer(String command, String values)
    {
        Applied applied = apply(command);
        Matcher matcher = Pattern.compile(Pattern.quote("answer " + applied.command() + " = ") + values).matcher(process.logSince(applied.logOffset()));
        if (!matcher.find()) {
            throw new IllegalStateException("%s did not answer '%s'; log %s:\n%s".formatted(displayName, command, process.logFile(), process.logTail(40)));
        }
        return matcher;
    }

    /** Sends a query command whose answer is one number. */
    long answer(String command)
    {
        return Long.parseLong(answer(command, "(\\d+)").group(1));
    }

    @Override
    public void close()
    {
        process.close();
    }
}
