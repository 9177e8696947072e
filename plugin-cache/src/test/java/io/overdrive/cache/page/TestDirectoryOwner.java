package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One cache per catalog directory: of caches starting at the same time, in this JVM or in other processes, exactly one
 * claims it; a claim left by a process that was killed is taken over.
 */
class TestDirectoryOwner
{
    private static final int THREADS = 16;
    private static final int PROCESSES = 3;

    @TempDir
    Path base;

    @Test
    void threadsClaimingOneDirectoryNeverHoldItTogether()
            throws Exception
    {
        Path directory = Files.createDirectories(base.resolve("lake"));
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger claims = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                futures.add(executor.submit(() -> {
                    start.await();
                    for (int iteration = 0; iteration < 500; iteration++) {
                        Optional<DirectoryOwner> owner;
                        try {
                            owner = DirectoryOwner.claim(directory, "lake");
                        }
                        catch (IllegalStateException e) {
                            assertThat(e).hasMessageContaining("is already in use by catalog 'lake'");
                            refused.incrementAndGet();
                            continue;
                        }
                        try (DirectoryOwner _ = owner.orElseThrow()) {
                            claims.incrementAndGet();
                            assertThat(holders.incrementAndGet()).as("holders at once").isEqualTo(1);
                            Thread.yield();
                            holders.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(claims.get()).isPositive();
        assertThat(refused.get()).as("the threads contended").isPositive();
        // released: the next claim succeeds
        DirectoryOwner.claim(directory, "lake").orElseThrow().close();
    }

    @Test
    void processesClaimingOneDirectoryNeverHoldItTogether()
            throws Exception
    {
        Path directory = Files.createDirectories(base.resolve("lake"));
        List<Process> processes = new ArrayList<>();
        try {
            for (int process = 0; process < PROCESSES; process++) {
                processes.add(java(DirectoryClaimMain.class.getName(), directory.toString(), "3000")
                        .redirectOutput(base.resolve("claimer-" + process + ".log").toFile())
                        .start());
            }
            // every JVM is up before any claims: they race from the first claim on
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (countReady() < PROCESSES) {
                assertThat(System.nanoTime()).as("claimers started").isLessThan(deadline);
                assertThat(processes).allMatch(Process::isAlive);
                Thread.sleep(20);
            }
            Files.createFile(base.resolve("go"));
            long claims = 0;
            long refused = 0;
            long overlaps = 0;
            long unusable = 0;
            StringBuilder outputs = new StringBuilder();
            for (int process = 0; process < PROCESSES; process++) {
                assertThat(processes.get(process).waitFor(3, TimeUnit.MINUTES)).isTrue();
                String output = Files.readString(base.resolve("claimer-" + process + ".log"), UTF_8);
                assertThat(processes.get(process).exitValue()).as(output).isZero();
                Matcher counts = Pattern.compile("claims=(\\d+) refused=(\\d+) overlaps=(\\d+) unusable=(\\d+)").matcher(output);
                assertThat(counts.find()).as(output).isTrue();
                claims += Long.parseLong(counts.group(1));
                refused += Long.parseLong(counts.group(2));
                overlaps += Long.parseLong(counts.group(3));
                unusable += Long.parseLong(counts.group(4));
                outputs.append(output);
            }
            assertThat(claims).isPositive();
            assertThat(refused).as("the processes contended").isPositive();
            assertThat(overlaps).as("claims held by two processes at once").isZero();
            // a claim racing another must not find the directory unusable either: that leaves it out until a restart
            assertThat(unusable).as("claims that found the directory unusable: %s", outputs).isZero();
        }
        finally {
            for (Process process : processes) {
                process.destroyForcibly().waitFor();
            }
        }
        DirectoryOwner.claim(directory, "lake").orElseThrow().close();
    }

    @Test
    void claimOfAKilledProcessIsTakenOver()
            throws Exception
    {
        Path directory = Files.createDirectories(base.resolve("lake"));
        Process holder = java(DirectoryClaimMain.class.getName(), directory.toString(), "hold").start();
        try {
            BufferedReader output = new BufferedReader(new InputStreamReader(holder.getInputStream(), UTF_8));
            assertThat(output.readLine()).isEqualTo("claimed");
            assertThatThrownBy(() -> DirectoryOwner.claim(directory, "lake"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is already in use by catalog 'lake' of the Trino process with pid " + holder.pid());
        }
        finally {
            // SIGKILL: no shutdown hook, no close
            holder.destroyForcibly();
            assertThat(holder.waitFor(1, TimeUnit.MINUTES)).isTrue();
        }
        try (DirectoryOwner _ = DirectoryOwner.claim(directory, "lake").orElseThrow()) {
            assertThat(Files.readString(directory.resolve(DirectoryOwner.FILE_NAME), UTF_8)).startsWith(ProcessHandle.current().pid() + " ");
        }
    }

    private long countReady()
            throws IOException
    {
        try (var files = Files.list(base)) {
            return files.filter(file -> file.getFileName().toString().startsWith("ready-")).count();
        }
    }

    private static ProcessBuilder java(String... arguments)
    {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path")));
        command.addAll(List.of(arguments));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }
}
