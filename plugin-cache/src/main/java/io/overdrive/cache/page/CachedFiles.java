package io.overdrive.cache.page;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.util.Objects.requireNonNull;

/**
 * The {@link CachedFile} records of one cache directory, one small file per cached file id under
 * {@code <directory>/files/<bucket>/<file id>}. A record is written (atomically: a temporary file renamed) before the
 * file's first page, so every page a crash leaves behind has its record, and a page without one is an orphan. Records
 * of files whose pages were all evicted stay until the next restore, which removes them ({@link #sweep}).
 */
final class CachedFiles
{
    static final String DIRECTORY = "files";
    private static final int BUCKETS = 256;
    private static final String TEMPORARY_SUFFIX = ".tmp";

    private final Path root;

    CachedFiles(Path directory)
    {
        this.root = requireNonNull(directory, "directory is null").resolve(DIRECTORY);
    }

    void write(String fileId, CachedFile file)
            throws IOException
    {
        Path target = pathOf(fileId);
        Files.createDirectories(target.getParent());
        Path temporary = target.resolveSibling(fileId + "." + UUID.randomUUID() + TEMPORARY_SUFFIX);
        try {
            // readable by the Trino user only, as the pages (OwnerOnly)
            OwnerOnly.createFile(temporary, file.encode());
            Files.move(temporary, target, ATOMIC_MOVE, REPLACE_EXISTING);
        }
        finally {
            Files.deleteIfExists(temporary);
        }
    }

    void delete(String fileId)
            throws IOException
    {
        Files.deleteIfExists(pathOf(fileId));
    }

    /** Deletes the file's record if it was last written before {@code beforeMillis} (not since by this process). */
    void deleteIfWrittenBefore(String fileId, long beforeMillis)
            throws IOException
    {
        Path path = pathOf(fileId);
        if (writtenBefore(path, beforeMillis)) {
            Files.deleteIfExists(path);
        }
    }

    private static boolean writtenBefore(Path path, long beforeMillis)
    {
        try {
            return Files.getLastModifiedTime(path).toMillis() < beforeMillis;
        }
        catch (IOException e) {
            // gone already
            return false;
        }
    }

    /**
     * Deletes every record (for a cache emptied completely). A record's temporary file is left to its writer, which renames
     * or deletes it: deleting it under the writer would fail the write as if the disk had.
     */
    void deleteAll()
            throws IOException
    {
        for (Path path : list()) {
            if (!path.getFileName().toString().endsWith(TEMPORARY_SUFFIX)) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** A file's record: absent when there is none or it was damaged (a damaged one is deleted). */
    record Lookup(Optional<CachedFile> file, boolean damaged) {}

    /**
     * The file's record. A damaged one is deleted if it was last written before {@code beforeMillis}: one written since
     * is a new record of this process (written whole, by a rename), put in the damaged one's place after it was read.
     */
    Lookup read(String fileId, long beforeMillis)
            throws IOException
    {
        Path path = pathOf(fileId);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        }
        catch (NoSuchFileException e) {
            // none, or deleted since it was looked for (its file flushed)
            return new Lookup(Optional.empty(), false);
        }
        Optional<CachedFile> file = CachedFile.decode(bytes);
        if (file.isPresent()) {
            return new Lookup(file, false);
        }
        if (writtenBefore(path, beforeMillis)) {
            Files.deleteIfExists(path);
        }
        return new Lookup(Optional.empty(), true);
    }

    /** A file's record, read only: absent when there is none or it is damaged (left for the restore to count and delete). */
    Optional<CachedFile> peek(String fileId)
            throws IOException
    {
        Path path = pathOf(fileId);
        return Files.exists(path) ? read(path) : Optional.empty();
    }

    /** What {@link #sweep} deleted: records of files no longer cached, damaged records, stray files. */
    record Swept(int unused, int damaged, int strays) {}

    /**
     * Deletes every record whose file is not {@code cached}, every damaged record and every stray file, among those last
     * written before {@code beforeMillis}: later ones are being written by this process, which a restore runs beside.
     */
    Swept sweep(Predicate<String> cached, long beforeMillis)
            throws IOException
    {
        int unused = 0;
        int damaged = 0;
        int strays = 0;
        for (Path path : list()) {
            if (!writtenBefore(path, beforeMillis)) {
                continue;
            }
            String name = path.getFileName().toString();
            if (name.endsWith(TEMPORARY_SUFFIX) || !path.equals(pathOf(name))) {
                Files.deleteIfExists(path);
                strays++;
            }
            else if (!cached.test(name)) {
                Files.deleteIfExists(path);
                unused++;
            }
            else if (read(path).isEmpty()) {
                Files.deleteIfExists(path);
                damaged++;
            }
        }
        return new Swept(unused, damaged, strays);
    }

    private static Optional<CachedFile> read(Path path)
            throws IOException
    {
        try {
            return CachedFile.decode(Files.readAllBytes(path));
        }
        catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    // every file under the root (records are at <root>/<bucket>/<file id>). Records and temporary files are created,
    // renamed and deleted meanwhile: an entry gone since it was listed is passed over, where a walk of the tree would fail
    private List<Path> list()
            throws IOException
    {
        List<Path> files = new ArrayList<>();
        addFiles(root, files);
        return files;
    }

    private static void addFiles(Path folder, List<Path> files)
            throws IOException
    {
        List<Path> entries;
        try (Stream<Path> stream = Files.list(folder)) {
            entries = stream.toList();
        }
        catch (NoSuchFileException | NotDirectoryException e) {
            return;
        }
        for (Path entry : entries) {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(entry, BasicFileAttributes.class, NOFOLLOW_LINKS);
            }
            catch (NoSuchFileException e) {
                continue;
            }
            if (attributes.isDirectory()) {
                addFiles(entry, files);
            }
            else if (attributes.isRegularFile()) {
                files.add(entry);
            }
        }
    }

    private Path pathOf(String fileId)
    {
        return root.resolve("%02x".formatted(Math.floorMod(fileId.hashCode(), BUCKETS))).resolve(fileId);
    }
}
