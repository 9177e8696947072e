package io.overdrive.scheduler.affinity;

import com.google.common.hash.HashFunction;

import static com.google.common.hash.Hashing.murmur3_128;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Highest-random-weight (rendezvous) hashing: a key prefers the workers with the highest score
 * {@code mix(hash(key) ^ hash(nodeId))}. Adding or removing a worker changes no other worker's score, so only the keys
 * the joining worker now wins, or the leaving worker used to win, change their first choice (1/N of them).
 * <p>
 * Every function is a fixed 64-bit computation over the UTF-8 bytes, so coordinators and workers on any JVM agree.
 * Public for the page cache, which spreads files over its directories the same way.
 */
public final class RendezvousHashing
{
    private static final HashFunction HASH = murmur3_128();

    private RendezvousHashing() {}

    public static long hashKey(String key)
    {
        return HASH.hashString(key, UTF_8).asLong();
    }

    public static long hashNode(String nodeId)
    {
        return HASH.hashString(nodeId, UTF_8).asLong();
    }

    /**
     * The weight of a worker for a key. Both hashes are already uniform; the finalizer (Stafford's "mix13", used by
     * SplittableRandom) makes the weights of one key over different workers behave as independent draws, which a
     * plain XOR would not.
     */
    public static long score(long keyHash, long nodeHash)
    {
        long z = keyHash ^ nodeHash;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * Whether the worker at index {@code a} ranks before the one at {@code b}. Ties in the 64-bit score, however
     * unlikely, go to the lower index, i.e. the smaller node id, so the order is total and deterministic.
     */
    public static boolean ranksBefore(long scoreA, int a, long scoreB, int b)
    {
        return scoreA > scoreB || (scoreA == scoreB && a < b);
    }

    /**
     * Writes into {@code into} the indexes of the {@code count} best-ranked of the first {@code size} scores, best
     * first, and returns how many it wrote ({@code min(count, size)}). Insertion into a short sorted prefix: the counts
     * asked for (the preferred hosts) are small.
     */
    static int topIndexes(long[] scores, int size, int count, int[] into)
    {
        int found = 0;
        int limit = Math.min(count, size);
        for (int index = 0; index < size; index++) {
            long score = scores[index];
            if (found == limit && !ranksBefore(score, index, scores[into[found - 1]], into[found - 1])) {
                continue;
            }
            int position = (found == limit) ? found - 1 : found++;
            while (position > 0 && ranksBefore(score, index, scores[into[position - 1]], into[position - 1])) {
                into[position] = into[position - 1];
                position--;
            }
            into[position] = index;
        }
        return found;
    }
}
