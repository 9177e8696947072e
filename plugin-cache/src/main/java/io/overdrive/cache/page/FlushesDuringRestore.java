package io.overdrive.cache.page;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.airlift.log.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * What flushes removed while the restore of the pages found at startup runs ({@link PageRestore}), so that it does not
 * bring back pages of those files: the restore reads a file's record, and so learns its path, only when its turn comes,
 * after a flush of that path may have gone by. Forgotten when the restore ends, and bounded meanwhile whatever the
 * number of flushes:
 * <ul>
 * <li>paths expired one by one (every file written through the catalog expires its path) go into a Bloom filter of
 * fixed size. A false positive only keeps a page that was not flushed from being restored (it is discarded as flushed,
 * and read from storage again), never lets a flushed one through. Up to {@link #EXPECTED_PATHS} paths, fewer than 1% of
 * the other files are lost that way; past that the share grows, toward every file not restored yet.</li>
 * <li>flushes by predicate (a schema, a table, {@code flush_cache}) are kept up to {@link #MAX_PREDICATES}; past that,
 * every file the restore has not reached yet counts as flushed.</li>
 * </ul>
 */
final class FlushesDuringRestore
{
    static final int EXPECTED_PATHS = 100_000;
    static final int MAX_PREDICATES = 1_000;

    private static final Logger log = Logger.get(FlushesDuringRestore.class);
    private static final double FALSE_POSITIVES = 0.01;
    // what Guava's filter holds for EXPECTED_PATHS at FALSE_POSITIVES: its optimal bit count, in longs
    private static final long FILTER_BYTES = 8 * (long) Math.ceil(-EXPECTED_PATHS * Math.log(FALSE_POSITIVES) / (Math.log(2) * Math.log(2)) / 64);
    // a list slot and a lambda with a captured value or two, roughly; what the predicate captures is not counted
    private static final long PREDICATE_BYTES = 48;

    private final String catalog;
    // guarded by this
    private BloomFilter<String> paths;
    private final List<Predicate<String>> predicates = new ArrayList<>();
    private boolean everything;
    private boolean ended;

    FlushesDuringRestore(String catalog)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    synchronized void path(String path)
    {
        requireNonNull(path, "path is null");
        if (ended || everything) {
            return;
        }
        if (paths == null) {
            paths = BloomFilter.create(Funnels.stringFunnel(UTF_8), EXPECTED_PATHS, FALSE_POSITIVES);
        }
        paths.put(path);
    }

    synchronized void paths(Predicate<String> flushed)
    {
        requireNonNull(flushed, "flushed is null");
        if (ended || everything) {
            return;
        }
        if (predicates.size() == MAX_PREDICATES) {
            log.info("Catalog %s: over %s flushes by schema or table during the restore of its cache; the pages the restore has not reached yet are discarded", catalog, MAX_PREDICATES);
            everything();
            return;
        }
        predicates.add(flushed);
    }

    synchronized void everything()
    {
        if (ended) {
            return;
        }
        everything = true;
        paths = null;
        predicates.clear();
    }

    synchronized boolean flushed(String path)
    {
        if (everything || (paths != null && paths.mightContain(path))) {
            return true;
        }
        for (Predicate<String> predicate : predicates) {
            if (predicate.test(path)) {
                return true;
            }
        }
        return false;
    }

    /** Every restore has ended: nothing is remembered from now on. */
    synchronized void end()
    {
        ended = true;
        everything = false;
        paths = null;
        predicates.clear();
    }

    /** An estimate of the heap this holds. */
    synchronized long retainedBytes()
    {
        return (paths == null ? 0 : FILTER_BYTES) + predicates.size() * PREDICATE_BYTES;
    }
}
