package io.overdrive.it.harness;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * A JVM started by the harness. Output goes to a log file; stdin stays open so the child can exit when we go
 * (both launchers watch for EOF), and a shutdown hook stops it when this JVM exits normally or on Ctrl-C.
 */
public final class ChildProcess
        implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final Path logFile;
    private final OutputStream stdin;
    private final Thread shutdownHook;

    private ChildProcess(String name, Process process, Path logFile)
    {
        this.name = requireNonNull(name, "name is null");
        this.process = requireNonNull(process, "process is null");
        this.logFile = requireNonNull(logFile, "logFile is null");
        this.stdin = process.getOutputStream();
        this.shutdownHook = new Thread(this::stop, "stop-" + name);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static ChildProcess startJava(String name, Path workingDirectory, List<String> jvmOptions, String classpath, String mainClass, List<String> arguments)
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(arguments);
        try {
            Files.createDirectories(workingDirectory);
            Path logFile = workingDirectory.resolve(name + ".log");
            Process process = new ProcessBuilder(command)
                    .directory(workingDirectory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(logFile.toFile())
                    .start();
            return new ChildProcess(name, process, logFile);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Failed to start " + name, e);
        }
    }

    public String name()
    {
        return name;
    }

    public long pid()
    {
        return process.pid();
    }

    public boolean isAlive()
    {
        return process.isAlive();
    }

    public Path logFile()
    {
        return logFile;
    }

    /** The last lines of the log, for error messages. */
    public String logTail(int lines)
    {
        try {
            List<String> all = Files.readAllLines(logFile);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** The log's length in bytes now: pass it to {@link #logSince} to see only what the process writes after this. */
    public long logLength()
    {
        try {
            return Files.size(logFile);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What the process has logged from {@code offset} (a {@link #logLength}) on. Unlike a tail, a line written after
     * the offset stays in view however much the process logs after it.
     */
    public String logSince(long offset)
    {
        try (FileChannel channel = FileChannel.open(logFile)) {
            long length = channel.size();
            if (length <= offset) {
                return "";
            }
            ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(length - offset));
            while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
                // read until the snapshot's end
            }
            return new String(buffer.array(), 0, buffer.position(), UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void sendLine(String line)
    {
        try {
            stdin.write((line + "\n").getBytes(UTF_8));
            stdin.flush();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Failed to write to " + name, e);
        }
    }

    /** Kills the process at once (SIGKILL), the way a crashed node goes. */
    public void kill()
    {
        process.destroyForcibly();
        waitFor(30);
    }

    private void stop()
    {
        if (!process.isAlive()) {
            return;
        }
        try {
            stdin.close();
        }
        catch (IOException ignored) {
            // closing stdin is only a hint
        }
        if (!waitFor(20)) {
            process.destroy();
            if (!waitFor(20)) {
                process.destroyForcibly();
                waitFor(20);
            }
        }
    }

    private boolean waitFor(int seconds)
    {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close()
    {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (IllegalStateException ignored) {
            // already shutting down
        }
    }
}
