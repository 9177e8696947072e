package io.overdrive.cache.page;

import io.overdrive.scheduler.affinity.RendezvousHashing;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Which directory holds a file's pages: rendezvous hashing over the directories in use, the same hashing soft affinity
 * uses over workers. A directory going out of use moves only its own files, to their second choice, and they come back
 * when it does.
 */
final class DirectoryChooser
{
    private final List<PageStoreDirectory> directories;
    private final long[] directoryHashes;

    DirectoryChooser(List<PageStoreDirectory> directories)
    {
        this.directories = List.copyOf(requireNonNull(directories, "directories is null"));
        this.directoryHashes = this.directories.stream().mapToLong(directory -> RendezvousHashing.hashNode(directory.path().toString())).toArray();
    }

    Optional<PageStoreDirectory> directoryFor(String fileId)
    {
        long keyHash = RendezvousHashing.hashKey(fileId);
        int best = -1;
        long bestScore = 0;
        for (int index = 0; index < directoryHashes.length; index++) {
            if (!directories.get(index).isEnabled()) {
                continue;
            }
            long score = RendezvousHashing.score(keyHash, directoryHashes[index]);
            if (best < 0 || RendezvousHashing.ranksBefore(score, index, bestScore, best)) {
                best = index;
                bestScore = score;
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(directories.get(best));
    }
}
