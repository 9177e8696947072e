package io.overdrive.cache.page;

import com.google.common.base.Splitter;
import io.airlift.log.Logger;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Claims a catalog's cache directory ({@code <cache.base-directory>/<catalog>}) for this cache while the catalog runs.
 * Two cache managers on one directory would restore and evict each other's pages, so a second claim (another node in
 * this JVM, or another live Trino process on the host, named with its process id in {@code .owner}) fails at startup.
 * A claim left by a process that is gone (killed, crashed) is taken over.
 * <p>
 * Claiming and releasing happen under an exclusive lock on {@code .owner.lock} ({@link FileChannel#lock}), so that of
 * processes starting at the same time exactly one finds the directory free and claims it. The operating system releases
 * the lock when its process dies, so a kill never leaves the directory locked. The lock is held only for those few
 * file operations, not while the catalog runs: no file is held open, so a disk that is remounted read-only after errors,
 * or that an operator unmounts, is not kept busy by the claim.
 */
final class DirectoryOwner
        implements AutoCloseable
{
    static final String FILE_NAME = ".owner";
    static final String LOCK_FILE_NAME = ".owner.lock";

    private static final Logger log = Logger.get(DirectoryOwner.class);
    // nodes of an in-process cluster load this plugin once: their caches meet here (the lock is per process)
    private static final Set<Path> CLAIMED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path directory;
    private final String claim;

    private DirectoryOwner(Path directory, String claim)
    {
        this.directory = directory;
        this.claim = claim;
    }

    /**
     * Claims the directory, or returns empty when its claim cannot be written (the directory is then unusable, and
     * reported as such by the caller).
     *
     * @throws IllegalStateException when another cache uses the directory
     */
    static Optional<DirectoryOwner> claim(Path directory, String catalog)
    {
        Path normalized = directory.toAbsolutePath().normalize();
        if (!CLAIMED_IN_THIS_JVM.add(normalized)) {
            throw inUse(normalized, catalog, "another node in this JVM");
        }
        try {
            String claim = describe(ProcessHandle.current());
            try (FileChannel lock = lock(normalized)) {
                Path file = normalized.resolve(FILE_NAME);
                Optional<ProcessHandle> owner = liveOwner(file);
                if (owner.isPresent() && owner.get().pid() != ProcessHandle.current().pid()) {
                    throw inUse(normalized, catalog, "the Trino process with pid " + owner.get().pid());
                }
                Path temporary = normalized.resolve(FILE_NAME + "." + ProcessHandle.current().pid() + ".tmp");
                try {
                    // left by an earlier process of the same pid, killed while claiming
                    Files.deleteIfExists(temporary);
                    OwnerOnly.createFile(temporary, claim.getBytes(UTF_8));
                    Files.move(temporary, file, REPLACE_EXISTING, ATOMIC_MOVE);
                }
                finally {
                    Files.deleteIfExists(temporary);
                }
            }
            return Optional.of(new DirectoryOwner(normalized, claim));
        }
        catch (IOException | RuntimeException e) {
            CLAIMED_IN_THIS_JVM.remove(normalized);
            if (e instanceof IllegalStateException inUse) {
                throw inUse;
            }
            log.warn(e, "Cannot write %s", normalized.resolve(FILE_NAME));
            return Optional.empty();
        }
    }

    // waits for a process claiming or releasing the directory at this moment (a few file operations); closing the
    // channel releases the lock
    private static FileChannel lock(Path directory)
            throws IOException
    {
        FileChannel channel = FileChannel.open(directory.resolve(LOCK_FILE_NAME), Set.of(CREATE, WRITE), OwnerOnly.fileAttributes(directory));
        try {
            FileLock _ = channel.lock();
            return channel;
        }
        catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    // "<pid> <start time in ms>": a pid reused by a new process is not mistaken for the owner
    private static Optional<ProcessHandle> liveOwner(Path file)
    {
        try {
            String claim = Files.readString(file, UTF_8).strip();
            return ProcessHandle.of(Long.parseLong(Splitter.on(' ').splitToList(claim).getFirst()))
                    .filter(process -> describe(process).equals(claim));
        }
        catch (IOException | RuntimeException e) {
            // absent or unreadable: nobody holds it
            return Optional.empty();
        }
    }

    private static String describe(ProcessHandle process)
    {
        return process.pid() + " " + process.info().startInstant().map(instant -> instant.toEpochMilli()).orElse(0L);
    }

    private static IllegalStateException inUse(Path directory, String catalog, String owner)
    {
        return new IllegalStateException(("Overdrive cache directory %s is already in use by catalog '%s' of %s. " +
                "Two caches must not share a directory: give each Trino process its own cache.base-directory").formatted(directory, catalog, owner));
    }

    @Override
    public void close()
    {
        try (FileChannel _ = lock(directory)) {
            Path file = directory.resolve(FILE_NAME);
            if (Files.readString(file, UTF_8).equals(claim)) {
                Files.delete(file);
            }
        }
        catch (IOException | RuntimeException e) {
            // a stale claim names a process that is gone, and is taken over at the next start
        }
        finally {
            CLAIMED_IN_THIS_JVM.remove(directory);
        }
    }
}
