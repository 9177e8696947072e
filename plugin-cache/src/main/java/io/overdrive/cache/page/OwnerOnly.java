package io.overdrive.cache.page;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Permissions of the cache's files: cached pages are plain copies of table data, readable by the Trino user only. The
 * catalog's cache directory is {@code rwx------}, so nothing below it can be reached by another user whatever the mode
 * of the files there (Alluxio creates page files with the process umask); the files Overdrive writes itself are
 * created {@code rw-------} on top of that. On a file system without POSIX permissions, nothing is set.
 */
final class OwnerOnly
{
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnly() {}

    /** The attributes to create a file of {@code directory} with: owner read and write only (within the umask). */
    static FileAttribute<?>[] fileAttributes(Path directory)
    {
        if (!supportsPermissions(directory)) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)};
    }

    /** Creates the file, which must not exist, with {@code bytes}: owner read and write only (within the umask). */
    static void createFile(Path file, byte[] bytes)
            throws IOException
    {
        try (SeekableByteChannel channel = Files.newByteChannel(file, Set.of(CREATE_NEW, WRITE), fileAttributes(file.getParent()))) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    /** Makes the directory {@code rwx------}, whatever it was (created by an earlier version, or by hand). */
    static void restrictDirectory(Path directory)
            throws IOException
    {
        if (supportsPermissions(directory) && !Files.getPosixFilePermissions(directory).equals(DIRECTORY)) {
            Files.setPosixFilePermissions(directory, DIRECTORY);
        }
    }

    private static boolean supportsPermissions(Path path)
    {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
