package io.overdrive.cache.page;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Run in its own JVM by {@link TestDirectoryOwner}: claims a catalog directory over and over against other processes
 * doing the same, and checks, with a marker file created exclusively, that no other process holds the claim at the same
 * time. Waits for {@code <directory>/../go} before it starts, so that the processes race; prints
 * {@code claims=<n> refused=<n> overlaps=<n> unusable=<n>}. With {@code hold} instead of a count, claims once, prints
 * {@code claimed} and waits to be killed.
 */
public final class DirectoryClaimMain
{
    static final String HOLDER = "holder";

    private DirectoryClaimMain() {}

    public static void main(String[] args)
            throws Exception
    {
        Path directory = Path.of(args[0]);
        if (args[1].equals("hold")) {
            Optional<DirectoryOwner> owner = DirectoryOwner.claim(directory, "lake");
            System.out.println(owner.isPresent() ? "claimed" : "unusable");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
        int iterations = Integer.parseInt(args[1]);
        Path go = directory.resolveSibling("go");
        Files.createFile(directory.resolveSibling("ready-" + ProcessHandle.current().pid()));
        while (!Files.exists(go)) {
            Thread.onSpinWait();
        }
        int claims = 0;
        int refused = 0;
        int overlaps = 0;
        int unusable = 0;
        Path holder = directory.resolve(HOLDER);
        for (int iteration = 0; iteration < iterations; iteration++) {
            Optional<DirectoryOwner> owner;
            try {
                owner = DirectoryOwner.claim(directory, "lake");
            }
            catch (IllegalStateException e) {
                refused++;
                continue;
            }
            if (owner.isEmpty()) {
                unusable++;
                continue;
            }
            try (DirectoryOwner _ = owner.get()) {
                claims++;
                try {
                    Files.createFile(holder);
                }
                catch (FileAlreadyExistsException e) {
                    // another process holds the claim too
                    overlaps++;
                    continue;
                }
                for (int spin = 0; spin < 10_000; spin++) {
                    Thread.onSpinWait();
                }
                Files.delete(holder);
            }
        }
        System.out.printf("claims=%s refused=%s overlaps=%s unusable=%s%n", claims, refused, overlaps, unusable);
        System.exit(0);
    }
}
